"""Planted pass bugs that only one drawn feature reaches (issue 22): each breaks a pass only on
one op's attribute form, one dtype's edge values, one structural coincidence, ..., so that
catching it within the default example count shows the generator draws that feature often
enough. tests/buggy_passes.py re-exports them (``--impl tests/buggy_passes.py:NAME``).

* ``decompose_group_norm_wrong_eps``  DecomposeOpsForInference that rewrites every group_norm's
  epsilon to 1.0: wrong numbers on the op a kept TVM bug (the one-pass variance of group_norm)
  touches too; under ``--impl`` it must be a new finding, not that bug.
* ``fuse_transpose_matmul_square_weight``  FuseTransposeMatmul that first drops the transpose of
  a weight whose last two extents are equal (it matched on shapes: the transpose "changes
  nothing"): only coincident extents reach it.
"""

from __future__ import annotations

from typing import Any

import tvm
from tvm import relax
from tvm.relax import op as R


def _op_name(call: Any) -> str:
    return str(getattr(call.op, "name", ""))


def _mutate_functions(mod: tvm.IRModule, mutator: Any) -> tvm.IRModule:
    for gv, func in mod.functions_items():
        if isinstance(func, relax.Function):
            mutator.builder_.update_func(gv, mutator.visit_expr(func))
    return mutator.builder_.get()


def _module_pass(name: str, before: Any, after: Any = None) -> tvm.transform.Pass:
    """A pass that runs ``before`` (a mutator class) over every Relax function, then ``after``."""

    @tvm.transform.module_pass(opt_level=0, name=name)
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mod = _mutate_functions(mod, before(mod))
        return after(mod) if after is not None else mod

    return transform


# -- SimplifyInference: group_norm's epsilon --------------------------------------------------

@relax.expr_functor.mutator
class _GroupNormEps(relax.PyExprMutator):
    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        if _op_name(call) != "relax.nn.group_norm":
            return call
        a = call.attrs
        return R.nn.group_norm(*call.args, num_groups=int(a.num_groups), channel_axis=int(a.channel_axis),
                               axes=[int(x) for x in a.axes], epsilon=1.0,  # BUG: the op's epsilon dropped
                               center=bool(a.center), scale=bool(a.scale))


def decompose_group_norm_wrong_eps() -> tvm.transform.Pass:
    return _module_pass("DecomposeGroupNormWrongEps", _GroupNormEps,
                        lambda mod: relax.transform.DecomposeOpsForInference()(mod))


# -- FuseTransposeMatmul: a square weight's transpose taken for a no-op -------------------------

def _square(ty: Any) -> bool:
    shape = getattr(ty, "shape", None)
    dims = [] if shape is None or not hasattr(shape, "values") else list(shape.values)
    return len(dims) >= 2 and all(isinstance(d, tvm.tirx.IntImm) for d in dims[-2:]) \
        and int(dims[-1]) == int(dims[-2]) > 1


@relax.expr_functor.mutator
class _SquareTranspose(relax.PyExprMutator):
    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        if _op_name(call) != "relax.matmul":
            return call
        w = call.args[1]
        producer = self.lookup_binding(w) if isinstance(w, relax.Var) else w
        if isinstance(producer, relax.Call) and _op_name(producer) == "relax.permute_dims" \
                and _square(producer.args[0].ty):
            return R.matmul(call.args[0], producer.args[0], out_dtype=call.attrs.out_dtype)  # BUG
        return call


def fuse_transpose_matmul_square_weight() -> tvm.transform.Pass:
    return _module_pass("FuseTransposeMatmulSquareWeight", _SquareTranspose,
                        lambda mod: relax.transform.FuseTransposeMatmul()(mod))
