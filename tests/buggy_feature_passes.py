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
* ``fold_constant_saturates_narrow_ints``  FoldConstant that folds add/subtract/multiply of two
  int8, uint8 or int16 constants with saturating arithmetic (TVM's integers wrap): only a narrow
  integer dtype's edge values reach it (every in-range result is right).
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


# -- FoldConstant: one wrong rule in a folder that folds bottom-up --------------------------------

def _fold_one(call: Any) -> Any:
    """``call`` (every argument a constant) folded by TVM's FoldConstant, or ``call`` itself."""
    bb = relax.BlockBuilder()
    with bb.function("main", []):
        with bb.dataflow():
            out = bb.emit_output(call)
        bb.emit_func_output(out)
    body = relax.transform.FoldConstant()(bb.get())["main"].body
    folded = body.body if not body.blocks or not body.blocks[0].bindings else body.blocks[0].bindings[0].value
    return folded if isinstance(folded, tvm.ir.GenericConst) else call


def _folder(name: str, wrong: Any) -> tvm.transform.Pass:
    """A constant folder that folds each call of constants as it meets it, bottom-up (so a rule
    sees the constants earlier folds made, as a folder's rules do), by ``wrong(call)`` where that
    gives a result and by TVM's FoldConstant otherwise; FoldConstant then folds what is left."""

    @relax.expr_functor.mutator
    class Folder(relax.PyExprMutator):
        def visit_var_(self, var: Any) -> Any:
            value = self.lookup_binding(var)
            return value if isinstance(value, tvm.ir.GenericConst) else super().visit_var_(var)

        def visit_dataflow_var_(self, var: Any) -> Any:
            value = self.lookup_binding(var)
            return value if isinstance(value, tvm.ir.GenericConst) else super().visit_dataflow_var_(var)

        def visit_call_(self, call: Any) -> Any:
            call = super().visit_call_(call)
            # (scalar attributes such as clip's bounds are arguments, IntImm/FloatImm)
            if not call.args or not isinstance(call.args[0], tvm.ir.GenericConst) or not all(
                    isinstance(a, (tvm.ir.GenericConst, tvm.tirx.IntImm, tvm.tirx.FloatImm)) for a in call.args):
                return call
            folded = wrong(call)
            return folded if folded is not None else _fold_one(call)

    return _module_pass(name, Folder, lambda mod: relax.transform.FoldConstant()(mod))


_NARROW = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}
_ARITH = {"relax.add": np.add, "relax.subtract": np.subtract, "relax.multiply": np.multiply}


def _saturating(call: Any) -> Any:
    f = _ARITH.get(_op_name(call))
    if f is None or len(call.args) != 2:
        return None
    a, b = (x.value.numpy() for x in call.args)
    dtype = str(a.dtype)
    if dtype not in _NARROW or str(b.dtype) != dtype:
        return None
    wide = f(a.astype(np.int64), b.astype(np.int64))
    return relax.const(np.clip(wide, *_NARROW[dtype]).astype(dtype), dtype)  # BUG: TVM's integers wrap


def fold_constant_saturates_narrow_ints() -> tvm.transform.Pass:
    return _folder("FoldConstantSaturates", _saturating)


def _clip_bound_zero_unbounded(call: Any) -> Any:
    if _op_name(call) != "relax.clip":
        return None
    x = call.args[0].value.numpy()
    lo, hi = (a.value for a in call.args[1:])
    # BUG: a bound is tested for truth, as an optional one is: a bound of 0 reads as no bound
    clipped = np.clip(x, lo if lo else -np.inf, hi if hi else np.inf)
    return relax.const(clipped.astype(x.dtype), str(x.dtype))


def fold_constant_clip_zero_bound() -> tvm.transform.Pass:
    return _folder("FoldConstantClipZeroBound", _clip_bound_zero_unbounded)


# -- FuseOps: a group returning a tuple, read by field ------------------------------------------

@relax.expr_functor.mutator
class _FirstField(relax.PyExprMutator):
    def __init__(self, mod: tvm.IRModule) -> None:
        super().__init__(mod)
        self.mod = mod

    def visit_tuple_getitem_(self, op: Any) -> Any:
        op = super().visit_tuple_getitem_(op)
        tup = self.lookup_binding(op.tuple_value) if isinstance(op.tuple_value, relax.Var) else None
        if not (isinstance(tup, relax.Call) and isinstance(tup.op, tvm.ir.GlobalVar)
                and "Primitive" in (self.mod[tup.op].attrs or {})) or op.index == 0:
            return op
        fields = op.tuple_value.ty.fields
        if tvm_ffi.structural_equal(fields[op.index], fields[0]):
            return relax.TupleGetItem(op.tuple_value, 0)  # BUG: a later field read as the first
        return op


def fuse_ops_reads_first_field() -> tvm.transform.Pass:
    """FuseOps, after which main reads a later field of a fused group's tuple as its first where
    the two have one type (a group's outputs numbered from the wrong end)."""

    @tvm.transform.module_pass(opt_level=0, name="FuseOpsReadsFirstField")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mod = relax.transform.FuseOps()(mod)
        return _mutate_functions(mod, _FirstField(mod))

    return transform
