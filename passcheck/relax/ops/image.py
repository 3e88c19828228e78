"""image.resize2d and image.resize3d (NCHW / NCDHW): nearest-neighbour and (bi/tri)linear.

The legalized kernel computes every input coordinate in float32 (``(o + 0.5) * in / out - 0.5``
for half_pixel, with ``in / out`` rounded to a float32 constant), clamps the neighbour indices
to the input, interpolates in float32 and casts to the dtype. A coordinate is off by a few
float32 roundings: for linear that moves the result by at most the coordinate error times the
largest difference of neighbours; for nearest it may pick the neighbour on the other side of a
rounding boundary, so every index the coordinate's error interval reaches is allowed.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.bounds import F32_U, underflow
from passcheck.relax.ops.drawing import nonempty, relax_ops
from passcheck.relax.ops.numeric import FLOATS

LINEAR_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel")
NEAREST_MODES = ("asymmetric", "align_corners", "tf_half_pixel_for_nn")
ROUNDING = {"round": np.rint, "floor": np.floor, "ceil": np.ceil}
# float64 too: TOPI's resize and affine_grid compute float64 data through float32 and miss the
# float64 bound (a kept TVM bug, test_float64_computed_in_float32); grid_sample is accurate


def _coordinate(o: np.ndarray, n_in: int, n_out: int, mode: str) -> np.ndarray:
    r = n_in / n_out
    if mode == "align_corners":
        return o * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros_like(o)
    if mode == "asymmetric":
        return o * r
    if mode == "tf_half_pixel_for_nn":
        return (o + 0.5) * r
    if mode == "pytorch_half_pixel" and n_out == 1:
        return np.zeros_like(o)
    return (o + 0.5) * r - 0.5


def _draw_resize(ctx: DrawContext, first: ValueInfo, nd: int) -> Drawn | None:
    if first.rank != nd + 2 or not first.static:
        return None
    size = tuple(ctx.draw(st.sampled_from((1, 2, 3, 5, 7, 8, 13))) for _ in range(nd))
    shape = (first.shape[0], first.shape[1], *size)
    if not ctx.fits(shape):
        return None
    method = ctx.draw(st.sampled_from(("linear", "nearest_neighbor")))
    attrs: dict[str, Any] = {"size": size, "method": method}
    if method == "linear":
        attrs["coordinate_transformation_mode"] = ctx.draw(st.sampled_from(LINEAR_MODES))
        attrs["rounding_method"] = ""
    else:
        attrs["coordinate_transformation_mode"] = ctx.draw(st.sampled_from(NEAREST_MODES))
        attrs["rounding_method"] = ctx.draw(st.sampled_from(tuple(ROUNDING)))
    # interpolation is a convex combination of inputs
    return Drawn((first.vid,), attrs, shape, first.lo, first.hi)


def _build_resize(nd: int) -> Any:
    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        fn = getattr(relax_ops().image, f"resize{nd}d")
        return fn(args[0], list(attrs["size"]), method=attrs["method"],
                  coordinate_transformation_mode=attrs["coordinate_transformation_mode"],
                  rounding_method=attrs["rounding_method"])

    return build


def _axis_matrix(n_in: int, n_out: int, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """(out, in) linear interpolation weights along one axis, and each coordinate's error."""
    x = _coordinate(np.arange(n_out, dtype=np.float64), n_in, n_out, mode)
    x0 = np.floor(x)
    w = x - x0
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        lo_i, hi_i = (int(min(max(i, 0), n_in - 1)) for i in (x0[o], x0[o] + 1))
        m[o, lo_i] += 1.0 - w[o]
        m[o, hi_i] += w[o]
    return m, 4.0 * F32_U * (np.abs(x) + 1.0)


def _apply(a: np.ndarray, mats: list[np.ndarray]) -> np.ndarray:
    for i, m in enumerate(mats):
        a = np.moveaxis(np.tensordot(a, m, axes=([2 + i], [1])), -1, 2 + i)
    return a


def _reference_linear(x: Approx, attrs: dict[str, Any], u: float) -> Approx:
    nd = x.v.ndim - 2
    mode = attrs["coordinate_transformation_mode"]
    axes = [_axis_matrix(n, o, mode) for n, o in zip(x.v.shape[2:], attrs["size"])]
    mats = [m for m, _ in axes]
    v = _apply(x.v, mats)
    # the largest neighbour difference of each (n, c) slice bounds every slope
    slope = 2.0 * np.max(np.abs(x.v), axis=tuple(range(2, 2 + nd)), keepdims=True) if x.v.size else 0.0
    coord = sum(np.max(delta) for _, delta in axes)
    # 2^nd products of weights and inputs summed in float32 (a few roundings each), the cast
    f32 = (3.0 * nd + 2.0) * F32_U * _apply(np.abs(x.v), mats)
    own = coord * slope + f32 + (u if u > F32_U else 0.0) * np.abs(v) + 2.0 * underflow(u)
    return Approx(v, _apply(x.e, mats) + own)


