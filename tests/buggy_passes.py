"""Deliberately buggy pass implementations: passcheck must catch every one of them.

Each function returns a ``tvm.transform.Pass`` (the form ``--impl path/to/buggy_passes.py:NAME``
expects). The bugs are realistic ones, the kind a pass author could ship:

* ``fold_constant_swapped``   FoldConstant that folds a constant-only ``subtract``/``divide``
  with its operands swapped, then runs the real FoldConstant.
* ``fuse_ops_drops_channel``  the real FuseOps, then the first fused group's output loses its
  channel 0 (last axis) -- the group gets one more elementwise op inside, so ``main`` still
  only calls fused PrimFuncs and the module stays well-formed; only the numbers are wrong.
* ``convert_layout_wrong_perm``  the real ConvertLayout, then the ``permute_dims`` back to NCHW
  after a converted conv2d swaps H and W (for NHWC ``[0, 3, 2, 1]`` instead of ``[0, 3, 1, 2]``;
  likewise for every desired data layout that is an axis order): invisible in the types of square
  feature maps.
* ``decompose_eps_outside_sqrt``  DecomposeOpsForInference that computes batch_norm as
  ``(x - mean) / (sqrt(var) + eps) * gamma + beta``.
* ``fold_constant_raises_on_rank_broadcast``  FoldConstant that raises on a binary op whose
  operands have different ranks.
* ``fold_constant_segfaults_on_exp``  FoldConstant that dereferences NULL when the module has an
  ``exp`` or a ``tanh``.
* ``fold_constant_poisoned_by_tanh``  FoldConstant that raises on a ``tanh``, then on every module
  the same process sees after it.
* ``fold_constant_fails_after_tanh``  FoldConstant that raises on the module after one with a
  ``tanh`` in the same process (and holds on the example alone).
* ``fold_constant_hangs_on_multiply``  FoldConstant that never returns when the module has a
  ``sigmoid``.
* ``fold_constant_hangs_one_in_ten``  FoldConstant that spins forever on one input in ten.
"""

from __future__ import annotations

import ctypes
import os
import time
from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import relax, te
from tvm.relax import op as R


def _op_name(call: Any) -> str:
    return str(getattr(call.op, "name", ""))


def _calls(mod: tvm.IRModule) -> list[Any]:
    found: list[Any] = []
    for _, func in mod.functions_items():
        if isinstance(func, relax.Function):
            tvm_ffi.structural_walk(func, [(relax.Call, found.append)])
    return found


def _has_op(mod: tvm.IRModule, name: str) -> bool:
    return any(_op_name(c) == name for c in _calls(mod))


def _mutate_functions(mod: tvm.IRModule, mutator: Any) -> tvm.IRModule:
    """Run a ``PyExprMutator`` over every Relax function of ``mod``."""
    for gv, func in mod.functions_items():
        if isinstance(func, relax.Function):
            mutator.builder_.update_func(gv, mutator.visit_expr(func))
    return mutator.builder_.get()


# -- FoldConstant: operands swapped -------------------------------------------------------------

def _evaluate(call: Any) -> Any:
    """Evaluate a call on constant arguments with TVM (the real FoldConstant on a one-op module),
    or None where it does not fold."""
    folded = _feature_passes()._fold_one(call)
    return None if folded is call else folded


@relax.expr_functor.mutator
class _SwappedFolder(relax.PyExprMutator):
    """Folds constant-only calls one binding at a time; ``subtract`` and ``divide`` take a numpy
    fast path -- which computes ``b - a`` and ``b / a``."""

    def _constant(self, arg: Any) -> Any:
        if isinstance(arg, tvm.ir.Constant):
            return arg
        if isinstance(arg, relax.Var):
            bound = self.lookup_binding(arg)
            if isinstance(bound, tvm.ir.Constant):
                return bound
        return None

    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        name = _op_name(call)
        if not name.startswith("relax.") or not call.args or not isinstance(call.ty, relax.TensorType):
            return call
        consts = [self._constant(a) for a in call.args]
        if any(c is None for c in consts):
            return call
        if name in ("relax.subtract", "relax.divide") and len(consts) == 2:
            a, b = (c.value.numpy() for c in consts)
            with np.errstate(all="ignore"):
                value = b - a if name == "relax.subtract" else b / a  # BUG: operands swapped
            dtype = str(call.ty.dtype)
            return relax.const(np.asarray(value).astype(dtype), dtype)
        folded = _evaluate(relax.Call(call.op, consts, call.attrs))
        return call if folded is None else folded


