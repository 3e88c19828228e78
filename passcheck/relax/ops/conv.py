"""Convolutions beyond conv2d: conv1d, conv3d (channels-first or channels-last data) and the
transposed conv1d/2d/3d (strides, padding, output_padding, dilation, groups).

TOPI accumulates in the tensor's dtype, as for conv2d (``linalg``): the own error is gamma_K
times the sum of absolute products, K the number of products an output sums, and the interval
keeps every partial sum below the dtype's limit.
"""

from __future__ import annotations

import itertools
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
    declared,
    interval_mul,
    register_op,
)
from passcheck.relax.ops.bounds import contraction_error
from passcheck.relax.ops.drawing import nonempty, relax_ops
from passcheck.relax.ops.numeric import FLOATS
from passcheck.relax.ops.windows import gather_windows_nd, window_out_size

SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def _divisors(n: int) -> list[int]:
    return [g for g in range(1, n + 1) if n % g == 0]


def layouts(nd: int, channels_last: bool) -> tuple[str, str]:
    """(data layout, kernel layout) as Relax spells them."""
    sp = SPATIAL[nd]
    return (f"N{sp}C", f"{sp}IO") if channels_last else (f"NC{sp}", f"OI{sp}")


def _to_channels_first(a: np.ndarray, layout: str) -> np.ndarray:
    """``a`` in layout ``layout`` (data: N..C, or kernel: ..IO) as NC.../OI..."""
    return np.transpose(a, [layout.index(c) for c in _first(layout)])


def _first(layout: str) -> str:
    if layout[0] == "N":
        return "NC" + layout.replace("N", "").replace("C", "")
    return "OI" + layout.replace("O", "").replace("I", "")


def _from_channels_first(a: np.ndarray, layout: str) -> np.ndarray:
    first = _first(layout)
    return np.transpose(a, [first.index(c) for c in layout])


# -- forward convolution -------------------------------------------------------------------------