def _nearest_index(n_in: int, n_out: int, mode: str, rounding: str, shift: float) -> np.ndarray:
    x = _coordinate(np.arange(n_out, dtype=np.float64), n_in, n_out, mode)
    x = x + shift * 4.0 * F32_U * (np.abs(x) + 1.0)
    return np.clip(ROUNDING[rounding](x), 0, n_in - 1).astype(np.int64)


def _reference_nearest(x: Approx, attrs: dict[str, Any], u: float) -> Approx:
    mode, rounding = attrs["coordinate_transformation_mode"], attrs["rounding_method"]
    dims = list(zip(x.v.shape[2:], attrs["size"]))

    def gather(a: np.ndarray, idx: list[np.ndarray]) -> np.ndarray:
        return a[np.ix_(range(a.shape[0]), range(a.shape[1]), *idx)]

    exact = [_nearest_index(n, o, mode, rounding, 0.0) for n, o in dims]
    v = gather(x.v, exact)
    e = gather(x.e, exact)
    # a coordinate within its rounding error of a boundary may select either neighbour
    for shifts in itertools.product((-1.0, 1.0), repeat=len(dims)):
        idx = [_nearest_index(n, o, mode, rounding, s) for (n, o), s in zip(dims, shifts)]
        e = np.maximum(e, np.abs(gather(x.v, idx) - v) + gather(x.e, idx))
    return Approx(v, e)


