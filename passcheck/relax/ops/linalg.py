"""Contractions: matmul (NumPy semantics: 1-D operands, batch broadcasting) and NCHW/OIHW conv2d.

TOPI accumulates in the tensor's dtype (float16 too), so the own error is gamma_K times the sum
of absolute products, K the contraction length; the interval keeps every partial sum (at most
K max|a| max|b|) below the float16 overflow limit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import (
    DrawContext,
    Drawn,
    OpSpec,
    ValueInfo,
    broadcast_shapes,
    declared,
    interval_mul,
    register_op,
)
from passcheck.relax.ops.bounds import contraction_error
from passcheck.relax.ops.drawing import relax_ops
from passcheck.relax.ops.windows import gather_windows, window_out_size
from passcheck.relax.spec import Dim

# -- matmul --------------------------------------------------------------------------------------


def _matmul_shape(a: tuple[Dim, ...], b: tuple[Dim, ...]) -> tuple[Dim, ...] | None:
    """NumPy matmul result shape (1-D operands promoted then squeezed), None if incompatible."""
    k_a = a[-1]
    k_b = b[0] if len(b) == 1 else b[-2]
    if k_a != k_b or not isinstance(k_a, int):
        return None
    batch = broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]))
    if batch is None:
        return None
    return batch + (tuple(a[-2:-1]) if len(a) >= 2 else ()) + ((b[-1],) if len(b) >= 2 else ())


def _fresh_rhs_shape(ctx: DrawContext, first: ValueInfo, k: int) -> tuple[Dim, ...]:
    kind = ctx.draw(st.sampled_from(("matrix", "matrix", "vector", "batched")))
    if kind == "vector":
        return (k,)
    n = ctx.small_dim(1, 16)
    if kind == "matrix":
        return (k, n)
    a_batch = first.shape[:-2]
    if a_batch and ctx.draw(st.booleans()):
        # a suffix of the first operand's batch, some dims (and every symbolic one) broadcast as 1
        j = ctx.draw(st.integers(0, len(a_batch) - 1))
        batch = tuple(1 if not isinstance(d, int) or ctx.draw(st.booleans()) else d for d in a_batch[j:])
    else:
        batch = (ctx.small_dim(1, 4),)  # a batch the first operand broadcasts against
    return batch + (k, n)


def _draw_matmul(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0 or not isinstance(first.shape[-1], int):
        return None
    k = first.shape[-1]
    other: ValueInfo | None = None
    if ctx.draw(st.booleans()):
        other = ctx.pick(lambda v: v.dtype == first.dtype and v.rank >= 1
                         and _matmul_shape(first.shape, v.shape) is not None
                         and ctx.fits(_matmul_shape(first.shape, v.shape) or ()))
    b_lo, b_hi = (other.lo, other.hi) if other is not None else (-1.0, 1.0)
    p_lo, p_hi = interval_mul((first.lo, first.hi), (b_lo, b_hi))
    lo, hi = k * p_lo, k * p_hi  # every output sums exactly k products
    if max(abs(lo), abs(hi)) > ctx.limit:
        return None
    if other is None:
        b_shape = _fresh_rhs_shape(ctx, first, k)
        out = _matmul_shape(first.shape, b_shape)
        if out is None or not ctx.fits(out):
            return None
        b = ctx.fresh(b_shape, b_lo, b_hi)
    else:
        b = other.vid
        out = _matmul_shape(first.shape, other.shape)
        assert out is not None
    return Drawn((first.vid, b), {}, out, lo, hi)


def _reference_matmul(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    a, b = args
    k = a.v.shape[-1]
    return Approx(np.matmul(a.v, b.v), contraction_error(np.matmul, a.v, a.e, b.v, b.e, k, u))


register_op(OpSpec("matmul", "relax.matmul", "conv", _draw_matmul,
                   lambda args, attrs: relax_ops().matmul(args[0], args[1]),
                   _reference_matmul, symbolic=True, tags=frozenset({"matmul"})))


# -- conv2d --------------------------------------------------------------------------------------


def _divisors(n: int) -> list[int]:
    return [g for g in range(1, n + 1) if n % g == 0]


def _draw_conv2d(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    # zero-size images are not drawn yet (the kernel and group draws divide by the extents)
    if first.rank != 4 or not first.static or 0 in first.shape:
        return None
    c, h, w = (int(d) for d in first.shape[1:])
    kind = ctx.draw(st.sampled_from(("dense", "dense", "depthwise", "grouped")))
    groups = {"dense": 1, "depthwise": c}.get(kind) or ctx.draw(st.sampled_from(_divisors(c)))
    multiplier = ctx.draw(st.integers(1, max(1, min(3, 16 // groups))))
    k = (ctx.draw(st.integers(1, 3)), ctx.draw(st.integers(1, 3)))
    s = (ctx.draw(st.sampled_from((1, 1, 2, 3))), ctx.draw(st.sampled_from((1, 1, 2, 3))))
    d = (ctx.draw(st.sampled_from((1, 1, 2))), ctx.draw(st.sampled_from((1, 1, 2))))
    p = tuple(ctx.draw(st.sampled_from((0, 0, 1, 2))) for _ in range(4))
    outs = []
    for axis, n in enumerate((h, w)):
        if n + p[axis] + p[axis + 2] < d[axis] * (k[axis] - 1) + 1:
            # the kernel must fit the padded input: shrink it on this axis
            k = (min(k[0], h), k[1]) if axis == 0 else (k[0], min(k[1], w))
            d = (1, d[1]) if axis == 0 else (d[0], 1)
        outs.append(window_out_size(n, k[axis], s[axis], p[axis], p[axis + 2], d[axis]))
    # fewer output channels rather than no conv when the output would be too large
    per_channel = int(first.shape[0]) * outs[0] * outs[1]
    multiplier = min(multiplier, ctx.max_elems // (groups * per_channel))
    if multiplier < 1:
        return None
    out_c = groups * multiplier
    shape = (first.shape[0], out_c, outs[0], outs[1])
    terms = (c // groups) * k[0] * k[1]
    p_lo, p_hi = interval_mul((first.lo, first.hi), (-1.0, 1.0))
    lo, hi = terms * min(p_lo, 0.0), terms * max(p_hi, 0.0)  # padding contributes zeros
    if max(abs(lo), abs(hi)) > ctx.limit or not ctx.fits(shape):
        return None
    weight = ctx.fresh((out_c, c // groups, k[0], k[1]), -1.0, 1.0)
    attrs = {"strides": s, "padding": p, "dilation": d, "groups": groups}
    return Drawn((first.vid, weight), attrs, shape, lo, hi)


def _build_conv2d(args: list[Any], attrs: dict[str, Any]) -> Any:
    return relax_ops().nn.conv2d(args[0], args[1], strides=list(attrs["strides"]),
                                 padding=list(attrs["padding"]), dilation=list(attrs["dilation"]),
                                 groups=attrs["groups"])


def conv2d_nchw(x: np.ndarray, w: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """Grouped, strided, dilated, padded 2-D convolution in float64 (NCHW data, OIHW weight)."""
    s, d, p, groups = attrs["strides"], attrs["dilation"], attrs["padding"], attrs["groups"]
    kh, kw = w.shape[2], w.shape[3]
    out_hw = (window_out_size(x.shape[2], kh, s[0], p[0], p[2], d[0]),
              window_out_size(x.shape[3], kw, s[1], p[1], p[3], d[1]))
    win = gather_windows(x, (kh, kw), s, d, p, out_hw, 0.0)  # (N, C, OH, OW, kh, kw)
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    parts = [np.einsum("nchwij,ocij->nohw", win[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og])
             for g in range(groups)]
    return np.concatenate(parts, axis=1)


def _reference_conv2d(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    x, w = args

    def conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return conv2d_nchw(a, b, attrs)

    terms = math.prod(w.v.shape[1:])
    return Approx(conv(x.v, w.v), contraction_error(conv, x.v, x.e, w.v, w.e, terms, u))


register_op(OpSpec("conv2d", "relax.nn.conv2d", "conv", _draw_conv2d, _build_conv2d,
                   _reference_conv2d, tags=frozenset({"conv"}), forms=declared("strides has 1|pos; padding has 0|1|pos; dilation has 1|pos; groups=1|pos")))
