"""A pass author's own constant folder, checked against FoldConstant's properties:

    passcheck FoldConstant --impl examples/my_fold_constant.py:my_fold_constant

Elementwise arithmetic on constants (add, subtract, multiply, divide) is folded with numpy,
binding by binding, so chains fold in one sweep; every other constant-only call is left to
TVM's ``relax.transform.FoldConstant`` afterwards. ``--impl`` takes a ``tvm.transform.Pass``
or, as here, a zero-argument function returning one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tvm
from tvm import relax

NUMPY_FOLDS = {
    "relax.add": np.add,
    "relax.subtract": np.subtract,
    "relax.multiply": np.multiply,
    "relax.divide": np.divide,
}


@relax.expr_functor.mutator
class _ArithmeticFolder(relax.PyExprMutator):
    def _constant(self, arg: Any) -> Any:
        """``arg`` as a constant: a literal, or a variable already folded to one."""
        if isinstance(arg, tvm.ir.Constant):
            return arg
        if isinstance(arg, relax.Var):
            bound = self.lookup_binding(arg)
            if isinstance(bound, tvm.ir.Constant):
                return bound
        return None

    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        fold = NUMPY_FOLDS.get(str(getattr(call.op, "name", "")))
        if fold is None or len(call.args) != 2 or not isinstance(call.ty, relax.TensorType):
            return call
        consts = [self._constant(a) for a in call.args]
        if any(c is None for c in consts):
            return call
        lhs, rhs = (c.value.numpy() for c in consts)
        dtype = str(call.ty.dtype)
        with np.errstate(all="ignore"):  # IEEE semantics, like the compiled kernel
            value = fold(lhs, rhs).astype(dtype)
        return relax.const(value, dtype)


def my_fold_constant() -> tvm.transform.Pass:
    @tvm.transform.module_pass(opt_level=0, name="MyFoldConstant")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        folder = _ArithmeticFolder(mod)
        for gv, func in mod.functions_items():
            if isinstance(func, relax.Function):
                folder.builder_.update_func(gv, folder.visit_expr(func))
        return relax.transform.FoldConstant()(folder.builder_.get())

    return transform
