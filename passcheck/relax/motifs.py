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
from passcheck.relax.budget import op_allowed
from passcheck.relax.ops.base import SAFE_MAGNITUDE, DrawContext, Drawn, ValueInfo, interval_mul, op_registry

Add = Callable[[str, Drawn], ValueInfo]  # appends a node, returns its value
Motif = Callable[[DrawContext, Add], bool]  # draws one motif; False: nothing fitted

MOTIFS: Registry[Motif] = Registry("graph motif", hint="passcheck/relax/motifs.py declares them")


def register_motif(name: str, motif: Motif) -> Motif:
    return MOTIFS.add(name, motif)


def _takes(ctx: DrawContext, name: str, dtype: str) -> bool:
    """Whether a motif may put op ``name`` on a ``dtype`` value: it takes the dtype, and a kept TVM
    bug on the op in that dtype is at its budget as for ops drawn alone (uint8 negative in
    FoldConstant's constant motif decided 80 of its 2,000 examples at seed 0)."""
    return op_registry()[name].accepts(dtype) and op_allowed(lambda: ctx.budget_roll, name, dtype)


def _float_value(ctx: DrawContext, ranks: tuple[int, ...], varying: bool = False) -> ValueInfo | None:
    """A float value of one of ``ranks`` (static, non-empty, moderate; ``varying``: computed from an
    input), or a fresh parameter."""
    if ctx.dtype not in SAFE_MAGNITUDE:
        return None
    found = ctx.pick(lambda v: v.static and v.rank in ranks and 0 not in v.shape and v.bound <= 100
                     and not (varying and v.const_only))
    if found is not None:
        return found
    shape = tuple(ctx.small_dim(1, 8) for _ in range(ctx.draw(st.sampled_from(ranks))))
    return ctx.info(ctx.fresh(shape, -1.0, 1.0, const=False))


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
    """``x @ w1``, ``x @ w2`` (, ``x @ w3``), each maybe with a bias add and an activation, the weights
    and biases parameters (CombineParallelMatmul concatenates variables, not constants)."""
    x = _float_value(ctx, (2, 3))
    if x is None:
        return False
    k = int(x.shape[-1])
    with_bias, act = ctx.draw(st.booleans()), ctx.draw(st.sampled_from((None, "relu", "silu")))
    for _ in range(ctx.draw(st.integers(2, 3))):
        out = _matmul(ctx, add, x, _fresh(ctx, (k, ctx.small_dim(1, 8)), const=False))
        if out is None:
            return False
        if with_bias:
            b = _fresh(ctx, (int(out.shape[-1]),), const=False)
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
    if not ctx.budget_open("test_fuse_transpose_matmul_shared_transpose"):
        ctx.private.add(t.vid)  # (the transpose read again: a kept TVM bug, at its budget)
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
    conv = _dense_conv(ctx, add, const_weight=True)
    if conv is None:
        return False
    c = int(conv.shape[1])
    gamma, beta = _fresh(ctx, (c,), True, 0.5, 1.5), _fresh(ctx, (c,), True)
    mean, var = _fresh(ctx, (c,), True, conv.lo, conv.hi), _fresh(ctx, (c,), True, 0.5, 2.0)
    scale = 1.5 / math.sqrt(0.5)
    lo, hi = (conv.lo - conv.hi) * scale - 1.0, (conv.hi - conv.lo) * scale + 1.0
    # the training form (the batch's statistics) the pass must leave alone; it folds it with the
    # moving ones (kept TVM bug): at its budget, where its float16 variance cannot overflow
    n = math.prod(int(d) for d in conv.shape) // c
    training = ctx.budget_open("test_fold_batchnorm_to_conv2d_training_mode") and (
        conv.dtype != "float16" or n * (conv.hi - conv.lo) ** 2 <= 65504.0)
    if training:
        lo, hi = -1.5 * math.sqrt(max(n - 1, 0)) - 1.0, 1.5 * math.sqrt(max(n - 1, 0)) + 1.0
    if max(abs(lo), abs(hi)) > ctx.limit:
        return False
    add("batch_norm_training" if training else "batch_norm",
        Drawn((conv.vid, gamma.vid, beta.vid, mean.vid, var.vid), {"axis": 1, "epsilon": 1e-5}, conv.shape, lo, hi))
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
    unary = [n for n in ("negative", "abs", "relu", "tanh", "sigmoid") if _takes(ctx, n, x.dtype)]
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


def _op(name: str, ranks: tuple[int, ...]) -> Motif:
    """One op the pass acts on, on a value of one of ``ranks`` (a fresh parameter if none fits)."""
    def motif(ctx: DrawContext, add: Add) -> bool:
        x = _float_value(ctx, ranks)
        drawn = op_registry()[name].draw(ctx, x) if x is not None else None
        if drawn is None:
            return False
        add(name, drawn)
        return True
    return motif


