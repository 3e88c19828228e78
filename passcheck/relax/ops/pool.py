"""Pooling over the spatial axes of NCW, NCHW and NCDHW tensors: max_pool1d/2d/3d and
avg_pool1d/2d/3d with padding, dilation and ceil_mode; adaptive_avg_pool1d/2d/3d.

Semantics checked against TVM 0.27 on hundreds of random configurations (see ``windows``):
``count_include_pad`` counts window positions inside the padded extent only (not ceil_mode's
overhang), and an average over no element is 0. A max window lying entirely in padding would
return the dtype's lowest value, so generation avoids it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.bounds import gamma, underflow
from passcheck.relax.ops.drawing import nonempty, relax_ops
from passcheck.relax.ops.numeric import FLOATS
from passcheck.relax.ops.windows import gather_windows_nd, window_out_size


def _every_window_reads_input(n: int, out: int, k: int, s: int, pad_lo: int, d: int) -> bool:
    return all(any(0 <= o * s - pad_lo + r * d < n for r in range(k)) for o in range(out))


def _fit_axis(n: int, k: int, s: int, d: int, pad: tuple[int, int], ceil: bool,
              needs_input: bool) -> tuple[int, int, tuple[int, int], int]:
    """Adjust one axis' window so the pooling is valid: the (dilated) window fits the padded
    input, and with ``needs_input`` (max) every window reads a real element. Returns the
    kernel, dilation, padding and output size."""
    if n + pad[0] + pad[1] < d * (k - 1) + 1:
        k, d = min(k, n), 1
    # (the kernel is fitted first: a kernel shrunk afterwards could leave a window in the padding)
    if needs_input:
        out = window_out_size(n, k, s, pad[0], pad[1], d, ceil)
        if out < 1 or not _every_window_reads_input(n, out, k, s, pad[0], d):
            pad = (0, 0)  # without padding every window starts inside the input (ceil_mode too)
            if n < d * (k - 1) + 1:
                k, d = min(k, n), 1
    return k, d, pad, window_out_size(n, k, s, pad[0], pad[1], d, ceil)


def _draw_pool(ctx: DrawContext, first: ValueInfo, *, avg: bool, nd: int) -> Drawn | None:
    if first.rank != nd + 2 or not first.static:
        return None
    k = [ctx.draw(st.integers(1, 3)) for _ in range(nd)]
    s = tuple(ctx.draw(st.integers(1, 3)) for _ in range(nd))
    d = [ctx.draw(st.sampled_from((1, 1, 2))) for _ in range(nd)]
    p = [ctx.draw(st.sampled_from((0, 0, 1, 2))) for _ in range(2 * nd)]
    ceil = ctx.draw(st.booleans())
    outs = []
    for axis in range(nd):
        k[axis], d[axis], (p[axis], p[nd + axis]), out = _fit_axis(
            int(first.shape[2 + axis]), k[axis], s[axis], d[axis], (p[axis], p[nd + axis]), ceil,
            needs_input=not avg)
        outs.append(out)
    shape = (first.shape[0], first.shape[1], *outs)
    attrs: dict[str, Any] = {"pool_size": tuple(k), "strides": s, "padding": tuple(p), "dilation": tuple(d),
                             "ceil_mode": ceil}
    lo, hi = first.lo, first.hi
    if avg:
        # the running window sum (in the dtype) reaches prod(k) |x|
        if math.prod(k) * first.bound > ctx.limit:
            return None
        attrs["count_include_pad"] = ctx.draw(st.booleans())
        if any(p) or ceil:
            lo, hi = min(lo, 0.0), max(hi, 0.0)  # padding zeros, empty windows
    return Drawn((first.vid,), attrs, shape, lo, hi)


def _out_size(x: np.ndarray, attrs: dict[str, Any]) -> tuple[int, ...]:
    k, s, d, p, ceil = (attrs[n] for n in ("pool_size", "strides", "dilation", "padding", "ceil_mode"))
    nd = len(k)
    return tuple(window_out_size(x.shape[2 + i], k[i], s[i], p[i], p[nd + i], d[i], ceil) for i in range(nd))


def _windows(a: np.ndarray, attrs: dict[str, Any], out: tuple[int, ...], fill: float,
             padding: tuple[int, ...] | None = None) -> np.ndarray:
    """(N, C, *out, *pool_size): what each output reads."""
    p = attrs["padding"] if padding is None else padding
    return gather_windows_nd(a, attrs["pool_size"], attrs["strides"], attrs["dilation"],
                             tuple(p[:len(out)]), out, fill)


def _window_axes(attrs: dict[str, Any]) -> tuple[int, ...]:
    nd = len(attrs["pool_size"])
    return tuple(range(2 + nd, 2 + 2 * nd))


def _reference_max(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    out, axes = _out_size(x.v, attrs), _window_axes(attrs)
    v = _windows(x.v, attrs, out, -np.inf).max(axis=axes)
    # max is exact; an input error moves the max by at most the window's largest error
    e = _windows(x.e, attrs, out, 0.0).max(axis=axes)
    return Approx(v, np.where(np.isnan(v), np.inf, e))  # (a window holding NaN: as max's, unknown)


def _reference_avg(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    p = attrs["padding"]
    nd = len(attrs["pool_size"])
    out, axes = _out_size(x.v, attrs), _window_axes(attrs)
    total = _windows(x.v, attrs, out, 0.0).sum(axis=axes)
    abs_total = _windows(np.abs(x.v) + x.e, attrs, out, 0.0).sum(axis=axes)
    err_total = _windows(x.e, attrs, out, 0.0).sum(axis=axes)
    if attrs["count_include_pad"]:
        # positions inside the padded extent count; ceil_mode's overhang beyond it does not
        extent = np.ones((1, 1) + tuple(p[i] + x.v.shape[2 + i] + p[nd + i] for i in range(nd)))
        cnt = _windows(extent, attrs, out, 0.0, padding=(0,) * (2 * nd))
    else:
        cnt = _windows(np.ones((1, 1) + x.v.shape[2:]), attrs, out, 0.0)
    cnt = np.maximum(cnt.sum(axis=axes), 1.0)
    v = total / cnt
    terms = math.prod(attrs["pool_size"])  # TVM sums the whole window, padding zeros included
    e = (err_total + gamma(terms - 1, u) * abs_total + terms * underflow(u)) / cnt
    # the count is exact in the dtype; the division rounds once
    return Approx(v, e + u * np.abs(v) + underflow(u))


def _pool(name: str, *, avg: bool, nd: int) -> OpSpec:
    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        return _draw_pool(ctx, first, avg=avg, nd=nd)

    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        kw = {n: list(attrs[n]) for n in ("pool_size", "strides", "padding", "dilation")}
        if avg:
            kw["count_include_pad"] = attrs["count_include_pad"]
        return getattr(relax_ops().nn, name)(args[0], ceil_mode=attrs["ceil_mode"], **kw)

    # pattern: TVM's AnnotateTIROpPattern marks legalized pools out-ewise-fusable, like conv2d
    return register_op(OpSpec(name, f"relax.nn.{name}", "conv", nonempty(draw), build,
                              _reference_avg if avg else _reference_max, dtypes=FLOATS,
                              tags=frozenset({"pool"}), forms=declared(
                                  "pool_size has 1|pos; strides has 1|pos; padding has 0|1|pos; dilation has 1|pos; "
                                  "ceil_mode=true|false" + ("; count_include_pad=true|false" if avg else ""))))


for _nd in (1, 2, 3):
    _pool(f"max_pool{_nd}d", avg=False, nd=_nd)
    _pool(f"avg_pool{_nd}d", avg=True, nd=_nd)


# -- adaptive average pooling ----------------------------------------------------------------------

def _bins(n: int, out: int) -> np.ndarray:
    """(out, n) indicator of the inputs each output averages: [floor(i n / out), ceil((i + 1) n / out))."""
    m = np.zeros((out, n))
    for i in range(out):
        m[i, (i * n) // out:-((-(i + 1) * n) // out)] = 1.0
    return m


def _draw_adaptive(ctx: DrawContext, first: ValueInfo, nd: int) -> Drawn | None:
    if first.rank != nd + 2 or not first.static:
        return None
    # smaller, equal or (overlapping bins) larger than the input
    out = tuple(ctx.draw(st.integers(1, int(n) + 1)) for n in first.shape[2:])
    shape = (first.shape[0], first.shape[1], *out)
    widest = math.prod(-(-int(n) // o) + 1 for n, o in zip(first.shape[2:], out))
    if widest * first.bound > ctx.limit or not ctx.fits(shape):
        return None
    return Drawn((first.vid,), {"output_size": out}, shape, first.lo, first.hi)


def _along_bins(a: np.ndarray, mats: list[np.ndarray]) -> np.ndarray:
    for i, m in enumerate(mats):
        a = np.moveaxis(np.tensordot(a, m, axes=([2 + i], [1])), -1, 2 + i)
    return a


def _reference_adaptive(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    mats = [_bins(n, o) for n, o in zip(x.v.shape[2:], attrs["output_size"])]
    cnt = _along_bins(np.ones((1, 1) + x.v.shape[2:]), mats)
    v = _along_bins(x.v, mats) / cnt
    # a sum of cnt terms in the dtype, then a division (or a product by the reciprocal: 2 roundings)
    terms = int(cnt.max())
    e = (_along_bins(x.e, mats) + gamma(terms - 1, u) * _along_bins(np.abs(x.v) + x.e, mats)
         + terms * underflow(u)) / cnt
    return Approx(v, e + 2.0 * u * np.abs(v) + 2.0 * underflow(u))


for _nd in (1, 2, 3):
    register_op(OpSpec(f"adaptive_avg_pool{_nd}d", f"relax.nn.adaptive_avg_pool{_nd}d", "conv",
                       nonempty(lambda ctx, first, nd=_nd: _draw_adaptive(ctx, first, nd)),
                       lambda args, attrs, nd=_nd: getattr(relax_ops().nn, f"adaptive_avg_pool{nd}d")(
                           args[0], output_size=list(attrs["output_size"])),
                       _reference_adaptive, dtypes=FLOATS, tags=frozenset({"pool"}), forms=declared("output_size has 1|pos")))
