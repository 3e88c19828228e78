"""Kinds with one reduction block: reduce (sum or max over some axes) and matmul."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.tir.kernels.spec import EXTENTS, PrimFuncSpec, Shaped, StageInfo, extents, register_kind
from passcheck.tir.kernels.te_builder import TeBuilder, TeKind


@register_kind
class Reduce(TeKind):
    """``X`` reduced by ``op`` (sum or max) over the sorted ``axes``; the others are kept in order."""

    name = "reduce"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        shape = draw(extents(2, 4))
        k = draw(st.integers(1, min(3, len(shape) - 1)))
        axes = tuple(sorted(draw(st.lists(st.integers(0, len(shape) - 1), min_size=k, max_size=k, unique=True))))
        return shape, (("axes", axes), ("op", draw(st.sampled_from(("sum", "max")))))

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        n_red = len(spec.attr["axes"])
        return [StageInfo("red", "S" * (len(spec.shape) - n_red) + "R" * n_red)]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        axes = b.a["axes"]
        keep = [d for a, d in enumerate(shape) if a not in axes]
        rs = [b.raxis(shape[a], f"k{a}") for a in axes]
        red = b.te.sum if b.a["op"] == "sum" else b.te.max

        def fn(*ox: Any) -> Any:
            it = iter(ox)
            rit = iter(rs)
            ix = [next(rit) if a in axes else next(it) for a in range(len(shape))]
            return red(src(*ix), axis=rs)

        return [x], b.compute(keep, fn, "red")

    def reduction_length(self, spec: PrimFuncSpec) -> int:
        return int(np.prod([spec.shape[x] for x in spec.attr["axes"]]))


@register_kind
class Matmul(TeKind):
    """``X[m, k] @ Y[k, n]``."""

    name = "matmul"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> Shaped:
        m, k, n = (draw(st.sampled_from(EXTENTS)) for _ in range(3))
        return (m, k), (("n", n),)

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        return [StageInfo("matmul", "SSR")]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        m, k = shape
        n = b.i(b.a["n"])
        y = b.placeholder([k, n], "Y")
        r = b.raxis(k, "k")
        return [x, y], b.compute([m, n], lambda i, j: b.te.sum(src[i, r] * y[r, j], axis=r), "matmul")

    def iteration_points(self, spec: PrimFuncSpec) -> int:
        return int(np.prod(spec.shape)) * spec.attr["n"]

    def reduction_length(self, spec: PrimFuncSpec) -> int:
        return spec.shape[1]
