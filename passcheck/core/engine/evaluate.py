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

    def __init__(self, plan: Plan, timeout: float | None = None, run_dir: str = "") -> None:
        self.names = list(plan.properties)
        self.worker = Worker(plan.worker_config(run_dir), plan.config.timeout if timeout is None else timeout)
        self.batches_rerun = 0

    def __enter__(self) -> Evaluator:
        self.worker.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.worker.close()

    @property
    def restarts(self) -> int:
        return self.worker.restarts

    def batch(self, examples: list[Any]) -> list[ExampleResult]:
        """Results of several examples, checked as one batch in the worker; a crash or a hang
        anywhere in the batch re-runs its examples one by one, so the finding is still
        attributed to exactly the example (and the stage) that caused it."""
        if len(examples) == 1:
            return [self(examples[0])]
        try:
            return self.worker.run_batch(examples)
        except WorkerDied:
            self.batches_rerun += 1
            return [self(e) for e in examples]

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
