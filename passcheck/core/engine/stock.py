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

from dataclasses import replace
from typing import Any

from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import Plan
from passcheck.core.known import recognise_example
from passcheck.core.outcome import ExampleResult

IDENTITY = "passcheck.core.engine.stock:identity_pass"


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

    def result(self, example: Any) -> ExampleResult:
        cached = self._results.get(id(example))
        if cached is not None and cached[0] is example:
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
        res = self.result(example)
        outcome = res.outcomes.get(prop)
        if outcome is None or not outcome.verdict.finding:
            return False
        same = recognise_example(self.plan.subject, prop, example, outcome.message, res.input_script,
                                 res.output_script)
        return same is not None and same.name == bug