def conv_nd(x: np.ndarray, w: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """Grouped, strided, dilated, padded convolution in float64 on NC* data and OI* weights;
    ``padding`` is the low sides of every spatial axis, then the high sides."""
    nd = x.ndim - 2
    s, d, p, groups = attrs["strides"], attrs["dilation"], attrs["padding"], attrs["groups"]
    k = w.shape[2:]
    out = tuple(window_out_size(x.shape[2 + i], k[i], s[i], p[i], p[nd + i], d[i]) for i in range(nd))
    win = gather_windows_nd(x, k, s, d, p[:nd], out, 0.0)
    so, sk = "pqr"[:nd], "uvw"[:nd]
    spec = f"zc{so}{sk},oc{sk}->zo{so}"
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    parts = [np.einsum(spec, win[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og]) for g in range(groups)]
    return np.concatenate(parts, axis=1)


def _draw_geometry(ctx: DrawContext, sizes: tuple[int, ...]) -> tuple[list[int], ...]:
    nd = len(sizes)
    k = [ctx.draw(st.integers(1, 3)) for _ in range(nd)]
    s = [ctx.draw(st.sampled_from((1, 1, 2, 3))) for _ in range(nd)]
    d = [ctx.draw(st.sampled_from((1, 1, 2))) for _ in range(nd)]
    p = [ctx.draw(st.sampled_from((0, 0, 1, 2))) for _ in range(2 * nd)]
    return k, s, d, p


def _draw_conv(ctx: DrawContext, first: ValueInfo, nd: int) -> Drawn | None:
    if first.rank != nd + 2 or not first.static:
        return None
    channels_last = ctx.draw(st.sampled_from((False, False, True)))
    data_layout, kernel_layout = layouts(nd, channels_last)
    shape = tuple(int(v) for v in first.shape)
    c = shape[-1] if channels_last else shape[1]
    sizes = shape[1:-1] if channels_last else shape[2:]
    kind = ctx.draw(st.sampled_from(("dense", "dense", "depthwise", "grouped")))
    groups = {"dense": 1, "depthwise": c}.get(kind) or ctx.draw(st.sampled_from(_divisors(c)))
    multiplier = ctx.draw(st.integers(1, max(1, min(3, 16 // groups))))
    k, s, d, p = _draw_geometry(ctx, sizes)
    outs = []
    for i, n in enumerate(sizes):
        if n + p[i] + p[nd + i] < d[i] * (k[i] - 1) + 1:
            k[i], d[i] = min(k[i], n), 1  # the kernel must fit the padded input
        outs.append(window_out_size(n, k[i], s[i], p[i], p[nd + i], d[i]))
    per_channel = shape[0] * math.prod(outs)
    multiplier = min(multiplier, ctx.max_elems // (groups * per_channel))
    if multiplier < 1:
        return None
    out_c = groups * multiplier
    out_shape = (shape[0], *outs, out_c) if channels_last else (shape[0], out_c, *outs)
    terms = (c // groups) * math.prod(k)
    p_lo, p_hi = interval_mul((first.lo, first.hi), (-1.0, 1.0))
    lo, hi = terms * min(p_lo, 0.0), terms * max(p_hi, 0.0)  # padding contributes zeros
    if max(abs(lo), abs(hi)) > ctx.limit or not ctx.fits(out_shape):
        return None
    w_shape = (*k, c // groups, out_c) if channels_last else (out_c, c // groups, *k)
    weight = ctx.fresh(w_shape, -1.0, 1.0)
    attrs = {"strides": tuple(s), "padding": tuple(p), "dilation": tuple(d), "groups": groups,
             "data_layout": data_layout, "kernel_layout": kernel_layout}
    return Drawn((first.vid, weight), attrs, out_shape, lo, hi)


def _build_conv(name: str) -> Any:
    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        return getattr(relax_ops().nn, name)(
            args[0], args[1], strides=list(attrs["strides"]), padding=list(attrs["padding"]),
            dilation=list(attrs["dilation"]), groups=attrs["groups"], data_layout=attrs["data_layout"],
            kernel_layout=attrs["kernel_layout"])

    return build


def _reference_conv(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    x, w = args
    dl, kl = attrs["data_layout"], attrs["kernel_layout"]

    def conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _from_channels_first(conv_nd(_to_channels_first(a, dl), _to_channels_first(b, kl), attrs), dl)

    terms = math.prod(_to_channels_first(w.v, kl).shape[1:])
    return Approx(conv(x.v, w.v), contraction_error(conv, x.v, x.e, w.v, w.e, terms, u))


def _conv_forms(nd: int) -> tuple[str, ...]:
    layouts_drawn = [layouts(nd, last) for last in (False, True)]
    return declared(f"data_layout={'|'.join(d for d, _ in layouts_drawn)}; kernel_layout={'|'.join(k for _, k in layouts_drawn)}; "
                    + _CONV_FORMS)


# (a transposed convolution is drawn channels-first only)
_CONV_FORMS = "strides has 1|pos; padding has 0|1|pos; dilation has 1|pos; groups=1|pos"
_TRANSPOSE_FORMS = declared(_CONV_FORMS + "; output_padding has 0|1|pos")


for _nd in (1, 3):
    register_op(OpSpec(f"conv{_nd}d", f"relax.nn.conv{_nd}d", "conv",
                       nonempty(lambda ctx, first, nd=_nd: _draw_conv(ctx, first, nd)), _build_conv(f"conv{_nd}d"),
                       _reference_conv, dtypes=FLOATS, tags=frozenset({"conv"}), forms=_conv_forms(_nd)))


# -- transposed convolution ------------------------------------------------------------------------

def transpose_out_size(n: int, k: int, s: int, pad_lo: int, pad_hi: int, d: int, out_pad: int) -> int:
    return (n - 1) * s - pad_lo - pad_hi + d * (k - 1) + 1 + out_pad


def conv_transpose_nd(x: np.ndarray, w: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """Transposed convolution in float64, NC* data and IO* weights (C_in, C_out / groups, *k):
    every input element scatters ``x * w`` to positions ``i s - pad_lo + r d``."""
    nd = x.ndim - 2
    s, d, p, op, groups = (attrs[n] for n in ("strides", "dilation", "padding", "output_padding", "groups"))
    k, n_in = w.shape[2:], x.shape[2:]
    full = tuple((n_in[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 + op[i] for i in range(nd))
    cg, og = x.shape[1] // groups, w.shape[1]
    buf = np.zeros((x.shape[0], groups * og) + full)
    for r in itertools.product(*(range(kk) for kk in k)):
        contrib = np.concatenate([np.einsum("nc...,co->no...", x[:, g * cg:(g + 1) * cg],
                                            w[(slice(g * cg, (g + 1) * cg), slice(None)) + r])
                                  for g in range(groups)], axis=1)
        where = tuple(slice(r[i] * d[i], r[i] * d[i] + (n_in[i] - 1) * s[i] + 1, s[i]) for i in range(nd))
        buf[(slice(None), slice(None)) + where] += contrib
    out = tuple(transpose_out_size(n_in[i], k[i], s[i], p[i], p[nd + i], d[i], op[i]) for i in range(nd))
    return buf[(slice(None), slice(None)) + tuple(slice(p[i], p[i] + out[i]) for i in range(nd))]


def _draw_conv_transpose(ctx: DrawContext, first: ValueInfo, nd: int) -> Drawn | None:
    if first.rank != nd + 2 or not first.static:
        return None
    shape = tuple(int(v) for v in first.shape)
    c = shape[1]
    groups = ctx.draw(st.sampled_from([1, 1] + _divisors(c)))
    og = ctx.draw(st.integers(1, max(1, min(3, 16 // groups))))
    k, s, d, p = _draw_geometry(ctx, shape[2:])
    op = [ctx.draw(st.integers(0, s[i] - 1)) for i in range(nd)]  # Relax: output_padding < strides
    outs = []
    for i, n in enumerate(shape[2:]):
        full = (n - 1) * s[i] + d[i] * (k[i] - 1) + 1 + op[i]
        # the padding crops the full output: keep at least one element
        while p[i] + p[nd + i] >= full:
            p[i], p[nd + i] = p[i] // 2, p[nd + i] // 2
        outs.append(transpose_out_size(n, k[i], s[i], p[i], p[nd + i], d[i], op[i]))
    out_shape = (shape[0], groups * og, *outs)
    if not ctx.fits(out_shape):
        return None
    terms = (c // groups) * math.prod(k)  # at most: an output meets fewer kernel taps with strides
    p_lo, p_hi = interval_mul((first.lo, first.hi), (-1.0, 1.0))
    lo, hi = terms * min(p_lo, 0.0), terms * max(p_hi, 0.0)
    if max(abs(lo), abs(hi)) > ctx.limit:
        return None
    weight = ctx.fresh((c, og, *k), -1.0, 1.0)
    attrs = {"strides": tuple(s), "padding": tuple(p), "dilation": tuple(d), "groups": groups,
             "output_padding": tuple(op)}
    return Drawn((first.vid, weight), attrs, out_shape, lo, hi)


def _build_conv_transpose(name: str) -> Any:
    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        return getattr(relax_ops().nn, name)(
            args[0], args[1], strides=list(attrs["strides"]), padding=list(attrs["padding"]),
            output_padding=list(attrs["output_padding"]), dilation=list(attrs["dilation"]),
            groups=attrs["groups"])

    return build


def _reference_conv_transpose(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    x, w = args

    def conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return conv_transpose_nd(a, b, attrs)

    terms = w.v.shape[0] // attrs["groups"] * math.prod(w.v.shape[2:])
    return Approx(conv(x.v, w.v), contraction_error(conv, x.v, x.e, w.v, w.e, terms, u))


for _nd in (1, 2, 3):
    register_op(OpSpec(f"conv{_nd}d_transpose", f"relax.nn.conv{_nd}d_transpose", "conv",
                       nonempty(lambda ctx, first, nd=_nd: _draw_conv_transpose(ctx, first, nd)),
                       _build_conv_transpose(f"conv{_nd}d_transpose"), _reference_conv_transpose,
                       dtypes=FLOATS, tags=frozenset({"conv"}), forms=_TRANSPOSE_FORMS))
