"""Kinds whose every output element reads one input element: elementwise, broadcast,
transpose, reshape, pad (no reduction; the index arithmetic is what differs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.tir.kernels.spec import PrimFuncSpec, Shaped, StageInfo, extents, register_kind
from passcheck.tir.kernels.te_builder import TeBuilder, TeKind


@register_kind
class Elementwise(TeKind):
    """A chain of ``depth`` binary stages with a second input ``Y`` of the same shape."""

    name = "elementwise"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        shape = draw(extents(1, 3))
        return shape, (("depth", draw(st.integers(1, 3))),)

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        return [StageInfo(f"ew{i}", "S" * len(spec.shape)) for i in range(spec.attr["depth"])]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        y = b.placeholder(shape, "Y")
        cur = src
        ops = (
            lambda p, ix: p(*ix) + y(*ix),
            lambda p, ix: p(*ix) * y(*ix),
            lambda p, ix: b.te.max(p(*ix), y(*ix)) - b.f(1.0),
        )

        def stage(prev: Any, op: Callable[[Any, Any], Any]) -> Callable[..., Any]:
            return lambda *ix: op(prev, ix)

        for d in range(b.a["depth"]):
            cur = b.compute(shape, stage(cur, ops[d % len(ops)]), f"ew{d}")
        return [x, y], cur


@register_kind
class Broadcast(TeKind):
    """``X * Y`` where ``Y`` has extent 1 in the dims ``bdims`` marks."""

    name = "broadcast"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        shape = draw(extents(1, 3))
        mask = tuple(draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape))))
        return shape, (("bdims", mask),)

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        return [StageInfo("bcast", "S" * len(spec.shape))]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        mask = b.a["bdims"]  # True where Y has extent 1
        y_shape = [b.i(1) if m else d for m, d in zip(mask, shape, strict=True)]
        y = b.placeholder(y_shape, "Y")
        zero = b.i(0)

        def fn(*ix: Any) -> Any:
            return src(*ix) * y(*[zero if m else v for m, v in zip(mask, ix, strict=True)])

        return [x, y], b.compute(shape, fn, "bcast")


@register_kind
class Transpose(TeKind):
    """``X`` with its dims permuted by ``perm``."""

    name = "transpose"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        shape = draw(extents(2, 3))
        perm = tuple(draw(st.permutations(range(len(shape)))))
        return shape, (("perm", perm),)

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        return [StageInfo("transpose", "S" * len(spec.shape))]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        perm = b.a["perm"]
        out_shape = [shape[p] for p in perm]

        def fn(*ox: Any) -> Any:
            ix = [None] * len(perm)
            for o, p in enumerate(perm):
                ix[p] = ox[o]
            return src(*ix)

        return [x], b.compute(out_shape, fn, "transpose")


@register_kind
class Reshape(TeKind):
    """``X`` read row-major into ``out_shape`` (2 or 3 dims) through flat-index div/mod."""

    name = "reshape"
    symbolic = False  # the index arithmetic needs static sizes

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        shape = draw(extents(1, 3))
        total = int(np.prod(shape))
        divisors = [d for d in range(1, total + 1) if total % d == 0]
        first = draw(st.sampled_from(divisors))
        rest = total // first
        divisors2 = [d for d in range(1, rest + 1) if rest % d == 0]
        second = draw(st.sampled_from(divisors2))
        out = (first, second, rest // second) if draw(st.booleans()) else (first, rest)
        return shape, (("out_shape", out),)

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        return [StageInfo("reshape", "S" * len(spec.attr["out_shape"]))]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        in_shape = [int(s) for s in b.spec.shape]
        out_shape = b.a["out_shape"]

        def fn(*ox: Any) -> Any:
            flat = ox[0]
            for o, e in zip(ox[1:], out_shape[1:], strict=True):
                flat = flat * b.i(e) + o
            ix = []
            for e in reversed(in_shape[1:]):
                ix.append(b.tirx.floormod(flat, b.i(e)))
                flat = b.tirx.floordiv(flat, b.i(e))
            ix.append(flat)
            return src(*reversed(ix))

        return [x], b.compute([b.i(e) for e in out_shape], fn, "reshape")


@register_kind
class Pad(TeKind):
    """``X`` padded by ``pads`` (low, high) per dim, with guards only on the padded sides."""

    name = "pad"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        shape = draw(extents(1, 3))
        pads = tuple(
            (draw(st.integers(0, 3)), draw(st.integers(0, 3))) for _ in shape
        )
        return shape, (("pads", pads),)

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        return [StageInfo("pad", "S" * len(spec.shape))]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        pads = b.a["pads"]
        out_shape = [d + b.i(lo + hi) if (lo or hi) else d for d, (lo, hi) in zip(shape, pads, strict=True)]

        def fn(*ox: Any) -> Any:
            conds, ix = [], []
            for o, d, (lo, _hi) in zip(ox, shape, pads, strict=True):
                if lo:
                    conds.append(o >= b.i(lo))
                    ix.append(o - b.i(lo))
                else:
                    ix.append(o)
                if _hi:
                    conds.append(o < d + b.i(lo))
            if not conds:
                return src(*ix)
            return b.tirx.if_then_else(b.tirx.all(*conds), src(*ix), b.f(b.a.get("value", 0.0)))

        return [x], b.compute(out_shape, fn, "pad")