def fold_constant_swapped() -> tvm.transform.Pass:
    @tvm.transform.module_pass(opt_level=0, name="FoldConstantSwapped")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mod = _mutate_functions(mod, _SwappedFolder(mod))
        return relax.transform.FoldConstant()(mod)

    return transform


# -- FuseOps: a channel dropped in one fused group ----------------------------------------------

def _drop_channel_kernel(ty: Any) -> tvm.tirx.PrimFunc | None:
    """An elementwise kernel that copies a ``ty`` tensor but zeroes index 0 of its last axis
    (None when the last axis is not static with at least 2 channels)."""
    if not isinstance(ty, relax.TensorType) or ty.shape is None or ty.ndim < 1:
        return None
    last = ty.shape.values[-1]
    if not isinstance(last, tvm.tirx.IntImm) or int(last) < 2:
        return None
    dtype = str(ty.dtype)
    x = te.placeholder(list(ty.shape.values), dtype, name="x")
    zero = tvm.tirx.const(0, dtype)
    y = te.compute(x.shape, lambda *i: tvm.tirx.if_then_else(i[-1] == 0, zero, x(*i)),  # BUG
                   name="T_drop_channel")
    return te.create_prim_func([x, y]).without_attr("global_symbol")


def fuse_ops_drops_channel() -> tvm.transform.Pass:
    @tvm.transform.module_pass(opt_level=0, name="FuseOpsDropsChannel")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mod = relax.transform.FuseOps()(mod)
        groups = sorted((gv for gv, f in mod.functions_items()
                         if isinstance(f, relax.Function) and f.attrs and "Primitive" in f.attrs),
                        key=lambda gv: gv.name_hint)
        for gv in groups:
            func = mod[gv]
            body = func.body
            kernel = _drop_channel_kernel(body.body.ty)
            if kernel is None or len(body.blocks) != 1:
                continue
            # One more elementwise kernel at the end of the group: main still only calls fused
            # functions, FuseTIR merges it into the fused PrimFunc, the module stays well-formed.
            bb = relax.BlockBuilder(mod)
            kernel_gv = bb.add_func(kernel, "drop_channel")
            out = body.body
            dropped = relax.Var("dropped", out.ty)
            block = relax.DataflowBlock(list(body.blocks[0].bindings)
                                        + [relax.VarBinding(dropped, relax.call_tir(kernel_gv, [out], out.ty))])
            mod = bb.get()
            mod.update_func(gv, relax.Function(func.params, relax.SeqExpr([block], dropped), func.ret_ty,
                                               func.is_pure, func.attrs))
            return relax.transform.AnnotateTIROpPattern()(mod)  # one group only: subtle
        return mod

    return transform


# -- AlterOpLayout: the permutation back to NCHW is wrong ---------------------------------------

@relax.expr_functor.mutator
class _WrongPermutation(relax.PyExprMutator):
    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        if _op_name(call) != "relax.permute_dims" or call.attrs.axes is None or len(call.attrs.axes) != 4:
            return call
        # the permutation ConvertLayout puts after a converted conv2d, back to NCHW (for NHWC
        # [0, 3, 1, 2]; every desired data layout that is a pure axis order gets one)
        producer = self.lookup_binding(call.args[0]) if isinstance(call.args[0], relax.Var) else None
        if producer is None or _op_name(producer) != "relax.nn.conv2d":
            return call
        n, c, h, w = (int(a) for a in call.attrs.axes)
        return R.permute_dims(call.args[0], [n, c, w, h])  # BUG: H and W transposed


