"""Kinds that branch: independent producers joined later, so a compute-location move has
more than one block to go to (and blocks it must not go to), and dataflow is not the order of
the blocks.

* ``branch2``: two inputs, each transformed on its own branch (1-2 stages), then combined;
* ``reduce_beside``: a reduction of ``X`` beside an elementwise branch of ``Y``, joined;
* ``fanout``: one producer read by two consumers, which are joined.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.kernels.spec import PrimFuncSpec, Shaped, StageInfo, extents, register_kind
from passcheck.tir.kernels.te_builder import TeBuilder, TeKind


def _src(spec: PrimFuncSpec) -> tuple[str, ...]:
    """What a stage reading the main input ``X`` reads among the blocks."""
    return ("pre",) if spec.prologue else ()


@register_kind
class Branch2(TeKind):
    """``join = left(X) (+|*|max) right(Y)``; each branch is ``depth`` elementwise stages."""

    name = "branch2"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        shape = draw(extents(1, 3))
        return shape, (("left", draw(st.integers(1, 2))), ("right", draw(st.integers(1, 2))),
                       ("join", draw(st.sampled_from(("add", "mul", "max")))))

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        it = "S" * len(spec.shape)
        out, prev = [], _src(spec)
        for i in range(spec.attr["left"]):
            out.append(StageInfo(f"left{i}", it, reads=prev))
            prev = (f"left{i}",)
        left = prev
        prev = ()
        for i in range(spec.attr["right"]):
            out.append(StageInfo(f"right{i}", it, reads=prev))
            prev = (f"right{i}",)
        return [*out, StageInfo("join", it, reads=(*left, *prev))]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        y = b.placeholder(shape, "Y")
        left = src
        for i in range(b.a["left"]):
            left = b.compute(shape, _scaled(b, left, 0.5 + i, 1.0), f"left{i}")
        right = y
        for i in range(b.a["right"]):
            right = b.compute(shape, _scaled(b, right, -1.0, 0.25 * (i + 1)), f"right{i}")
        op = b.a["join"]

        def join(*ix: Any) -> Any:
            if op == "add":
                return left(*ix) + right(*ix)
            if op == "mul":
                return left(*ix) * right(*ix)
            return b.te.max(left(*ix), right(*ix))

        return [x, y], b.compute(shape, join, "join")


def _scaled(b: TeBuilder, t: Any, scale: float, shift: float) -> Any:
    return lambda *ix: t(*ix) * b.f(scale) + b.f(shift)


@register_kind
class ReduceBeside(TeKind):
    """``join[i..] = sum_k X[i.., k] + side(Y)[i..]``: a reduction over the last axis of ``X``
    beside an elementwise stage of ``Y``."""

    name = "reduce_beside"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        shape = draw(extents(2, 3))
        return shape, (("op", draw(st.sampled_from(("sum", "max")))),)

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        keep = "S" * (len(spec.shape) - 1)
        return [StageInfo("red", keep + "R", reads=_src(spec)), StageInfo("side", keep, reads=()),
                StageInfo("join", keep, reads=("red", "side"))]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        keep = shape[:-1]
        y = b.placeholder(keep, "Y")
        k = b.raxis(shape[-1], "k")
        fold = b.te.sum if b.a["op"] == "sum" else b.te.max
        red = b.compute(keep, lambda *ix: fold(src(*ix, k), axis=k), "red")
        side = b.compute(keep, _scaled(b, y, 2.0, -0.5), "side")
        return [x, y], b.compute(keep, lambda *ix: red(*ix) + side(*ix), "join")

    def reduction_length(self, spec: PrimFuncSpec) -> int:
        return int(spec.shape[-1])


@register_kind
class Fanout(TeKind):
    """``p = X * 2``, read by ``a = p + 1`` and ``b = max(p, 0)``, joined as ``a * b``."""

    name = "fanout"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        return draw(extents(1, 3)), ()

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        it = "S" * len(spec.shape)
        return [StageInfo("shared", it, reads=_src(spec)), StageInfo("use0", it, reads=("shared",)),
                StageInfo("use1", it, reads=("shared",)), StageInfo("join", it, reads=("use0", "use1"))]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        p = b.compute(shape, _scaled(b, src, 2.0, 0.0), "shared")
        u0 = b.compute(shape, _scaled(b, p, 1.0, 1.0), "use0")
        u1 = b.compute(shape, lambda *ix: b.te.max(p(*ix), b.f(0.0)), "use1")
        return [x], b.compute(shape, lambda *ix: u0(*ix) * u1(*ix), "join")
