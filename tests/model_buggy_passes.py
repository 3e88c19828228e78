"""Deliberately buggy passes for the metamorphic, sequence and seed-model checks: each must be
caught (tests/test_model_buggy_passes.py).

* ``fold_constant_drops_negation``  FoldConstant, then ``negative(x)`` rewritten to ``x``. The
  drawn graphs have no ``negative``: only mutants (``relu(-(a - b)^2)``) reach the bug.
* ``fold_constant_scales_weights``  FoldConstant, then every 4-D constant (a conv2d weight of a
  real model) multiplied by 1.001: a small numeric bug only real models' weights show.
* ``add_off_by_a_thousandth``  ``add(x, y)`` of two equal-typed operands becomes
  ``add(x, y) + 1e-3``: a step of a sequence that must be blamed by its position.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import relax
from tvm.relax import op as R


def _op_name(call: Any) -> str:
    return str(getattr(call.op, "name", ""))


def _rewrite(mod: tvm.IRModule, mutator: Any) -> tvm.IRModule:
    for gv, func in mod.functions_items():
        if isinstance(func, relax.Function):
            mutator.builder_.update_func(gv, mutator.visit_expr(func))
    return mutator.builder_.get()


@relax.expr_functor.mutator
class _DropNegation(relax.PyExprMutator):
    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        return call.args[0] if _op_name(call) == "relax.negative" else call  # BUG: -x is x


def fold_constant_drops_negation() -> tvm.transform.Pass:
    @tvm.transform.module_pass(opt_level=0, name="FoldConstantDropsNegation")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        return _rewrite(relax.transform.FoldConstant()(mod), _DropNegation(mod))

    return transform


@relax.expr_functor.mutator
class _ScaleWeights(relax.PyExprMutator):
    def visit_generic_const_(self, const: Any) -> Any:
        value = const.value.numpy()
        if value.ndim == 4 and value.dtype.kind == "f":
            return relax.const((value * 1.001).astype(value.dtype))  # BUG: weights off by 0.1%
        return const


def fold_constant_scales_weights() -> tvm.transform.Pass:
    @tvm.transform.module_pass(opt_level=0, name="FoldConstantScalesWeights")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        return _rewrite(relax.transform.FoldConstant()(mod), _ScaleWeights(mod))

    return transform


@relax.expr_functor.mutator
class _AddOffByOne(relax.PyExprMutator):
    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        if _op_name(call) == "relax.add" and len(call.args) == 2 and all(
                isinstance(a.ty, relax.TensorType) for a in call.args) and \
                tvm_ffi.structural_equal(call.args[0].ty, call.args[1].ty):
            dtype = str(call.args[0].ty.dtype)
            return R.add(call, relax.const(np.asarray(1e-3, dtype), dtype))  # BUG: add is off
        return call


def add_off_by_a_thousandth() -> tvm.transform.Pass:
    @tvm.transform.module_pass(opt_level=0, name="AddOffByAThousandth")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        return _rewrite(mod, _AddOffByOne(mod))

    return transform
