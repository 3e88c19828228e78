"""``--jobs N``: N worker processes, each driven by a thread of the runner.

The runner draws examples and hands them out in batches; a thread per worker sends a batch to
its process and waits (the pipe releases the GIL), so N workers compute while the runner draws
the next ones. Which worker checks which batch does not matter: every result is recorded in
draw order (``explore``), so a run gives one result per seed whatever N. A crash or hang kills
only the worker it happened in (``Evaluator``); the other workers go on.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from passcheck.core import workdir
from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import Plan
from passcheck.core.engine.timeouts import TimeLimit
from passcheck.core.outcome import ExampleResult


class Pool:
    """``pool.submit(examples) -> Future[list[ExampleResult]]``; ``pool(example)`` for one
    example (shrinking); use as a context manager (it owns the worker processes)."""

    def __init__(self, plan: Plan, jobs: int) -> None:
        self.plan = plan
        self.jobs = max(1, jobs)
        self._executor = ThreadPoolExecutor(self.jobs, thread_name_prefix="passcheck-worker")
        self._local = threading.local()
        self._lock = threading.Lock()
        self._evaluators: list[Evaluator] = []
        # shared by the run's workers (the kernel cache), removed with the pool
        self.run_dir = workdir.create() if plan.config.kernel_cache else ""
        # one time limit for the run: every worker's examples tell it what an example takes
        self.limit = TimeLimit(plan.config.timeout)

    def __enter__(self) -> Pool:
        # every worker starts now, on its own thread, while the runner draws the first batch
        for _ in range(self.jobs):
            self._executor.submit(self._evaluator)
        return self

    def __exit__(self, exc_type: object, *_exc: object) -> None:
        if exc_type is not None:
            # Interrupted (Ctrl-C) or failed: end the workers now rather than wait for their
            # batches; a thread waiting on one sees it die and, stopped, starts no other.
            with self._lock:
                for ev in self._evaluators:
                    ev.worker.stopped = True
                    ev.worker.kill()
        self._executor.shutdown(wait=True, cancel_futures=True)
        for ev in self._evaluators:
            ev.__exit__()
        workdir.remove(self.run_dir)

    def _evaluator(self) -> Evaluator:
        ev = getattr(self._local, "evaluator", None)
        if ev is None:
            ev = Evaluator(self.plan, limit=self.limit, run_dir=self.run_dir).__enter__()
            with self._lock:
                self._evaluators.append(ev)
            self._local.evaluator = ev
        return ev

    def submit(self, examples: list[Any]) -> Future[list[ExampleResult]]:
        return self._executor.submit(lambda: self._evaluator().batch(examples))

    def __call__(self, example: Any) -> ExampleResult:
        return self.submit([example]).result()[0]

    def confirm(self, example: Any) -> ExampleResult:
        """``example`` checked alone with the time a hang is confirmed with (CONFIRM x the limit)."""
        return self._executor.submit(lambda: self._evaluator()(example, struck=True)).result()

    def alone(self, example: Any) -> ExampleResult:
        """``example`` checked by a worker started for it: nothing an earlier example left in the
        process (memory a kernel wrote past its buffer) decides the result."""

        def fresh() -> ExampleResult:
            ev = self._evaluator()
            ev.worker.close()
            return ev(example)

        return self._executor.submit(fresh).result()

    @property
    def restarts(self) -> int:
        return sum(ev.restarts for ev in self._evaluators)

    @property
    def batches_rerun(self) -> int:
        return sum(ev.batches_rerun for ev in self._evaluators)
