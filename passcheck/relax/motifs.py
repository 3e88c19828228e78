"""Motifs: a few ops drawn together in the shape a pass rewrites (``x @ permute_dims(w)`` for
FuseTransposeMatmul, matmuls sharing their left operand for CombineParallelMatmul, ...), read from
each pass's pattern and TVM's tests of it. A ``GraphBias`` names the motifs its pass needs
(``motifs``); the graph strategy draws one in place of a single op with that chance. Each motif
appends ordinary nodes (``add(op, Drawn)``), so the graph keeps its float64 reference and shrinks
as any other."""

from __future__ import annotations

import math
from collections.abc import Callable

from hypothesis import strategies as st

from passcheck.core.registry import Registry
from passcheck.relax.ops.base import SAFE_MAGNITUDE, DrawContext, Drawn, ValueInfo, interval_mul, op_registry

Add = Callable[[str, Drawn], ValueInfo]  # appends a node, returns its value
Motif = Callable[[DrawContext, Add], bool]  # draws one motif; False: nothing fitted

MOTIFS: Registry[Motif] = Registry("graph motif", hint="passcheck/relax/motifs.py declares them")


def register_motif(name: str, motif: Motif) -> Motif:
    return MOTIFS.add(name, motif)


def _float_value(ctx: DrawContext, ranks: tuple[int, ...]) -> ValueInfo | None:
    if ctx.dtype not in SAFE_MAGNITUDE:
        return None
    return ctx.pick(lambda v: v.static and v.rank in ranks and 0 not in v.shape and v.bound <= 100)


def _matmul(ctx: DrawContext, add: Add, x: ValueInfo, w: ValueInfo) -> ValueInfo | None:
    k = int(x.shape[-1])
    p_lo, p_hi = interval_mul((x.lo, x.hi), (w.lo, w.hi))
    lo, hi = k * p_lo, k * p_hi
    if max(abs(lo), abs(hi)) > ctx.limit:
        return None
    shape = (*x.shape[:-1], w.shape[-1]) if w.rank == 2 else x.shape[:-1]
    return add("matmul", Drawn((x.vid, w.vid), {}, shape, lo, hi))


def _fresh(ctx: DrawContext, shape: tuple[int, ...], const: bool | None = None, lo: float = -1.0,
           hi: float = 1.0) -> ValueInfo:
    return ctx.info(ctx.fresh(shape, lo, hi, const=const))


def _parallel_matmuls(ctx: DrawContext, add: Add) -> bool:
    """``x @ w1``, ``x @ w2`` (, ``x @ w3``), each maybe with a bias add and an activation (CombineParallelMatmul)."""
    x = _float_value(ctx, (2, 3))
    if x is None:
        return False
    k = int(x.shape[-1])
    with_bias, act = ctx.draw(st.booleans()), ctx.draw(st.sampled_from((None, "relu", "silu")))
    for _ in range(ctx.draw(st.integers(2, 3))):
        out = _matmul(ctx, add, x, _fresh(ctx, (k, ctx.small_dim(1, 8))))
        if out is None:
            return False
        if with_bias:
            b = _fresh(ctx, (int(out.shape[-1]),))
            out = add("add", Drawn((out.vid, b.vid), {}, out.shape, out.lo - 1.0, out.hi + 1.0))
        if act is not None:
            lo, hi = (max(out.lo, 0.0), max(out.hi, 0.0)) if act == "relu" else (-0.3, max(out.hi, 0.0))
            out = add(act, Drawn((out.vid,), {}, out.shape, lo, hi))
    return True


def _matmul_chain(ctx: DrawContext, add: Add) -> bool:
    """``(x @ b) @ c`` with ``b`` and ``c`` constants: a product of compile-time values (AdjustMatmulOrder)."""
    x = _float_value(ctx, (1, 2, 3))
    if x is None:
        return False
    k, n, p = int(x.shape[-1]), ctx.small_dim(1, 16), ctx.small_dim(1, 4)
    t = _matmul(ctx, add, x, _fresh(ctx, (k, n), const=True))
    return t is not None and _matmul(ctx, add, t, _fresh(ctx, (n, p), const=True)) is not None


def _transposed_matmul(ctx: DrawContext, add: Add) -> bool:
    """``x @ permute_dims(w)`` (FuseTransposeMatmul)."""
    x = _float_value(ctx, (2, 3))
    if x is None:
        return False
    w = _fresh(ctx, (ctx.small_dim(1, 8), int(x.shape[-1])))
    axes = None if ctx.draw(st.booleans()) else [1, 0]
    t = add("permute_dims", Drawn((w.vid,), {"axes": axes}, (w.shape[1], w.shape[0]), w.lo, w.hi))
    return _matmul(ctx, add, x, t) is not None


def _take_matmul(ctx: DrawContext, add: Add) -> bool:
    """``x @ take(w, indices, axis=1)`` (ReorderTakeAfterMatmul)."""
    x = _float_value(ctx, (2, 3))
    if x is None:
        return False
    table = ctx.small_dim(2, 11)
    w = _fresh(ctx, (int(x.shape[-1]), table))
    idx = ctx.fresh((ctx.small_dim(1, 8),), 0, table - 1, dtype="int64")
    n = int(ctx.info(idx).shape[0])
    t = add("take", Drawn((w.vid, idx), {"axis": 1, "mode": "fast"}, (w.shape[0], n), w.lo, w.hi))
    return _matmul(ctx, add, x, t) is not None