def _reference_resize(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    if attrs["method"] == "linear":
        return _reference_linear(x, attrs, u)
    return _reference_nearest(x, attrs, u)


_RESIZE_FORMS = declared(f"size has 1|pos; method=linear|nearest_neighbor; rounding_method=|{'|'.join(ROUNDING)}; "
                         f"coordinate_transformation_mode={'|'.join(sorted(set(LINEAR_MODES + NEAREST_MODES)))}")


for _nd in (2, 3):
    register_op(OpSpec(f"resize{_nd}d", f"relax.image.resize{_nd}d", "injective",
                       nonempty(lambda ctx, first, nd=_nd: _draw_resize(ctx, first, nd)), _build_resize(_nd),
                       _reference_resize, dtypes=FLOATS, tags=frozenset({"image"}), forms=_RESIZE_FORMS))



# -- affine_grid ---------------------------------------------------------------------------------

def _grid_axis(size: int, align_corners: bool) -> np.ndarray:
    """Normalised sampling positions along one axis: corner pixels at -1 and 1, or pixel centres."""
    if align_corners:
        return np.linspace(-1.0, 1.0, size)
    return -1.0 + (2.0 * np.arange(size) + 1.0) / size


def _draw_affine_grid(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank != 3 or tuple(first.shape[1:]) != (2, 3) or not first.static:
        n = first.shape[0] if first.rank and isinstance(first.shape[0], int) else 1
        theta = ctx.fresh((n, 2, 3), -2.0, 2.0)  # a transform for each of first's batch
        t_bound = 2.0
    else:
        theta, t_bound = first.vid, first.bound
    n = ctx.info(theta).shape[0]
    align = ctx.draw(st.booleans())
    size = tuple(ctx.draw(st.sampled_from((2, 3, 5, 8) if align else (1, 2, 3, 5, 8))) for _ in range(2))
    shape = (n, 2, *size)
    if not ctx.fits(shape) or 3.0 * t_bound > ctx.limit:
        return None
    return Drawn((theta,), {"size": size, "align_corners": align}, shape, -3.0 * t_bound, 3.0 * t_bound)


def _reference_affine_grid(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (t,) = args
    h, w = attrs["size"]
    ys, xs = (_grid_axis(s, attrs["align_corners"]) for s in (h, w))
    x, y = xs[None, None, None, :], ys[None, None, :, None]
    col = [t.v[:, :, i, None, None] for i in range(3)]
    col_e = [t.e[:, :, i, None, None] for i in range(3)]
    v = col[0] * x + col[1] * y + col[2]
    prop = col_e[0] * np.abs(x) + col_e[1] * np.abs(y) + col_e[2]
    # each coordinate: start + i * step with the step rounded (3 roundings); two products, two sums
    coord = 3.0 * u * (np.abs(x) + 1.0), 3.0 * u * (np.abs(y) + 1.0)
    terms = np.abs(col[0] * x) + np.abs(col[1] * y) + np.abs(col[2])
    own = np.abs(col[0]) * coord[0] + np.abs(col[1]) * coord[1] + 4.0 * u * terms + 4.0 * underflow(u)
    return Approx(v, prop + own)


register_op(OpSpec("affine_grid", "relax.image.affine_grid", "injective", nonempty(_draw_affine_grid),
                   lambda args, attrs: relax_ops().image.affine_grid(args[0], list(attrs["size"]),
                                                                     align_corners=attrs["align_corners"]),
                   _reference_affine_grid, dtypes=FLOATS, tags=frozenset({"image"}), forms=declared("size has 1|pos; align_corners=true|false")))


# -- grid_sample ---------------------------------------------------------------------------------

def _draw_grid_sample(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank != 4 or not first.static:
        return None
    n = first.shape[0]
    grid = ctx.pick(lambda v: v.static and v.rank == 4 and v.shape[:2] == (n, 2) and v.bound <= 4.0
                    and v.dtype == first.dtype)
    if grid is None or ctx.draw(st.booleans()):
        size = (ctx.small_dim(1, 8), ctx.small_dim(1, 8))
        gid = ctx.fresh((n, 2, *size), -1.2, 1.2)  # a little outside [-1, 1]: the padding matters
    else:
        gid = grid.vid
    shape = (n, first.shape[1], *ctx.info(gid).shape[2:])
    if not ctx.fits(shape):
        return None
    attrs = {"method": ctx.draw(st.sampled_from(("bilinear", "nearest"))),
             "padding_mode": ctx.draw(st.sampled_from(("zeros", "border"))),
             "align_corners": ctx.draw(st.booleans())}
    return Drawn((first.vid, gid), attrs, shape, min(first.lo, 0.0), max(first.hi, 0.0))


def _source(g: np.ndarray, size: int, attrs: dict[str, Any]) -> tuple[np.ndarray, float]:
    """Input coordinates of normalised grid values, and d(coordinate)/d(grid)."""
    scale = (size - 1) / 2.0 if attrs["align_corners"] else size / 2.0
    c = (g + 1.0) * scale - (0.0 if attrs["align_corners"] else 0.5)
    if attrs["padding_mode"] == "border":
        c = np.clip(c, 0.0, size - 1.0)
    return c, scale


def _pixels(x: np.ndarray, yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """x[n, c, yi, xi] for (N, OH, OW) index arrays; 0 outside the input."""
    h, w = x.shape[2:]
    inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
    b = np.arange(x.shape[0])[:, None, None]
    vals = x[b, :, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]  # (N, OH, OW, C)
    return np.moveaxis(np.where(inside[..., None], vals, 0.0), -1, 1)


def _bilinear(x: np.ndarray, y: np.ndarray, xs: np.ndarray) -> np.ndarray:
    y0, x0 = np.floor(y), np.floor(xs)
    wy, wx = (y - y0)[:, None], (xs - x0)[:, None]
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    return (_pixels(x, y0, x0) * (1 - wy) * (1 - wx) + _pixels(x, y0, x0 + 1) * (1 - wy) * wx
            + _pixels(x, y0 + 1, x0) * wy * (1 - wx) + _pixels(x, y0 + 1, x0 + 1) * wy * wx)


def _reference_grid_sample(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    x, g = args
    h, w = x.v.shape[2:]
    (ys, sy), (xs, sx) = _source(g.v[:, 1], h, attrs), _source(g.v[:, 0], w, attrs)
    # each coordinate: the grid's error scaled, plus (g + 1) * scale - 0.5 rounded (3 roundings)
    dy = (g.e[:, 1] * sy + 4.0 * u * (np.abs(ys) + 1.0))
    dx = (g.e[:, 0] * sx + 4.0 * u * (np.abs(xs) + 1.0))
    if attrs["method"] == "nearest":
        # (nearbyint: ties to even; a coordinate that is not finite reads outside, and is unchecked below)
        near = lambda a: np.where(np.isfinite(a), np.rint(a), -1.0).astype(np.int64)  # noqa: E731
        v = _pixels(x.v, near(ys), near(xs))
        e = _pixels(x.e, near(ys), near(xs))
        for sy_, sx_ in itertools.product((-1.0, 1.0), repeat=2):
            yi, xi = near(ys + sy_ * dy), near(xs + sx_ * dx)
            e = np.maximum(e, np.abs(_pixels(x.v, yi, xi) - v) + _pixels(x.e, yi, xi))
        # a NaN or infinite coordinate names no pixel (the kernel rounds it to an integer: undefined),
        # so nothing is known there
        undefined = ~(np.isfinite(g.v[:, 0]) & np.isfinite(g.v[:, 1]))[:, None]
        return Approx(v, np.where(undefined, np.inf, e))
    v = _bilinear(x.v, ys, xs)
    # piecewise bilinear, continuous (zeros outside): its slope is at most 2 max|x| per slice
    slope = 2.0 * np.max(np.abs(x.v), axis=(2, 3), keepdims=True) if x.v.size else 0.0
    own = slope * (dy + dx)[:, None] + 8.0 * u * _bilinear(np.abs(x.v), ys, xs) + 4.0 * underflow(u)
    return Approx(v, _bilinear(x.e, ys, xs) + own)


register_op(OpSpec("grid_sample", "relax.image.grid_sample", "injective", nonempty(_draw_grid_sample),
                   lambda args, attrs: relax_ops().image.grid_sample(
                       args[0], args[1], method=attrs["method"], padding_mode=attrs["padding_mode"],
                       align_corners=attrs["align_corners"]),
                   _reference_grid_sample, dtypes=FLOATS, tags=frozenset({"image"}), forms=declared("method=bilinear|nearest; padding_mode=zeros|border; align_corners=true|false")))