_ELEMENTWISE = ("add", "multiply", "subtract", "relu", "exp", "sigmoid", "tanh")
_LEADING = (*_ELEMENTWISE, "reshape", "permute_dims", "strided_slice", "sum", "mean", "max", "softmax")


def _chain(ctx: DrawContext, add: Add, leading: tuple[str, ...] = _LEADING,
           following: tuple[str, ...] = _ELEMENTWISE) -> bool:
    """An op, then one or two elementwise ops, each reading the one before: a group FuseOps fuses
    (an elementwise op after an injective or elementwise one; a reduction's output is fused into
    nothing after it)."""
    ops = op_registry()
    # (integer graphs too, with the ops that take their dtype: a float-only chain left FuseOps's
    # integer graphs nothing to fuse)
    x = ctx.pick(lambda v: v.parts is None and any(ops[n].accepts(v.dtype) for n in following))
    if x is None:
        return False
    for i in range(ctx.draw(st.integers(2, 3))):
        names = [n for n in (leading if i == 0 else following) if _takes(ctx, n, x.dtype)]
        if not names:
            return False
        name = ctx.draw(st.sampled_from(names))
        if not ops[name].symbolic and not x.static:
            return False
        drawn = ops[name].draw(ctx, x)
        if drawn is None or not ctx.fits(drawn.shape):
            return False
        x = add(name, drawn)
    return True