def _matmul_of_sum(ctx: DrawContext, add: Add) -> bool:
    """``x @ (a + b)`` with ``a``, ``b`` parameters (ExpandMatmulOfSum)."""
    x = _float_value(ctx, (2, 3))
    if x is None:
        return False
    shape = (int(x.shape[-1]), ctx.small_dim(1, 8))
    a, b = _fresh(ctx, shape, const=False), _fresh(ctx, shape, const=False)
    s = add("add", Drawn((a.vid, b.vid), {}, shape, a.lo + b.lo, a.hi + b.hi))
    return _matmul(ctx, add, x, s) is not None


def _permuted_concat(ctx: DrawContext, add: Add) -> bool:
    """``concat([permute_dims(a, p), permute_dims(b, p)])`` (ReorderPermuteDimsAfterConcat)."""
    a = _float_value(ctx, (2, 3, 4))
    if a is None:
        return False
    b = _fresh(ctx, tuple(int(d) for d in a.shape), lo=a.lo, hi=a.hi)
    perm = list(ctx.draw(st.permutations(range(a.rank))))
    parts = [add("permute_dims", Drawn((v.vid,), {"axes": perm}, tuple(v.shape[i] for i in perm), v.lo, v.hi))
             for v in (a, b)]
    axis = ctx.draw(st.integers(0, a.rank - 1))
    shape = tuple(2 * d if i == axis else d for i, d in enumerate(parts[0].shape))
    add("concat", Drawn(tuple(p.vid for p in parts), {"axis": axis}, shape, a.lo, a.hi))
    return True


def _conv_batch_norm(ctx: DrawContext, add: Add) -> bool:
    """``batch_norm(conv2d(x, w), ...)`` over the channels, weights and statistics constant
    (FoldBatchnormToConv2D)."""
    x = _float_value(ctx, (4,))
    if x is None:
        return False
    drawn = op_registry()["conv2d"].draw(ctx, x)
    if drawn is None:
        return False
    conv = add("conv2d", drawn)
    c = int(conv.shape[1])
    gamma, beta = _fresh(ctx, (c,), True, 0.5, 1.5), _fresh(ctx, (c,), True)
    mean, var = _fresh(ctx, (c,), True, conv.lo, conv.hi), _fresh(ctx, (c,), True, 0.5, 2.0)
    scale = 1.5 / math.sqrt(0.5)
    lo, hi = (conv.lo - conv.hi) * scale - 1.0, (conv.hi - conv.lo) * scale + 1.0
    if max(abs(lo), abs(hi)) > ctx.limit:
        return False
    add("batch_norm", Drawn((conv.vid, gamma.vid, beta.vid, mean.vid, var.vid), {"axis": 1, "epsilon": 1e-5},
                            conv.shape, lo, hi))
    return True


def _reshape_chain(ctx: DrawContext, add: Add) -> bool:
    """A reshape of a reshape, or a reshape to the shape a value already has (RemoveRedundantReshape)."""
    x = _float_value(ctx, (1, 2, 3, 4))
    if x is None:
        return False
    shape = tuple(int(d) for d in x.shape)
    if ctx.draw(st.booleans()):
        flat = (math.prod(shape),)
        x = add("reshape", Drawn((x.vid,), {"shape": list(flat)}, flat, x.lo, x.hi))
    add("reshape", Drawn((x.vid,), {"shape": list(shape)}, shape, x.lo, x.hi))
    return True


def _layout_round_trip(ctx: DrawContext, add: Add) -> bool:
    """A layout_transform and the one undoing it (OptimizeLayoutTransform)."""
    x = _float_value(ctx, (2, 3, 4))
    if x is None:
        return False
    perm = list(ctx.draw(st.permutations(range(x.rank))))
    inverse = [perm.index(i) for i in range(x.rank)]
    t = add("layout_transform", Drawn((x.vid,), {"perm": perm, "factor": 0, "pad_value": None},
                                      tuple(x.shape[a] for a in perm), x.lo, x.hi))
    add("layout_transform", Drawn((t.vid,), {"perm": inverse, "factor": 0, "pad_value": None}, x.shape, x.lo, x.hi))
    return True


def _fan_out(ctx: DrawContext, add: Add) -> bool:
    """``a = f(x); b = g(x); c = h(a)``: not in depth-first order (TopologicalSort)."""
    ops = op_registry()
    x = ctx.pick(lambda v: True)
    if x is None:
        return False
    unary = [n for n in ("negative", "abs", "relu", "tanh", "sigmoid") if ops[n].accepts(x.dtype)]
    if not unary:
        return False
    made: list[ValueInfo] = []
    for source in (x, x, None):
        first = source or made[0]
        name = ctx.draw(st.sampled_from(unary))
        drawn = ops[name].draw(ctx, first)
        if drawn is None:
            return False
        made.append(add(name, drawn))
    return True


for _name, _motif in (("fan_out", _fan_out), ("parallel_matmuls", _parallel_matmuls), ("matmul_chain", _matmul_chain),
                      ("transposed_matmul", _transposed_matmul), ("take_matmul", _take_matmul),
                      ("matmul_of_sum", _matmul_of_sum), ("permuted_concat", _permuted_concat),
                      ("conv_batch_norm", _conv_batch_norm), ("reshape_chain", _reshape_chain),
                      ("layout_round_trip", _layout_round_trip)):
    register_motif(_name, _motif)