def convert_layout_wrong_perm(desired_layouts: Any = None) -> tvm.transform.Pass:
    """``desired_layouts`` as ConvertLayout takes it, e.g. ``{"relax.nn.conv2d": ["NHWC", "OHWI"]}``
    (a sequence of (op, layouts) pairs is accepted too)."""
    layouts = {str(k): [str(x) for x in v]
               for k, v in dict(desired_layouts or {"relax.nn.conv2d": ["NHWC", "OHWI"]}).items()}

    @tvm.transform.module_pass(opt_level=0, name="ConvertLayoutWrongPermutation")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mod = relax.transform.ConvertLayout(layouts)(mod)
        return _mutate_functions(mod, _WrongPermutation(mod))

    return transform


# -- SimplifyInference: epsilon outside the square root -----------------------------------------

@relax.expr_functor.mutator
class _EpsOutsideSqrt(relax.PyExprMutator):
    def visit_call_(self, call: Any) -> Any:
        call = super().visit_call_(call)
        if _op_name(call) != "relax.nn.batch_norm" or bool(call.attrs.training):
            return call
        x, gamma, beta, mean, var = call.args
        rank = x.ty.ndim
        axis = int(call.attrs.axis) % rank
        others = [i for i in range(rank) if i != axis]

        def chan(t: Any) -> Any:
            return R.expand_dims(t, others) if others else t

        eps = relax.const(float(call.attrs.epsilon), str(x.ty.dtype))
        # BUG: the epsilon belongs under the square root: (x - mean) / sqrt(var + eps)
        y = R.divide(R.subtract(x, chan(mean)), R.add(R.sqrt(chan(var)), eps))
        if call.attrs.scale:
            y = R.multiply(y, chan(gamma))
        if call.attrs.center:
            y = R.add(y, chan(beta))
        return relax.Tuple([y, mean, var])


def decompose_eps_outside_sqrt() -> tvm.transform.Pass:
    @tvm.transform.module_pass(opt_level=0, name="DecomposeEpsOutsideSqrt")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mod = _mutate_functions(mod, _EpsOutsideSqrt(mod))
        return relax.transform.DecomposeOpsForInference()(mod)

    return transform


# -- crash / hang / raise ------------------------------------------------------------------------

def fold_constant_raises_on_rank_broadcast() -> tvm.transform.Pass:
    """Gives up (raises) on a broadcast between operands of different ranks."""

    @tvm.transform.module_pass(opt_level=0, name="FoldConstantRaises")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        for call in _calls(mod):
            if len(call.args) == 2 and all(isinstance(a.ty, relax.TensorType) for a in call.args):
                ranks = [a.ty.ndim for a in call.args]
                if ranks[0] != ranks[1]:
                    raise NotImplementedError(f"{_op_name(call)}: broadcasting rank {ranks[0]} "
                                              f"against rank {ranks[1]} is not supported")
        return relax.transform.FoldConstant()(mod)

    return transform


def fold_constant_segfaults_on_exp() -> tvm.transform.Pass:
    """Dereferences NULL (SIGSEGV) when the module has an ``exp`` or a ``tanh``."""

    @tvm.transform.module_pass(opt_level=0, name="FoldConstantSegfaults")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        if _has_op(mod, "relax.exp") or _has_op(mod, "relax.tanh"):
            ctypes.string_at(0)  # reads address 0: SIGSEGV
        return relax.transform.FoldConstant()(mod)

    return transform


_POISONED: list[bool] = []  # (the worker process's state: a tanh was folded in it)


def fold_constant_poisoned_by_tanh() -> tvm.transform.Pass:
    """Raises on a module with a ``tanh`` -- and, once it has, on every module after it in the
    same process: what a kernel that wrote past its buffer leaves for the examples after it."""

    @tvm.transform.module_pass(opt_level=0, name="FoldConstantPoisoned")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        if _has_op(mod, "relax.tanh"):
            _POISONED.append(True)
        if _POISONED:
            raise RuntimeError("FoldConstantPoisoned: the process was poisoned by a tanh")
        return relax.transform.FoldConstant()(mod)

    return transform


_AFTER_TANH: set[int] = set()  # (the worker process's state: the last module with a tanh, in and out)