def _tuple_group(ctx: DrawContext, add: Add) -> bool:
    """An elementwise op feeding a split into equal sections, two or more of its parts each read by
    an elementwise op: FuseOps makes the op and the split one group returning a tuple, which main
    reads by field (of 600 FuseOps examples drawn without it, none had such a group)."""
    ops = op_registry()
    x = ctx.pick(lambda v: v.parts is None and v.static and any(int(d) >= 2 for d in v.shape)
                 and any(ops[n].accepts(v.dtype) for n in _ELEMENTWISE))
    if x is None:
        return False
    names = [n for n in _ELEMENTWISE if _takes(ctx, n, x.dtype)]
    name = ctx.draw(st.sampled_from(names))
    drawn = ops[name].draw(ctx, x)
    if drawn is None or not ctx.fits(drawn.shape):
        return False
    y = add(name, drawn)
    axes = [a for a, d in enumerate(y.shape) if isinstance(d, int) and d >= 2]
    if not axes:
        return True  # (a binary op broadcast to symbolic extents: the op stays, unsplit)
    axis = ctx.draw(st.sampled_from(axes))
    n = int(y.shape[axis])
    k = ctx.draw(st.sampled_from([k for k in range(2, min(n, 4) + 1) if n % k == 0] or [n]))
    part = tuple(n // k if i == axis else d for i, d in enumerate(y.shape))
    tup = add("split", Drawn((y.vid,), {"sections": k, "axis": axis}, (), y.lo, y.hi, parts=(part,) * k))
    picked = ctx.draw(st.lists(st.integers(0, k - 1), min_size=2, max_size=k, unique=True))
    for i in picked:
        field = add("tuple_get_item", Drawn((tup.vid,), {"index": i}, part, y.lo, y.hi, y.dtype))
        consumer = ctx.draw(st.sampled_from(names))
        drawn = ops[consumer].draw(ctx, field)
        if drawn is not None and ctx.fits(drawn.shape):
            add(consumer, drawn)
    return True


def _constant_op(ctx: DrawContext, add: Add) -> bool:
    """An elementwise op of a value computed from constants only (FoldConstant folds it): unary,
    or binary with a second operand drawn as ops draw it (a constant as often as the bias makes
    inputs constant), so operand order is folded too."""
    ops = op_registry()
    x = ctx.pick(lambda v: v.const_only and v.static)
    if x is None:
        shape = tuple(ctx.small_dim(1, 8) for _ in range(ctx.draw(st.integers(0, 3))))
        x = ctx.info(ctx.fresh(shape, -1.0, 1.0, const=True))
    names = [n for n in ("exp", "negative", "abs", "tanh", "floor", "sigmoid", "subtract", "add", "multiply")
             if _takes(ctx, n, x.dtype)]
    if not names:
        return False
    name = ctx.draw(st.sampled_from(names))
    drawn = ops[name].draw(ctx, x)
    if drawn is None:
        return False
    add(name, drawn)
    return True


def _weight_transform(ctx: DrawContext, add: Add) -> bool:
    """``x + f(w)`` with ``w`` a constant and ``f`` elementwise (``exp``, ``abs``, a product with
    another constant, ...): a computation on constants that an op on an input reads, which
    LiftTransformParams lifts once the constants are weights."""
    x = _float_value(ctx, (1, 2, 3), varying=True)
    if x is None:
        return False
    w = _fresh(ctx, tuple(int(d) for d in x.shape), const=True)
    names = [n for n in ("exp", "abs", "tanh", "sigmoid", "negative", "multiply", "add", "permute_dims")
             if _takes(ctx, n, w.dtype)]
    if not names:
        return False
    name = ctx.draw(st.sampled_from(names))
    drawn = op_registry()[name].draw(ctx, w)
    if drawn is None or tuple(drawn.shape) != tuple(x.shape) or drawn.dtype not in (None, x.dtype):
        return False
    f = add(name, drawn)
    if not ctx.budget_open("test_lift_transform_params_weights_only_output"):
        # (a later op of w or f(w) alone computes an output from weights alone, a kept TVM bug; the
        # draw then passed w as an input, and nothing was left to lift: 69% of LazyTransformParams')
        ctx.private.update((w.vid, f.vid))
    add("add", Drawn((x.vid, f.vid), {}, x.shape, x.lo + f.lo, x.hi + f.hi))
    return True


def _dense_conv(ctx: DrawContext, add: Add, const_weight: bool | None = None) -> ValueInfo | None:
    """A dense conv2d whose channels a packed layout's factor (2, 4) divides."""
    if ctx.dtype not in SAFE_MAGNITUDE:
        return None
    x = ctx.pick(lambda v: v.static and v.rank == 4 and int(v.shape[1]) % 4 == 0 and 0 not in v.shape
                 and v.bound <= 100)
    if x is None:
        shape = (ctx.small_dim(1, 2), ctx.draw(st.sampled_from((4, 8))), ctx.small_dim(2, 8), ctx.small_dim(2, 8))
        x = ctx.info(ctx.fresh(shape, -1.0, 1.0, const=False))
    c, h, w = (int(d) for d in x.shape[1:])
    out_c, k = ctx.draw(st.sampled_from((4, 8))), ctx.draw(st.integers(1, min(3, h, w)))
    pad = ctx.draw(st.integers(0, 1))
    terms = c * k * k
    p_lo, p_hi = interval_mul((x.lo, x.hi), (-1.0, 1.0))
    lo, hi = terms * min(p_lo, 0.0), terms * max(p_hi, 0.0)
    shape = (x.shape[0], out_c, h + 2 * pad - k + 1, w + 2 * pad - k + 1)
    if max(abs(lo), abs(hi)) > ctx.limit or not ctx.fits(shape):
        return None
    weight = ctx.fresh((out_c, c, k, k), -1.0, 1.0, const=const_weight)
    attrs = {"strides": (1, 1), "padding": (pad,) * 4, "dilation": (1, 1), "groups": 1}
    return add("conv2d", Drawn((x.vid, weight), attrs, shape, lo, hi))


def _conv2d(ctx: DrawContext, add: Add) -> bool:
    """A dense conv2d whose channels a packed layout's factor divides: ConvertLayout can give it any
    of the layouts drawn (a conv whose channels the factor does not divide stays as it is)."""
    return _dense_conv(ctx, add) is not None


# the ops DataflowUseInplaceCalls makes in-place (its SUPPORTED_OPS)
_INPLACE = ("add", "subtract", "multiply", "divide", "silu", "relu")


def _inplace_chain(ctx: DrawContext, add: Add) -> bool:
    """Ops DataflowUseInplaceCalls can do in place, each reading the one before (its last use)."""
    return _chain(ctx, add, _INPLACE, _INPLACE)


def _reshape_then(ctx: DrawContext, add: Add) -> bool:
    """A reshape (expand_dims, squeeze, flatten) read by an elementwise op: a reshape inside the
    dataflow block, not one of its outputs (what RewriteDataflowReshape rewrites)."""
    return _chain(ctx, add, ("reshape", "expand_dims", "squeeze", "flatten"), _ELEMENTWISE)


for _name, _motif in (("reshape_then", _reshape_then), ("inplace_chain", _inplace_chain), ("constant_op", _constant_op), ("weight_transform", _weight_transform), ("conv2d", _conv2d), ("batch_norm", _op("batch_norm", (2, 3, 4))), ("batch_norm_training", _op("batch_norm_training", (2, 3, 4))),
                      ("chain", _chain), ("tuple_group", _tuple_group), ("fan_out", _fan_out), ("parallel_matmuls", _parallel_matmuls), ("matmul_chain", _matmul_chain),
                      ("transposed_matmul", _transposed_matmul), ("take_matmul", _take_matmul),
                      ("matmul_of_sum", _matmul_of_sum), ("permuted_concat", _permuted_concat),
                      ("conv_batch_norm", _conv_batch_norm), ("reshape_chain", _reshape_chain),
                      ("layout_round_trip", _layout_round_trip)):
    register_motif(_name, _motif)
