"""Apply and check, isolated: examples go to a worker process, results come back.

A crash or a hang of the worker (the transformation under test segfaulted, or looped) is not
the end of the run: it becomes the finding of the stage the worker was in, and a fresh worker
takes the next example. Every result that comes back tells the run's time limit how long an
example takes (``timeouts.TimeLimit``); an example cut by an adapted limit is run again alone
with more time before its hang is a finding.
"""

from __future__ import annotations

import re
from typing import Any

from passcheck.core.engine.plan import Plan
from passcheck.core.engine.timeouts import CONFIRM, TimeLimit
from passcheck.core.engine.worker import Worker, WorkerDied
from passcheck.core.outcome import BATCH_STAGE, ExampleResult, Outcome, Verdict

# a step of a batch that belongs to one example (its build or its check; not the batch compile)
_ONE_EXAMPLE = re.compile(re.escape(BATCH_STAGE) + r" (?:build|check) (\d+)$")


class Evaluator:
    """``evaluator(example) -> ExampleResult``; use as a context manager (it owns a process).
    ``limit``: the time limit, shared with the pool's other evaluators (by default the plan's
    ``--timeout``, or one adapted to what this evaluator measures)."""

    def __init__(self, plan: Plan, timeout: float | None = None, limit: TimeLimit | None = None,
                 run_dir: str = "") -> None:
        self.names = list(plan.properties)
        self.limit = limit or TimeLimit(plan.config.timeout if timeout is None else timeout)
        self.worker = Worker(plan.worker_config(run_dir), self.limit)
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
        attributed to exactly the example (and the stage) that caused it. A hang in one
        example's own step re-runs the others as a batch, and that one alone."""
        if len(examples) == 1:
            return [self(examples[0])]
        try:
            results = self.worker.run_batch(examples)
        except WorkerDied as d:
            self.batches_rerun += 1
            culprit = _ONE_EXAMPLE.match(d.stage)
            if d.kind != Verdict.HANG or culprit is None:
                return [self(e) for e in examples]
            i = int(culprit.group(1))
            rest = self.batch(examples[:i] + examples[i + 1:])
            return rest[:i] + [self(examples[i], struck=True)] + rest[i:]
        for r in results:
            self.limit.observe(r.seconds)
        return results

    def __call__(self, example: Any, struck: bool = False) -> ExampleResult:
        """``struck``: the example hung once already under an adapted limit (it gets more time)."""
        try:
            res = self.worker.run(example, CONFIRM if struck and self.limit.adaptive else 1.0)
        except WorkerDied as d:
            if d.kind == Verdict.HANG and self.limit.adaptive and self.limit.confirm and not struck:
                return self(example, struck=True)
            blamed = d.stage if d.stage in self.names else _transform_property(self.names)
            res = ExampleResult(outcomes={n: Outcome(Verdict.DISCARDED, "worker died") for n in self.names})
            res.outcomes[blamed] = Outcome(d.kind, d.detail)
            if d.stage in self.names:
                # the pass ran before the check killed the worker: its IR is what tells a known
                # bug's crash or hang from a new one, and what the repro shows
                res.input_script, res.output_script = self._scripts(example)
            return res
        self.limit.observe(res.seconds)
        return res

    def _scripts(self, example: Any) -> tuple[str, str]:
        try:
            return self.worker.scripts(example)
        except WorkerDied:
            return "", ""


def _transform_property(names: list[str]) -> str:
    """The property a crash while building or transforming belongs to."""
    for n in names:
        if n.endswith("does_not_raise"):
            return n
    return names[0]
