"""2-D pooling in NCHW: max_pool2d and avg_pool2d, with padding, dilation and ceil_mode.

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
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, register_op
from passcheck.relax.ops.bounds import gamma, underflow
from passcheck.relax.ops.drawing import relax_ops
from passcheck.relax.ops.windows import gather_windows, window_out_size


def _every_window_reads_input(n: int, out: int, k: int, s: int, pad_lo: int, d: int) -> bool:
    return all(any(0 <= o * s - pad_lo + r * d < n for r in range(k)) for o in range(out))


def _fit_axis(n: int, k: int, s: int, d: int, pad: tuple[int, int], ceil: bool,
              needs_input: bool) -> tuple[int, int, tuple[int, int], int]:
    """Adjust one axis' window so the pooling is valid: the (dilated) window fits the padded
    input, and with ``needs_input`` (max) every window reads a real element. Returns the
    kernel, dilation, padding and output size."""
    if needs_input:
        out = window_out_size(n, k, s, pad[0], pad[1], d, ceil)
        if out < 1 or not _every_window_reads_input(n, out, k, s, pad[0], d):
            pad = (0, 0)  # without padding every window starts inside the input (ceil_mode too)
    if n + pad[0] + pad[1] < d * (k - 1) + 1:
        k, d = min(k, n), 1
    return k, d, pad, window_out_size(n, k, s, pad[0], pad[1], d, ceil)


def _draw_pool(ctx: DrawContext, first: ValueInfo, *, avg: bool) -> Drawn | None:
    if first.rank != 4 or not first.static:
        return None
    k = [ctx.draw(st.integers(1, 3)), ctx.draw(st.integers(1, 3))]
    s = (ctx.draw(st.integers(1, 3)), ctx.draw(st.integers(1, 3)))
    d = [ctx.draw(st.sampled_from((1, 1, 2))), ctx.draw(st.sampled_from((1, 1, 2)))]
    p = [ctx.draw(st.sampled_from((0, 0, 1, 2))) for _ in range(4)]
    ceil = ctx.draw(st.booleans())
    outs = []
    for axis in (0, 1):
        k[axis], d[axis], (p[axis], p[axis + 2]), out = _fit_axis(
            int(first.shape[2 + axis]), k[axis], s[axis], d[axis], (p[axis], p[axis + 2]), ceil,
            needs_input=not avg)
        outs.append(out)
    shape = (first.shape[0], first.shape[1], outs[0], outs[1])
    attrs: dict[str, Any] = {"pool_size": tuple(k), "strides": s, "padding": tuple(p), "dilation": tuple(d),
                             "ceil_mode": ceil}
    lo, hi = first.lo, first.hi
    if avg:
        # the running window sum (in the dtype) reaches k0 k1 |x|
        if k[0] * k[1] * first.bound > ctx.limit:
            return None
        attrs["count_include_pad"] = ctx.draw(st.booleans())
        if any(p) or ceil:
            lo, hi = min(lo, 0.0), max(hi, 0.0)  # padding zeros, empty windows
    return Drawn((first.vid,), attrs, shape, lo, hi)


def _out_hw(x: np.ndarray, attrs: dict[str, Any]) -> tuple[int, int]:
    k, s, d, p, ceil = (attrs[n] for n in ("pool_size", "strides", "dilation", "padding", "ceil_mode"))
    return (window_out_size(x.shape[2], k[0], s[0], p[0], p[2], d[0], ceil),
            window_out_size(x.shape[3], k[1], s[1], p[1], p[3], d[1], ceil))


def _windows(a: np.ndarray, attrs: dict[str, Any], out_hw: tuple[int, int], fill: float,
             padding: tuple[int, int, int, int] | None = None) -> np.ndarray:
    return gather_windows(a, attrs["pool_size"], attrs["strides"], attrs["dilation"],
                          attrs["padding"] if padding is None else padding, out_hw, fill)


def _reference_max(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    hw = _out_hw(x.v, attrs)
    v = _windows(x.v, attrs, hw, -np.inf).max(axis=(4, 5))
    # max is exact; an input error moves the max by at most the window's largest error
    e = _windows(x.e, attrs, hw, 0.0).max(axis=(4, 5))
    return Approx(v, e)


def _reference_avg(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    p = attrs["padding"]
    hw = _out_hw(x.v, attrs)
    total = _windows(x.v, attrs, hw, 0.0).sum(axis=(4, 5))
    abs_total = _windows(np.abs(x.v) + x.e, attrs, hw, 0.0).sum(axis=(4, 5))
    err_total = _windows(x.e, attrs, hw, 0.0).sum(axis=(4, 5))
    if attrs["count_include_pad"]:
        # positions inside the padded extent count; ceil_mode's overhang beyond it does not
        extent = np.ones((1, 1, p[0] + x.v.shape[2] + p[2], p[1] + x.v.shape[3] + p[3]))
        cnt = _windows(extent, attrs, hw, 0.0, padding=(0, 0, 0, 0))
    else:
        cnt = _windows(np.ones((1, 1) + x.v.shape[2:]), attrs, hw, 0.0)
    cnt = np.maximum(cnt.sum(axis=(4, 5)), 1.0)
    v = total / cnt
    terms = math.prod(attrs["pool_size"])  # TVM sums the whole window, padding zeros included
    e = (err_total + gamma(terms - 1, u) * abs_total + terms * underflow(u)) / cnt
    # the count is exact in the dtype; the division rounds once
    return Approx(v, e + u * np.abs(v) + underflow(u))


def _pool(name: str, *, avg: bool) -> OpSpec:
    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        return _draw_pool(ctx, first, avg=avg)

    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        kw = {n: list(attrs[n]) for n in ("pool_size", "strides", "padding", "dilation")}
        if avg:
            kw["count_include_pad"] = attrs["count_include_pad"]
        return getattr(relax_ops().nn, name)(args[0], ceil_mode=attrs["ceil_mode"], **kw)

    # pattern: TVM's AnnotateTIROpPattern marks legalized pools out-ewise-fusable, like conv2d
    return register_op(OpSpec(name, f"relax.nn.{name}", "conv", draw, build,
                              _reference_avg if avg else _reference_max, tags=frozenset({"pool"})))


_pool("max_pool2d", avg=False)
_pool("avg_pool2d", avg=True)
