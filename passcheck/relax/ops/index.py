"""Indexing ops: take, gather_elements, gather_nd, scatter_elements, scatter_nd, index_tensor,
index_put, slice_scatter, reverse_sequence, one_hot.

Index operands are fresh int64 inputs (parameters or constants) drawn in the range the op
documents: negative indices only where the op says they count from the end (index_tensor's
NumPy semantics, take's "wrap"), out-of-range ones only where a mode defines them (take's
"clip"/"nan"). Scatters that replace values get indices that do not repeat along the scattered
axis: with repeats, which write wins is unspecified. Moving elements is exact; scatters that add
carry a summation bound (``gamma`` of the number of terms meeting in one element)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.bounds import gamma
from passcheck.relax.ops.drawing import draw_axis, relax_ops

INDEX = "int64"


def _idx(a: Approx) -> np.ndarray:
    return a.v.astype(np.int64)


def _static(first: ValueInfo) -> bool:
    return first.rank > 0 and first.static and all(int(d) > 0 for d in first.shape)


def _reg(name: str, draw: Any, build: Any, reference: Any, forms: tuple[str, ...] = ()) -> None:
    register_op(OpSpec(name, f"relax.{name}", "injective", draw, build, reference, tags=frozenset({"index"}),
                       forms=forms))


# -- take ------------------------------------------------------------------------------------

_TAKE_RANGE = {"fast": (0, -1), "wrap": (-2, 1), "clip": (-2, 1), "nan": (-1, 1)}  # (lo, hi - n)


def _draw_take(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not _static(first):
        return None
    axis = None if first.rank == 1 and ctx.draw(st.booleans()) else draw_axis(ctx, first.rank)
    n = int(first.shape[axis or 0])
    mode = ctx.draw(st.sampled_from(tuple(_TAKE_RANGE)))
    lo, over = _TAKE_RANGE[mode]
    ishape = tuple(ctx.small_dim(1, 5) for _ in range(ctx.draw(st.integers(0, 2))))
    idx = ctx.fresh(ishape, -n if mode == "wrap" else lo, n + over, dtype=INDEX)
    a = axis or 0
    shape = (*first.shape[:a], *ishape, *first.shape[a + 1:])
    return Drawn((first.vid, idx), {"axis": axis, "mode": mode}, shape, first.lo, first.hi)


def _take(x: np.ndarray, i: np.ndarray, attrs: dict[str, Any], nan: float) -> np.ndarray:
    axis, mode = attrs["axis"], attrs["mode"]
    n = x.shape[axis or 0]
    if mode == "wrap":
        i = np.mod(i, n)
    oob = (i < 0) | (i >= n)
    out = np.take(x, np.clip(i, 0, n - 1), axis=axis or 0)
    if mode == "nan":
        a = axis or 0
        mask = oob.reshape((1,) * a + oob.shape + (1,) * (x.ndim - a - 1))
        out = np.where(mask, nan, out)
    return out


_reg("take", _draw_take,
     lambda args, attrs: relax_ops().take(args[0], args[1], axis=attrs["axis"], mode=attrs["mode"]),
     lambda args, attrs, u: Approx(_take(args[0].v, _idx(args[1]), attrs, np.nan),
                                   _take(args[0].e, _idx(args[1]), attrs, 0.0)), forms=declared("axis=none|0|1|pos; mode=fast|clip|wrap|nan"))


# -- gather_elements / gather_nd -------------------------------------------------------------

def _draw_gather_elements(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not _static(first):
        return None
    axis = draw_axis(ctx, first.rank)
    n = int(first.shape[axis])
    ishape = tuple(ctx.small_dim(1, 5) if i == axis else d for i, d in enumerate(first.shape))
    idx = ctx.fresh(ishape, 0, n - 1, dtype=INDEX)
    return Drawn((first.vid, idx), {"axis": axis}, ishape, first.lo, first.hi)


def _gather_elements(x: np.ndarray, i: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    return np.take_along_axis(x, i, axis=attrs["axis"])


_reg("gather_elements", _draw_gather_elements,
     lambda args, attrs: relax_ops().gather_elements(args[0], args[1], axis=attrs["axis"]),
     lambda args, attrs, u: Approx(_gather_elements(args[0].v, _idx(args[1]), attrs),
                                   _gather_elements(args[0].e, _idx(args[1]), attrs)), forms=declared("axis=0|1|pos"))


def _draw_gather_nd(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not _static(first):
        return None
    m = ctx.draw(st.integers(1, first.rank))
    ys = tuple(ctx.small_dim(1, 4) for _ in range(ctx.draw(st.integers(0, 2))))
    # indices (*ys, m): one column per indexed axis, each in its axis's range, concatenated
    rows = [ctx.fresh((*ys, 1), 0, int(first.shape[k]) - 1, dtype=INDEX) for k in range(m)]
    return Drawn((first.vid, *rows), {"m": m}, (*ys, *first.shape[m:]), first.lo, first.hi)


def _build_gather_nd(args: list[Any], attrs: dict[str, Any]) -> Any:
    R = relax_ops()
    idx = args[1] if len(args) == 2 else R.concat(list(args[1:]), axis=-1)
    return R.gather_nd(args[0], idx)


def _gather_nd(x: np.ndarray, rows: list[np.ndarray]) -> np.ndarray:
    return x[tuple(r[..., 0] for r in rows)]


_reg("gather_nd", _draw_gather_nd, _build_gather_nd,
     lambda args, attrs, u: Approx(_gather_nd(args[0].v, [_idx(a) for a in args[1:]]),
                                   _gather_nd(args[0].e, [_idx(a) for a in args[1:]])), forms=declared("m=1|pos"))


# -- scatter_elements / scatter_nd -----------------------------------------------------------

def _scatter_interval(first: ValueInfo, upd: ValueInfo, reduction: str, count: int) -> tuple[float, float]:
    if reduction == "add":
        return first.lo + count * min(upd.lo, 0.0), first.hi + count * max(upd.hi, 0.0)
    return min(first.lo, upd.lo), max(first.hi, upd.hi)


def _draw_scatter_elements(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not _static(first):
        return None
    axis = draw_axis(ctx, first.rank)
    n = int(first.shape[axis])
    reduction = ctx.draw(st.sampled_from(("update", "add", "max", "min")))
    k = ctx.draw(st.integers(1, n if reduction == "update" else n + 2))
    ishape = tuple(k if i == axis else d for i, d in enumerate(first.shape))
    style = f"distinct{axis}" if reduction == "update" else "uniform"
    idx = ctx.fresh(ishape, 0, n - 1, dtype=INDEX, style=style)
    upd = ctx.info(ctx.fresh(ishape, first.lo, first.hi))
    lo, hi = _scatter_interval(first, upd, reduction, k)
    return Drawn((first.vid, idx, upd.vid), {"axis": axis, "reduction": reduction}, first.shape, lo, hi)


def _targets_elements(i: np.ndarray, axis: int) -> tuple[np.ndarray, ...]:
    grid = list(np.indices(i.shape))
    grid[axis] = i
    return tuple(grid)


def _scatter(x: Approx, where: tuple[np.ndarray, ...], upd: Approx, reduction: str, u: float) -> Approx:
    v, e = x.v.copy(), x.e.copy()
    if reduction == "update":
        v[where], e[where] = upd.v, upd.e
    elif reduction == "add":
        terms = np.ones_like(v)  # data plus every update meeting there, summed in any order
        np.add.at(terms, where, 1.0)
        mag = np.abs(v) + e
        np.add.at(v, where, upd.v)
        np.add.at(e, where, upd.e)
        np.add.at(mag, where, np.abs(upd.v) + upd.e)
        e = e + np.vectorize(lambda k: gamma(k - 1, u))(terms) * mag
    else:
        fn = np.maximum if reduction == "max" else np.minimum
        fn.at(v, where, upd.v)  # a max or min of values each within e_i is within max e_i
        np.maximum.at(e, where, upd.e)
    return Approx(v, e)


_reg("scatter_elements", _draw_scatter_elements,
     lambda args, attrs: relax_ops().scatter_elements(args[0], args[1], args[2], axis=attrs["axis"],
                                                      reduction=attrs["reduction"]),
     lambda args, attrs, u: _scatter(args[0], _targets_elements(_idx(args[1]), attrs["axis"]), args[2],
                                     attrs["reduction"], u), forms=declared("axis=0|1|pos; reduction=update|add|min|max"))


def _draw_scatter_nd(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not _static(first):
        return None
    reduction = ctx.draw(st.sampled_from(("update", "add", "max", "min")))
    n0 = int(first.shape[0])
    if reduction == "update":  # one indexed axis, distinct indices: each element written once
        m, ys = 1, (ctx.draw(st.integers(1, n0)),)
    else:
        m = ctx.draw(st.integers(1, first.rank))
        ys = tuple(ctx.small_dim(1, 4) for _ in range(ctx.draw(st.integers(1, 2))))
    style = "distinct0" if reduction == "update" else "uniform"
    rows = [ctx.fresh((*ys, 1), 0, int(first.shape[k]) - 1, dtype=INDEX, style=style) for k in range(m)]
    upd = ctx.info(ctx.fresh((*ys, *first.shape[m:]), first.lo, first.hi))
    count = int(np.prod(ys))
    lo, hi = _scatter_interval(first, upd, reduction, count)
    return Drawn((first.vid, upd.vid, *rows), {"m": m, "reduction": reduction}, first.shape, lo, hi)


def _build_scatter_nd(args: list[Any], attrs: dict[str, Any]) -> Any:
    R = relax_ops()
    idx = args[2] if len(args) == 3 else R.concat(list(args[2:]), axis=-1)
    return R.scatter_nd(args[0], idx, args[1], reduction=attrs["reduction"])


_reg("scatter_nd", _draw_scatter_nd, _build_scatter_nd,
     lambda args, attrs, u: _scatter(args[0], tuple(_idx(a)[..., 0] for a in args[2:]), args[1], attrs["reduction"], u), forms=declared("m=1|pos; reduction=update|add|min|max"))


# -- index_tensor / index_put ----------------------------------------------------------------

def _draw_index_tensor(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not _static(first):
        return None
    k = ctx.draw(st.integers(1, first.rank))
    m, p = ctx.small_dim(1, 4), ctx.small_dim(1, 4)
    # broadcast index shapes: (m,) with (m,), or (m, 1) against (p,)
    shapes = [(m,)] * k if ctx.draw(st.booleans()) or k == 1 else [(m, 1)] + [(p,)] * (k - 1)
    bshape = shapes[0] if len(shapes[0]) == 1 and all(s == shapes[0] for s in shapes) else (m, p)
    # NumPy semantics, as documented: a negative index counts from the end. Half the draws keep
    # to non-negative indices: with negatives almost every index tensor holds one, and TVM 0.27
    # gets those wrong (kept: test_index_tensor_negative_indices), so the op would never be
    # checked on the indices it does handle
    neg = ctx.draw(st.booleans())
    idx = [ctx.fresh(s, -int(first.shape[j]) if neg else 0, int(first.shape[j]) - 1, dtype=INDEX)
           for j, s in enumerate(shapes)]
    return Drawn((first.vid, *idx), {}, (*bshape, *first.shape[k:]), first.lo, first.hi)


def _index_tensor(x: np.ndarray, idx: list[np.ndarray]) -> np.ndarray:
    return x[tuple(idx)]


_reg("index_tensor", _draw_index_tensor, lambda args, attrs: relax_ops().index_tensor(args[0], list(args[1:])),
     lambda args, attrs, u: Approx(_index_tensor(args[0].v, [_idx(a) for a in args[1:]]),
                                   _index_tensor(args[0].e, [_idx(a) for a in args[1:]])))


def _draw_index_put(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not _static(first):
        return None
    accumulate = ctx.draw(st.booleans())
    n0 = int(first.shape[0])
    k = ctx.draw(st.integers(1, n0 if not accumulate else n0 + 2))
    # replacing: the first coordinate never repeats, so no two writes meet
    idx = [ctx.fresh((k,), 0, int(d) - 1, dtype=INDEX, style="uniform" if accumulate or j else "distinct0")
           for j, d in enumerate(first.shape)]
    vals = ctx.info(ctx.fresh((k,), first.lo, first.hi))
    lo, hi = _scatter_interval(first, vals, "add" if accumulate else "update", k)
    return Drawn((first.vid, vals.vid, *idx), {"accumulate": accumulate}, first.shape, lo, hi)


def _build_index_put(args: list[Any], attrs: dict[str, Any]) -> Any:
    from tvm import relax

    return relax_ops().index_put(args[0], relax.Tuple(list(args[2:])), args[1], accumulate=attrs["accumulate"])


_reg("index_put", _draw_index_put, _build_index_put,
     lambda args, attrs, u: _scatter(args[0], tuple(_idx(a) for a in args[2:]), args[1],
                                     "add" if attrs["accumulate"] else "update", u), forms=declared("accumulate=true|false"))


# -- slice_scatter / reverse_sequence --------------------------------------------------------

def _draw_slice_scatter(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not _static(first):
        return None
    axis = draw_axis(ctx, first.rank)
    n = int(first.shape[axis])
    start = ctx.draw(st.integers(0, n))
    end = ctx.draw(st.integers(start, n))  # start == end: an empty slice, nothing written
    step = ctx.draw(st.integers(1, 3))
    src_shape = tuple(len(range(start, end, step)) if i == axis else d for i, d in enumerate(first.shape))
    src = ctx.info(ctx.fresh(src_shape, first.lo, first.hi))
    attrs = {"axis": axis, "start": start, "end": end, "step": step}
    return Drawn((first.vid, src.vid), attrs, first.shape, min(first.lo, src.lo), max(first.hi, src.hi))


def _slice_scatter(x: np.ndarray, src: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    out = x.copy()
    index = [slice(None)] * x.ndim
    index[attrs["axis"]] = slice(attrs["start"], attrs["end"], attrs["step"])
    out[tuple(index)] = src
    return out


_reg("slice_scatter", _draw_slice_scatter,
     lambda args, attrs: relax_ops().slice_scatter(args[0], args[1], attrs["start"], attrs["end"], attrs["step"],
                                                   axis=attrs["axis"]),
     lambda args, attrs, u: Approx(_slice_scatter(args[0].v, args[1].v, attrs),
                                   _slice_scatter(args[0].e, args[1].e, attrs)), forms=declared("axis=0|1|pos; start=0|1|pos; end=0|1|pos; step=1|pos"))


def _draw_reverse_sequence(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank < 2 or not _static(first):
        return None
    seq_axis, batch_axis = ctx.draw(st.permutations(range(first.rank)))[:2]
    n = int(first.shape[seq_axis])
    lengths = ctx.fresh((int(first.shape[batch_axis]),), 1, n, dtype=INDEX)
    return Drawn((first.vid, lengths), {"seq_axis": seq_axis, "batch_axis": batch_axis}, first.shape,
                 first.lo, first.hi)


def _reverse_sequence(x: np.ndarray, lengths: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    s, b = attrs["seq_axis"], attrs["batch_axis"]
    out = x.copy()
    for j, n in enumerate(lengths):
        src = [slice(None)] * x.ndim
        src[b], src[s] = j, slice(0, int(n))
        dst = list(src)
        # the first n elements of sequence j, reversed (its batch axis is gone after indexing)
        out[tuple(dst)] = np.flip(x[tuple(src)], axis=s - (1 if b < s else 0))
    return out


_reg("reverse_sequence", _draw_reverse_sequence,
     lambda args, attrs: relax_ops().reverse_sequence(args[0], args[1], seq_axis=attrs["seq_axis"],
                                                      batch_axis=attrs["batch_axis"]),
     lambda args, attrs, u: Approx(_reverse_sequence(args[0].v, _idx(args[1]), attrs),
                                   _reverse_sequence(args[0].e, _idx(args[1]), attrs)), forms=declared("seq_axis=0|1|pos; batch_axis=0|1|pos"))


# -- one_hot: the first value's shape, indices of its own ------------------------------------

def _draw_one_hot(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if not first.static or first.rank > 4:
        return None
    depth = ctx.small_dim(1, 8)
    idx = ctx.fresh(first.shape, 0, depth - 1, dtype=INDEX)
    on, off = ctx.draw(st.sampled_from(((1.0, 0.0), (0.5, -2.0), (-1.0, 3.0))))
    axis = ctx.draw(st.integers(-1, first.rank))
    a = first.rank if axis == -1 else axis
    shape = (*first.shape[:a], depth, *first.shape[a:])
    attrs = {"on": on, "off": off, "depth": depth, "axis": axis, "dtype": ctx.dtype}
    return Drawn((idx,), attrs, shape, min(on, off), max(on, off), ctx.dtype)


def _build_one_hot(args: list[Any], attrs: dict[str, Any]) -> Any:
    from tvm import relax, tirx

    on, off = (relax.prim_value(tirx.FloatImm(attrs["dtype"], attrs[k])) for k in ("on", "off"))
    return relax_ops().one_hot(args[0], on, off, attrs["depth"], attrs["axis"])


def _one_hot(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    i = _idx(args[0])
    a = i.ndim if attrs["axis"] == -1 else attrs["axis"]
    hot = np.expand_dims(i, a) == np.arange(attrs["depth"]).reshape((-1,) + (1,) * (i.ndim - a))
    # on and off are literals exact in every float dtype drawn
    v = np.where(hot, attrs["on"], attrs["off"]).astype(np.float64)
    return Approx(v, np.zeros_like(v))


_reg("one_hot", _draw_one_hot, _build_one_hot, _one_hot, forms=declared("depth=1|pos; axis=0|1|pos|neg; on=1|pos|neg; off=0|pos|neg; dtype=float32|float16"))
