"""Apply and check, isolated: examples go to a worker process, results come back.

A crash or a hang of the worker (the transformation under test segfaulted, or looped) is not
the end of the run: it becomes the finding of the stage the worker was in, and a fresh worker
takes the next example.
"""

from __future__ import annotations

from typing import Any

from passcheck.core.engine.plan import Plan
from passcheck.core.engine.worker import Worker, WorkerDied
from passcheck.core.outcome import ExampleResult, Outcome, Verdict


class Evaluator:
    """``evaluator(example) -> ExampleResult``; use as a context manager (it owns a process)."""

    def __init__(self, plan: Plan, timeout: float | None = None) -> None:
        self.names = list(plan.properties)
        self.worker = Worker(plan.worker_config(), plan.config.timeout if timeout is None else timeout)

    def __enter__(self) -> Evaluator:
        self.worker.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.worker.close()

    @property
    def restarts(self) -> int:
        return self.worker.restarts

    def __call__(self, example: Any) -> ExampleResult:
        try:
            return self.worker.run(example)
        except WorkerDied as d:
            blamed = d.stage if d.stage in self.names else _transform_property(self.names)
            res = ExampleResult(outcomes={n: Outcome(Verdict.DISCARDED, "worker died") for n in self.names})
            res.outcomes[blamed] = Outcome(d.kind, d.detail)
            return res


def _transform_property(names: list[str]) -> str:
    """The property a crash while building or transforming belongs to."""
    for n in names:
        if n.endswith("does_not_raise"):
            return n
    return names[0]
