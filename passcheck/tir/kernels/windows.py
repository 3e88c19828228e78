"""Sliding-window kinds on NCHW images: conv2d and pool (max or avg), each with an optional
padding stage of its own in front.

The builder is ``tb`` here: ``b`` names the batch loop (TE names block iterators after the
compute's parameters, and the built PrimFunc must stay the same)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.tir.kernels.spec import EXTENTS, PrimFuncSpec, Shaped, StageInfo, register_kind
from passcheck.tir.kernels.te_builder import TeBuilder, TeKind

SMALL_EXTENTS = (1, 2, 3, 4, 5, 7, 8)


def out_extent(size: int, k: int, stride: int, dil: int, pad: int) -> int:
    """Output extent of a window of ``k`` taps (dilation ``dil``) over ``size`` padded by ``pad`` each side."""
    return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1


def _padded(tb: TeBuilder, src: Any, shape: list[Any], ph: int, pw: int, value: float) -> tuple[Any, list[Any]]:
    """The NCHW input padded by (ph, pw) on both sides of H and W (a stage of its own)."""
    if not (ph or pw):
        return src, shape
    nb, c, h, w = shape
    ps = [nb, c, h + tb.i(2 * ph), w + tb.i(2 * pw)]

    def fn(b: Any, ch: Any, y: Any, z: Any) -> Any:
        cond = tb.tirx.all(
            y >= tb.i(ph), y < h + tb.i(ph), z >= tb.i(pw), z < w + tb.i(pw)
        )
        return tb.tirx.if_then_else(cond, src[b, ch, y - tb.i(ph), z - tb.i(pw)], tb.f(value))

    return tb.compute(ps, fn, "pad"), ps


@register_kind
class Conv2d(TeKind):
    """NCHW input ``X``, OIHW weights ``W``; stride, dilation and symmetric zero padding."""

    name = "conv2d"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        nb = draw(st.sampled_from((1, 2, 3)))
        c = draw(st.sampled_from(SMALL_EXTENTS[:5]))
        h, w = draw(st.sampled_from(EXTENTS[2:])), draw(st.sampled_from(EXTENTS[2:]))
        kh, kw = draw(st.sampled_from((1, 2, 3))), draw(st.sampled_from((1, 2, 3)))
        stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        pad = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
        o = draw(st.sampled_from((1, 2, 3, 4)))
        attrs = (("out_channels", o), ("kernel", (kh, kw)), ("stride", stride), ("dilation", dil), ("padding", pad))
        return (nb, c, h, w), attrs

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        core = [StageInfo("pad", "SSSS")] if any(spec.attr["padding"]) else []
        return [*core, StageInfo("conv", "SSSSRRR")]

    def compute(self, tb: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        a = tb.a
        _, c, h, w = tb.spec.shape
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = a["kernel"], a["stride"], a["dilation"], a["padding"]
        o = a["out_channels"]
        wt = tb.placeholder([tb.i(o), tb.i(c), tb.i(kh), tb.i(kw)], "W")
        p, _ = _padded(tb, src, shape, ph, pw, 0.0)
        oh, ow = out_extent(h, kh, sh, dh, ph), out_extent(w, kw, sw, dw, pw)
        rc, ry, rx = tb.raxis(tb.i(c), "rc"), tb.raxis(tb.i(kh), "ry"), tb.raxis(tb.i(kw), "rx")

        def fn(b: Any, oc: Any, y: Any, z: Any) -> Any:
            return tb.te.sum(
                p[b, rc, y * tb.i(sh) + ry * tb.i(dh), z * tb.i(sw) + rx * tb.i(dw)] * wt[oc, rc, ry, rx],
                axis=[rc, ry, rx],
            )

        return [x, wt], tb.compute([shape[0], tb.i(o), tb.i(oh), tb.i(ow)], fn, "conv")

    def valid(self, spec: PrimFuncSpec) -> bool:
        a = spec.attr
        _, _, h, w = spec.shape
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = a["kernel"], a["stride"], a["dilation"], a["padding"]
        return out_extent(h, kh, sh, dh, ph) >= 1 and out_extent(w, kw, sw, dw, pw) >= 1

    def iteration_points(self, spec: PrimFuncSpec) -> int:
        kh, kw = spec.attr["kernel"]
        return int(np.prod(spec.shape)) * spec.attr["out_channels"] * kh * kw

    def reduction_length(self, spec: PrimFuncSpec) -> int:
        kh, kw = spec.attr["kernel"]
        return spec.shape[1] * kh * kw


@register_kind
class Pool(TeKind):
    """Max or avg pooling (avg: a sum block, then a scaling block); TOPI-style padding that is
    smaller than the window, padded with the lowest float for max."""

    name = "pool"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        nb = draw(st.sampled_from((1, 2)))
        c = draw(st.sampled_from(SMALL_EXTENTS[:5]))
        h, w = draw(st.sampled_from(EXTENTS[2:])), draw(st.sampled_from(EXTENTS[2:]))
        kh, kw = draw(st.sampled_from((1, 2, 3))), draw(st.sampled_from((1, 2, 3)))
        stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        # TOPI-style: padding smaller than the window, so no window is padding only.
        pad = (draw(st.integers(0, kh - 1)), draw(st.integers(0, kw - 1)))
        attrs = (("op", draw(st.sampled_from(("max", "avg")))), ("kernel", (kh, kw)), ("stride", stride), ("padding", pad))
        return (nb, c, h, w), attrs

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        core = [StageInfo("pad", "SSSS")] if any(spec.attr["padding"]) else []
        core.append(StageInfo("pool", "SSSSRR"))
        if spec.attr["op"] == "avg":
            core.append(StageInfo("avg", "SSSS"))
        return core

    def compute(self, tb: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        a = tb.a
        _, _, h, w = tb.spec.shape
        (kh, kw), (sh, sw), (ph, pw) = a["kernel"], a["stride"], a["padding"]
        is_max = a["op"] == "max"
        pad_value = float(np.finfo(tb.dtype).min) if is_max else 0.0
        p, _ = _padded(tb, src, shape, ph, pw, pad_value)
        oh, ow = out_extent(h, kh, sh, 1, ph), out_extent(w, kw, sw, 1, pw)
        ry, rx = tb.raxis(tb.i(kh), "ry"), tb.raxis(tb.i(kw), "rx")
        red = tb.te.max if is_max else tb.te.sum
        out_shape = [shape[0], shape[1], tb.i(oh), tb.i(ow)]
        pool = tb.compute(
            out_shape,
            lambda b, ch, y, z: red(p[b, ch, y * tb.i(sh) + ry, z * tb.i(sw) + rx], axis=[ry, rx]),
            "pool",
        )
        if is_max:
            return [x], pool
        inv = 1.0 / (kh * kw)
        return [x], tb.compute(out_shape, lambda *ix: pool(*ix) * tb.f(inv), "avg")

    def valid(self, spec: PrimFuncSpec) -> bool:
        a = spec.attr
        _, _, h, w = spec.shape
        (kh, kw), (sh, sw), (ph, pw) = a["kernel"], a["stride"], a["padding"]
        return out_extent(h, kh, sh, 1, ph) >= 1 and out_extent(w, kw, sw, 1, pw) >= 1

    def iteration_points(self, spec: PrimFuncSpec) -> int:
        kh, kw = spec.attr["kernel"]
        return int(np.prod(spec.shape)) * kh * kw

    def reduction_length(self, spec: PrimFuncSpec) -> int:
        kh, kw = spec.attr["kernel"]
        return kh * kw
