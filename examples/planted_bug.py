"""A pass with a planted bug, for the README's first steps and examples/test_strategies.py:
it rewrites ``subtract(a, b)`` into ``subtract(b, a)`` -- plausible-looking, and wrong.

    pytest --passcheck FoldConstant --passcheck-impl examples/planted_bug.py:swap_subtract
"""

from __future__ import annotations

from typing import Any

import tvm
from tvm import relax


@relax.expr_functor.mutator
class _Swap(relax.PyExprMutator):
    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        if getattr(call.op, "name", "") == "relax.subtract":
            return relax.op.subtract(call.args[1], call.args[0])
        return call


def swap_subtract() -> tvm.transform.Pass:
    """The planted bug, as a pass over every Relax function."""

    @tvm.transform.module_pass(opt_level=0, name="SwapSubtract")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mutator = _Swap(mod)
        for gv, func in mod.functions_items():
            if isinstance(func, relax.Function):
                mutator.builder_.update_func(gv, mutator.visit_expr(func))
        return relax.transform.FoldConstant()(mutator.builder_.get())

    return transform
