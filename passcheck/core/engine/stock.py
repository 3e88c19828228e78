"""Known means the stock pass fails too: with ``--impl``, a failure that looks like a kept TVM
bug (its message and IR match the registry's patterns) is that bug only if the stock pass fails
the same example the same way (the same property, recognised as the same bug).

A pass author's implementation that breaks the op a kept bug touches fails with a message and
IR much like the bug's; the patterns alone would call it known, and a run with only known
findings passes. So each such failure is checked once more, with the stock pass in a worker of
its own (started on the first failure that needs it): where the stock pass holds, or fails
otherwise, the finding is new. A user's pass with no stock counterpart (PASS given as an import
spec) is compared with doing nothing (``identity_pass``): a bug of an op or of the
preparation shows there too, one of the user's pass does not.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import Plan
from passcheck.core.known import KNOWN_BUGS, recognise_example
from passcheck.core.outcome import ExampleResult

IDENTITY = "passcheck.core.engine.stock:identity_pass"
# Runs of the stock pass after the first, for a kept bug whose values vary (``KnownBug.varies``):
# in a run of that index_tensor example, the stock pass's first run in a fresh worker held (the
# memory before the buffer was 0) and the next three all failed.
RETRIES = 3


def identity_pass() -> Any:
    """The pass that returns its module as it is: the stock counterpart of a user's own pass."""
    import tvm

    return tvm.transform.module_pass(lambda mod, ctx: mod, opt_level=0, name="Identity")


class StockPass:
    """``stock.confirms(prop, example, bug)``: does the stock pass fail ``example``'s ``prop``
    as the known bug ``bug``? Always true without ``--impl`` (the pass under test is the stock
    one). A context manager: it owns the stock worker once one is started."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.active = plan.impl is not None
        self._evaluator: Evaluator | None = None
        self._results: dict[int, tuple[Any, ExampleResult]] = {}  # id(example) -> (example, result)
        self.checked = 0  # examples run with the stock pass

    def __enter__(self) -> StockPass:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._evaluator is not None:
            self._evaluator.__exit__()
            self._evaluator = None

    def _stock_plan(self) -> Plan:
        p = self.plan
        impl = IDENTITY if p.subject.needs_impl else None
        config = replace(p.config, impl=impl, options=replace(p.config.options, impl=impl),
                         explicit_examples=())
        return Plan(config, p.subject, p.properties, impl)

    def result(self, example: Any, again: bool = False) -> ExampleResult:
        cached = self._results.get(id(example))
        if cached is not None and cached[0] is example and not again:
            return cached[1]
        if self._evaluator is None:
            self._evaluator = Evaluator(self._stock_plan()).__enter__()
        res = self._evaluator(example)
        self.checked += 1
        # one example fails several properties: the stock pass runs it once (the last few kept)
        if len(self._results) > 64:
            self._results.clear()
        self._results[id(example)] = (example, res)
        return res

    def confirms(self, prop: str, example: Any, bug: str) -> bool:
        if not self.active:
            return True
        known = KNOWN_BUGS.get(bug)
        res = self.result(example)
        if self._fails_as(prop, example, bug, res):
            return True
        if not known.varies:
            return False
        # A bug whose values vary from run to run (memory it should not read) may come out right
        # on a run, or on every run in one worker (the bytes before a buffer were 0 each time):
        # the stock pass gets RETRIES more runs, and where it holds on all of them the finding is
        # still the bug's if the stock pass's own output holds the bug's trigger (its IR pattern):
        # that program reads the same memory, right only by chance.
        for _ in range(RETRIES):
            res = self.result(example, again=True)
            if self._fails_as(prop, example, bug, res):
                return True
        ir = "\n".join((res.input_script or "", res.output_script or "",
                        self.plan.subject.describe_example(example)))
        return bool(known.ir) and re.search(known.ir, ir, re.S) is not None

    def _fails_as(self, prop: str, example: Any, bug: str, res: ExampleResult) -> bool:
        outcome = res.outcomes.get(prop)
        if outcome is None or not outcome.verdict.finding:
            return False
        same = recognise_example(self.plan.subject, prop, example, outcome.message, res.input_script,
                                 res.output_script)
        return same is not None and same.name == bug