def fold_constant_fails_after_tanh() -> tvm.transform.Pass:
    """Folds a module with a ``tanh`` correctly, and raises on the next other module its process
    sees: the example after it (in its batch, in its worker) fails, and holds when checked alone."""

    @tvm.transform.module_pass(opt_level=0, name="FoldConstantAfterTanh")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        key = tvm_ffi.structural_hash(mod)
        if _AFTER_TANH and key not in _AFTER_TANH and not _has_op(mod, "relax.tanh"):
            _AFTER_TANH.clear()
            raise RuntimeError("FoldConstantAfterTanh: the module before this one had a tanh")
        out = relax.transform.FoldConstant()(mod)
        if _has_op(mod, "relax.tanh"):
            _AFTER_TANH.clear()
            _AFTER_TANH.update({key, tvm_ffi.structural_hash(out)})  # (the same example's modules are not others)
        return out

    return transform


def _spin() -> None:
    """A busy hang, as a pass stuck in a loop: it never returns and never sleeps."""
    while True:
        pass


def fold_constant_hangs_one_in_ten() -> tvm.transform.Pass:
    """Spins forever on about one input module in ten (those whose structural hash ends in 0)."""

    @tvm.transform.module_pass(opt_level=0, name="FoldConstantHangsOneInTen")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        if tvm_ffi.structural_hash(mod) % 10 == 0:
            _spin()
        return relax.transform.FoldConstant()(mod)

    return transform


def fold_constant_hangs_marked() -> tvm.transform.Pass:
    """Spins forever on every module, after writing its process id to the file named by
    PASSCHECK_HANG_MARK (the test that kills the runner finds the hanging worker by it)."""

    @tvm.transform.module_pass(opt_level=0, name="FoldConstantHangsMarked")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mark = os.environ.get("PASSCHECK_HANG_MARK")
        if mark:
            with open(mark, "w") as f:
                f.write(str(os.getpid()))
        _spin()
        return mod

    return transform


def fold_constant_hangs_on_multiply() -> tvm.transform.Pass:
    """Never returns when the module has a ``multiply``."""

    @tvm.transform.module_pass(opt_level=0, name="FoldConstantHangs")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        if _has_op(mod, "relax.multiply"):
            while True:
                time.sleep(1.0)
        return relax.transform.FoldConstant()(mod)

    return transform


# -- ToMixedPrecision: a rescaling constant off by 1.5% -----------------------------------------

def to_mixed_precision_scale_off() -> tvm.transform.Pass:
    """ToMixedPrecision, then main's float32 output multiplied by 1 + 2^-6: an error a few
    times float16's own, which the bound derived for float16 must still see."""
    @tvm.transform.module_pass(opt_level=0, name="ToMixedPrecisionScaleOff")
    def transform(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        mod = relax.transform.ToMixedPrecision()(mod)
        gv = mod.get_global_var("main")
        func = mod[gv]
        out = func.body.body
        if not isinstance(out.ty, relax.TensorType) or str(out.ty.dtype) != "float32":
            return mod
        bb = relax.BlockBuilder()
        scaled_call = bb.normalize(R.multiply(out, relax.const(1.0 + 2.0**-6, "float32")))  # BUG
        scaled = relax.Var("scaled", scaled_call.ty)
        block = relax.BindingBlock([relax.VarBinding(scaled, scaled_call)])
        body = relax.SeqExpr(list(func.body.blocks) + [block], scaled)
        mod.update_func(gv, relax.Function(func.params, body, func.ret_ty, func.is_pure, func.attrs))
        return mod

    return transform


# -- the planted bugs that one drawn feature reaches (issue 22), kept in a file of their own ------

def _feature_passes() -> Any:
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().with_name("buggy_feature_passes.py")
    name = "passcheck_buggy_feature_passes"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


decompose_group_norm_wrong_eps = _feature_passes().decompose_group_norm_wrong_eps
fuse_transpose_matmul_square_weight = _feature_passes().fuse_transpose_matmul_square_weight
fold_constant_saturates_narrow_ints = _feature_passes().fold_constant_saturates_narrow_ints
fold_constant_clip_zero_bound = _feature_passes().fold_constant_clip_zero_bound
fuse_ops_reads_first_field = _feature_passes().fuse_ops_reads_first_field
