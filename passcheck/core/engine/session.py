"""Stages 3 and 4, apply and check: one example in, one ``ExampleResult`` out.

A session runs where TVM runs (the worker process): it loads the plan once (families, the
subject, the implementation, the properties) and then turns each drawn example into a case
(build the IR, apply the transformation) and asks every property about it.
"""

from __future__ import annotations

import importlib
import os
import time
import traceback
from collections.abc import Callable
from typing import Any

from passcheck.core import property as props
from passcheck.core import timing, workdir
from passcheck.core.engine.plan import WorkerConfig
from passcheck.core.errors import Discard, Drift, GeneratorRejected, Unknown, Violation, error_line
from passcheck.core.loading import load_impl
from passcheck.core.outcome import BATCH_STAGE, TRANSFORM, ExampleResult, Outcome, Verdict
from passcheck.core.property import Property
from passcheck.core.subject import resolve


class Session:
    """Everything a worker loads once: subject, implementation, properties."""

    def __init__(self, config: WorkerConfig) -> None:
        for module in config.property_modules:
            importlib.import_module(module)
        for f in config.property_files:
            props.load_file(f)
        self.subject = resolve(config.subject, config.ir)
        self.impl = load_impl(config.impl)
        self.properties = [props.get(n) for n in config.properties]
        self.options = config.options
        workdir.use(config.run_dir)
        self.run_keys: set[str] = set()  # modules the properties have run (case.executed())
        # Properties seen to compile or run a module (case.executed() grew while they were
        # checked) and those checked at all: the others only read IR, and are checked first,
        # before any compile (in a batch, before the batch compile).
        self.compiling: set[str] = set()
        self.checked: set[str] = set()

    def apply(self, example: Any) -> Any:
        """Build ``example`` and apply the transformation under test: the case."""
        return self.subject.make_case(example, self.impl, self.options)

    def scripts(self, example: Any) -> tuple[str, str]:
        """The input and output IR of ``example`` ("" where it cannot be built or transformed)."""
        try:
            case = self.apply(example)
            return case.input_script(), case.output_script()
        except Exception:  # noqa: BLE001 - what failed is the finding already reported
            return "", ""

    def run(self, example: Any, progress: Callable[[str], None] | None = None) -> ExampleResult:
        t0 = time.perf_counter()
        with timing.collect() as spent:
            res, case = self._build(example, progress)
            if case is not None:
                self._check(case, res, progress)
        res.timings = dict(spent)
        res.counts = dict(spent.counts)
        res.seconds = time.perf_counter() - t0
        return res

    def run_batch(self, examples: list[Any], progress: Callable[[str], None] | None = None) -> list[ExampleResult]:
        """Several examples at once: all are built and transformed, then the modules their
        properties run are compiled together (one compile, one link for the batch), then each is
        checked. Results are those of ``run`` one by one; a crash or hang anywhere in a batch
        makes the runner re-run its examples one by one (``Evaluator.batch``)."""
        built: list[tuple[ExampleResult, Any]] = []
        # each example's own seconds (its build, its check, its share of the batch compile): what
        # the runner's time limit is adapted to
        for i, example in enumerate(examples):
            if progress:
                progress(f"{BATCH_STAGE} build {i}")
            t0 = time.perf_counter()
            with timing.collect() as spent:
                res, case = self._build(example, None)
            res.timings = dict(spent)
            res.counts = dict(spent.counts)
            res.seconds = time.perf_counter() - t0
            built.append((res, case))
        order = [i for i, (_, c) in enumerate(built) if c is not None]
        if order and not self.run_keys:
            # The worker's first case: checked alone, it shows what the properties run.
            self._check_in_batch(built, order.pop(0), progress)
        reading = self.ir_readers()
        for i in order:
            self._check_in_batch(built, i, progress, reading, finish=False)
        if len(order) > 1 and self.run_keys:
            if progress:
                progress(f"{BATCH_STAGE} compile")
            t0 = time.perf_counter()
            with timing.collect() as spent:
                self.subject.prefetch([built[i][1] for i in order], sorted(self.run_keys))
            share = (time.perf_counter() - t0) / len(order)
            for i in order:
                timing.add(built[i][0].timings, spent, 1.0 / len(order))
                built[i][0].seconds += share
            timing.add_counts(built[order[0]][0].counts, spent.counts)  # (whole events: the first takes them)
        rest = [p for p in self.properties if p not in reading]
        for i in order:
            self._check_in_batch(built, i, progress, rest)
        return [res for res, _ in built]

    def _check_in_batch(self, built: list[tuple[ExampleResult, Any]], i: int,
                        progress: Callable[[str], None] | None, only: list[Property] | None = None,
                        finish: bool = True) -> None:
        """Check case ``i`` (``only``: those properties; ``finish``: the last of its checks)."""
        if progress:
            progress(f"{BATCH_STAGE} check {i}")
        res, case = built[i]
        t0 = time.perf_counter()
        with timing.collect() as spent:
            if only is None:
                self._check(case, res, None)
            else:
                self._check_properties(case, res, None, only)
                if finish:
                    self._finish(case, res)
        timing.add(res.timings, spent)
        timing.add_counts(res.counts, spent.counts)
        res.seconds += time.perf_counter() - t0

    def ir_readers(self) -> list[Property]:
        """The properties that have only read IR so far (none compiled or ran a module)."""
        return [p for p in self.properties if p.name in self.checked and p.name not in self.compiling]

    def _build(self, example: Any, progress: Callable[[str], None] | None) -> tuple[ExampleResult, Any]:
        res = ExampleResult()
        try:
            if progress:
                progress(TRANSFORM)
            with timing.stage("build"):
                case = self.apply(example)
        except GeneratorRejected as e:
            res.rejected = str(e)
            res.notes = dict(e.notes)
            res.outcomes = {p.name: Outcome(Verdict.REJECTED, str(e)) for p in self.properties}
            return res, None
        except Discard as e:
            res.discarded = str(e)
            res.outcomes = {p.name: Outcome(Verdict.DISCARDED, str(e)) for p in self.properties}
            res.coverage = self.subject.coverage(example, None)
            return res, None
        with timing.stage("check"):
            res.changed = self.subject.changed(case)
        return res, case

    def _check(self, case: Any, res: ExampleResult, progress: Callable[[str], None] | None) -> None:
        reading = self.ir_readers()
        self._check_properties(case, res, progress, reading + [p for p in self.properties if p not in reading])
        self._finish(case, res)

    def _check_properties(self, case: Any, res: ExampleResult, progress: Callable[[str], None] | None,
                          properties: list[Property]) -> None:
        for p in properties:
            if progress:
                progress(p.name)
            ran = len(case.executed())
            with timing.stage("check"):
                outcome = check_property(p, case)
            self.checked.add(p.name)
            if len(case.executed()) > ran:
                self.compiling.add(p.name)
            if outcome.verdict == Verdict.DRIFT and self.options.drift_findings:
                outcome = Outcome(Verdict.VIOLATION, f"drift (a finding with --drift-findings): {outcome.message}")
            res.outcomes[p.name] = outcome

    def _finish(self, case: Any, res: ExampleResult) -> None:
        """After every property: outcomes in the properties' order, notes, coverage, scripts."""
        res.outcomes = {p.name: res.outcomes[p.name] for p in self.properties if p.name in res.outcomes}
        res.notes = dict(getattr(case, "notes", {}))
        # What the properties ran is compiled ahead, for the whole batch, from then on.
        self.run_keys.update(case.executed())
        res.coverage = self.subject.coverage(case.example, case)
        if res.failed:
            with timing.stage("report"):
                res.input_script = case.input_script()
                res.output_script = case.output_script()


def check_property(p: Property, case: Any) -> Outcome:
    try:
        p.func(case)
    except Drift as e:
        return Outcome(Verdict.DRIFT, str(e))
    except Unknown as e:
        return Outcome(Verdict.UNKNOWN, str(e))
    except Discard as e:
        return Outcome(Verdict.DISCARDED, str(e))
    except Violation as e:
        verdict = Verdict(getattr(e, "kind", "violation"))
        if p.name.endswith("does_not_raise") and case.raised is not None:
            verdict = Verdict.RAISED
        return Outcome(verdict, str(e))
    except Exception as e:  # noqa: BLE001 - checking the pass output failed: a finding, with where
        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"{os.path.basename(f.filename)}:{f.lineno}" for f in reversed(tb)
                      if "passcheck" in f.filename or "properties" in f.filename), "")
        last = error_line(e)
        return Outcome(Verdict.RAISED, f"checking raised {type(e).__name__} ({where}): {last}")
    return Outcome(Verdict.HELD)
