"""Layout and shape ops that move or copy elements: broadcast_to, expand_dims, squeeze, flatten,
nn.batch_flatten, flip, repeat, tile, nn.pad, nn.pixel_shuffle, layout_transform, tril, triu.
All exact: the reference applies the op to values and error bounds alike."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.drawing import draw_axis, relax_ops, spelled_axis
from passcheck.relax.ops.shape import exact
from passcheck.relax.spec import Dim


def _spell(ctx: DrawContext, first: ValueInfo, axis: int, rank: int) -> int:
    return spelled_axis(ctx, axis, rank) if first.static else axis


def _unary(name: str, draw: Any, build: Any, fn: Any, *, symbolic: bool = True, pattern: str = "injective",
           forms: tuple[str, ...] = ()) -> None:
    register_op(OpSpec(name, f"relax.{name}", pattern, draw, build, exact(fn), symbolic=symbolic, forms=forms,
                       tags=frozenset({"shape"})))


# -- broadcast_to ----------------------------------------------------------------------------

def _draw_broadcast_to(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    lead = tuple(ctx.small_dim(1, 4) for _ in range(ctx.draw(st.integers(0, 2))))
    shape = lead + tuple(ctx.small_dim(1, 5) if d == 1 and ctx.draw(st.booleans()) else d for d in first.shape)
    return Drawn((first.vid,), {"shape": list(shape)}, shape, first.lo, first.hi)


def _build_broadcast_to(args: list[Any], attrs: dict[str, Any]) -> Any:
    return relax_ops().broadcast_to(args[0], _shape_expr(attrs["shape"], args[0]))


def _shape_expr(shape: Any, like: Any) -> Any:
    """A ShapeExpr of static dims and the symbolic dims of ``like`` (named as in the spec)."""
    from tvm import relax

    syms = {str(d): d for d in like.ty.shape.values if not isinstance(d, int) and hasattr(d, "name")} \
        if hasattr(like.ty, "shape") and hasattr(like.ty.shape, "values") else {}
    return relax.ShapeExpr([syms[d] if isinstance(d, str) else int(d) for d in shape])


def _broadcast_to(vals: list[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    x, target = vals[0], attrs["shape"]
    lead = len(target) - x.ndim  # a symbolic target dim is the operand's own dim there
    return np.broadcast_to(x, tuple(d if isinstance(d, int) else x.shape[i - lead] for i, d in enumerate(target)))


_unary("broadcast_to", _draw_broadcast_to, _build_broadcast_to, _broadcast_to, forms=declared("shape has 0|1|pos|sym"))


# -- expand_dims / squeeze -------------------------------------------------------------------

def _draw_expand_dims(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    rank = first.rank + ctx.draw(st.integers(1, 2))
    axes = ctx.draw(st.lists(st.integers(0, rank - 1), min_size=rank - first.rank,
                             max_size=rank - first.rank, unique=True))
    rest = iter(first.shape)
    shape = tuple(1 if i in axes else next(rest) for i in range(rank))
    return Drawn((first.vid,), {"axis": [_spell(ctx, first, a, rank) for a in axes]}, shape, first.lo, first.hi)


_unary("expand_dims", _draw_expand_dims,
       lambda args, attrs: relax_ops().expand_dims(args[0], list(attrs["axis"])),
       lambda vals, attrs: np.expand_dims(vals[0], tuple(attrs["axis"])), forms=declared("axis=all|all,neg|some|some,neg"))


def _draw_squeeze(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    ones = [i for i, d in enumerate(first.shape) if d == 1]
    if not ones:
        return None
    if ctx.draw(st.booleans()):
        axes, spelled = ones, None
    else:
        axes = [i for i in ones if ctx.draw(st.booleans())] or ones[:1]
        spelled = [_spell(ctx, first, a, first.rank) for a in axes]
    shape = tuple(d for i, d in enumerate(first.shape) if i not in axes)
    return Drawn((first.vid,), {"axis": spelled}, shape, first.lo, first.hi)


_unary("squeeze", _draw_squeeze,
       lambda args, attrs: relax_ops().squeeze(args[0], None if attrs["axis"] is None else list(attrs["axis"])),
       lambda vals, attrs: np.squeeze(vals[0], None if attrs["axis"] is None else tuple(attrs["axis"])),
       symbolic=False, forms=declared("axis=none|all|all,neg|some|some,neg"))


# -- flatten / batch_flatten -------------------------------------------------------------------

def _draw_flatten(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    return Drawn((first.vid,), {}, (math.prod(int(d) for d in first.shape),), first.lo, first.hi)


_unary("flatten", _draw_flatten, lambda args, attrs: relax_ops().flatten(args[0]),
       lambda vals, attrs: vals[0].reshape(-1), symbolic=False)


def _draw_batch_flatten(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank < 2:
        return None
    shape = (first.shape[0], math.prod(int(d) for d in first.shape[1:]))
    return Drawn((first.vid,), {}, shape, first.lo, first.hi)


register_op(OpSpec("nn.batch_flatten", "relax.nn.batch_flatten", "injective", _draw_batch_flatten,
                   lambda args, attrs: relax_ops().nn.batch_flatten(args[0]),
                   exact(lambda vals, attrs: vals[0].reshape(vals[0].shape[0], math.prod(vals[0].shape[1:]))),
                   tags=frozenset({"shape"})))


# -- flip / repeat / tile ----------------------------------------------------------------------

def _draw_flip(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0:
        return None
    axis = draw_axis(ctx, first.rank)
    return Drawn((first.vid,), {"axis": _spell(ctx, first, axis, first.rank)}, first.shape, first.lo, first.hi)


_unary("flip", _draw_flip, lambda args, attrs: relax_ops().flip(args[0], attrs["axis"]),
       lambda vals, attrs: np.flip(vals[0], attrs["axis"]), forms=declared("axis=0|1|pos|neg"))


def _draw_repeat(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    reps = ctx.draw(st.integers(1, 3))
    if first.rank == 0 or ctx.draw(st.integers(0, 3)) == 0:
        if not first.static:
            return None
        return Drawn((first.vid,), {"repeats": reps, "axis": None},
                     (reps * math.prod(int(d) for d in first.shape),), first.lo, first.hi)
    axis = draw_axis(ctx, first.rank)
    d = first.shape[axis]
    if not isinstance(d, int):
        return None
    shape = tuple(reps * d if i == axis else x for i, x in enumerate(first.shape))
    return Drawn((first.vid,), {"repeats": reps, "axis": _spell(ctx, first, axis, first.rank)}, shape,
                 first.lo, first.hi)


_unary("repeat", _draw_repeat, lambda args, attrs: relax_ops().repeat(args[0], attrs["repeats"], attrs["axis"]),
       lambda vals, attrs: np.repeat(vals[0], attrs["repeats"], attrs["axis"]), forms=declared("repeats=1|pos; axis=none|0|1|pos|neg"))


def _draw_tile(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    reps = ctx.draw(st.lists(st.integers(1, 3), min_size=1, max_size=first.rank + 1))
    rank = max(len(reps), first.rank)
    full_reps = [1] * (rank - len(reps)) + reps
    full_shape: list[Dim] = [1] * (rank - first.rank) + list(first.shape)
    shape = tuple(r * d for r, d in zip(full_reps, full_shape))
    return Drawn((first.vid,), {"repeats": reps}, shape, first.lo, first.hi)


_unary("tile", _draw_tile, lambda args, attrs: relax_ops().tile(args[0], list(attrs["repeats"])),
       lambda vals, attrs: np.tile(vals[0], tuple(attrs["repeats"])), symbolic=False, forms=declared("repeats has 1|pos"))


# -- nn.pad ------------------------------------------------------------------------------------

def _draw_pad(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0:
        return None
    widths = [ctx.draw(st.integers(0, 2)) for _ in range(2 * first.rank)]
    value = ctx.draw(st.sampled_from((0.0, 0.0, 1.0, -2.5)))
    shape = tuple(d + widths[2 * i] + widths[2 * i + 1] for i, d in enumerate(first.shape))
    return Drawn((first.vid,), {"pad_width": widths, "pad_value": value}, shape,
                 min(first.lo, value), max(first.hi, value))


def _pad(vals: list[np.ndarray], attrs: dict[str, Any], value: float) -> np.ndarray:
    w = attrs["pad_width"]
    return np.pad(vals[0], [(w[2 * i], w[2 * i + 1]) for i in range(vals[0].ndim)], constant_values=value)


def _pad_reference(args: Any, attrs: dict[str, Any], u: float) -> Any:
    from passcheck.core.rounding import Approx

    # the pad value is a float literal: exact in every float dtype drawn (0, 1, -2.5)
    return Approx(_pad([args[0].v], attrs, attrs["pad_value"]), _pad([args[0].e], attrs, 0.0))


register_op(OpSpec("nn.pad", "relax.nn.pad", "injective", _draw_pad,
                   lambda args, attrs: relax_ops().nn.pad(args[0], list(attrs["pad_width"]),
                                                          pad_value=attrs["pad_value"]),
                   _pad_reference, tags=frozenset({"shape"}), forms=declared("pad_width has 0|1|pos; pad_value=0|1|neg")))


# -- nn.pixel_shuffle --------------------------------------------------------------------------

def _draw_pixel_shuffle(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank != 4:
        return None
    c = int(first.shape[1])
    factors = [r for r in (1, 2, 3) if c % (r * r) == 0]  # r = 1: an identity, valid
    r = ctx.draw(st.sampled_from(factors))
    n, _, h, w = first.shape
    return Drawn((first.vid,), {"upscale_factor": r}, (n, c // (r * r), int(h) * r, int(w) * r), first.lo, first.hi)


def _pixel_shuffle(vals: list[np.ndarray], attrs: dict[str, Any]) -> np.ndarray:
    x, r = vals[0], attrs["upscale_factor"]
    n, c, h, w = x.shape
    y = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (r * r), h * r, w * r)


register_op(OpSpec("nn.pixel_shuffle", "relax.nn.pixel_shuffle", "injective", _draw_pixel_shuffle,
                   lambda args, attrs: relax_ops().nn.pixel_shuffle(args[0], attrs["upscale_factor"]),
                   exact(_pixel_shuffle), tags=frozenset({"shape"}), forms=declared("upscale_factor=1|pos")))


# -- layout_transform: a permutation, or the last axis split by a factor (padded when needed) ---

def _draw_layout_transform(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0:
        return None
    if ctx.draw(st.booleans()):
        perm = list(ctx.draw(st.permutations(range(first.rank))))
        return Drawn((first.vid,), {"perm": perm, "factor": 0, "pad_value": None},
                     tuple(first.shape[a] for a in perm), first.lo, first.hi)
    last = int(first.shape[-1])
    f = ctx.draw(st.sampled_from((2, 3, 4)))
    pad = None if last % f == 0 else ctx.draw(st.sampled_from((0.0, 1.5)))
    shape = (*first.shape[:-1], -(-last // f), f)
    lo, hi = (first.lo, first.hi) if pad is None else (min(first.lo, pad), max(first.hi, pad))
    return Drawn((first.vid,), {"perm": None, "factor": f, "pad_value": pad}, shape, lo, hi)


def _build_layout_transform(args: list[Any], attrs: dict[str, Any]) -> Any:
    perm, f = attrs["perm"], attrs["factor"]
    if perm is not None:
        def index_map(*i: Any) -> Any:
            return tuple(i[a] for a in perm)
    else:
        def index_map(*i: Any) -> Any:
            return (*i[:-1], i[-1] // f, i[-1] % f)
    from tvm.tirx import IndexMap

    ndim = len(args[0].ty.shape)
    return relax_ops().layout_transform(args[0], IndexMap.from_func(index_map, ndim=ndim),
                                        pad_value=attrs["pad_value"])


def _layout_transform(vals: list[np.ndarray], attrs: dict[str, Any], pad: float) -> np.ndarray:
    x, perm, f = vals[0], attrs["perm"], attrs["factor"]
    if perm is not None:
        return np.transpose(x, tuple(perm))
    last = x.shape[-1]
    x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, -last % f)], constant_values=pad)
    # the split extent spelled out: NumPy cannot infer a -1 when another extent is 0
    return x.reshape(*x.shape[:-1], x.shape[-1] // f, f)


def _layout_transform_reference(args: Any, attrs: dict[str, Any], u: float) -> Any:
    from passcheck.core.rounding import Approx

    pad = attrs["pad_value"] or 0.0  # exact in every float dtype drawn (0, 1.5)
    return Approx(_layout_transform([args[0].v], attrs, pad), _layout_transform([args[0].e], attrs, 0.0))


register_op(OpSpec("layout_transform", "relax.layout_transform", "injective", _draw_layout_transform,
                   _build_layout_transform, _layout_transform_reference, tags=frozenset({"shape"}), forms=declared("perm=none; perm has 0|1|pos; factor=0|pos; pad_value=none|0|pos")))


# -- tril / triu -------------------------------------------------------------------------------

def _draw_tri(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank < 2:
        return None
    k = ctx.draw(st.integers(-3, 3))
    return Drawn((first.vid,), {"k": k}, first.shape, min(first.lo, 0.0), max(first.hi, 0.0))


for _name, _np in (("tril", np.tril), ("triu", np.triu)):
    _unary(_name, _draw_tri, lambda args, attrs, _name=_name: getattr(relax_ops(), _name)(args[0], attrs["k"]),
           lambda vals, attrs, _np=_np: _np(vals[0], attrs["k"]), symbolic=False, forms=declared("k=0|1|pos|neg"))


