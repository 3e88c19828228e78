"""Reductions over a drawn set of axes: sum and mean (TOPI: one running sum, then a division)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, register_op
from passcheck.relax.ops.bounds import sum_error, underflow
from passcheck.relax.ops.drawing import count_range, draw_axes, normalize_axes, relax_ops, spelled_axis


def _draw_reduction(ctx: DrawContext, first: ValueInfo, *, mean: bool) -> Drawn | None:
    if first.rank == 0:
        return None
    if ctx.draw(st.integers(0, 5)) == 0:
        axes, spelled = tuple(range(first.rank)), None  # axis=None: reduce everything
    else:
        axes = draw_axes(ctx, first.rank)
        spelled = [spelled_axis(ctx, a, first.rank) for a in axes]
    keepdims = ctx.draw(st.booleans())
    k_min, k_max = count_range(first.shape, axes)
    if mean:
        # the running sum (in the graph's dtype) reaches k |x| before the division
        if k_max * first.bound > ctx.limit:
            return None
        lo, hi = first.lo, first.hi
    else:
        lo = min(k_min * first.lo, k_max * first.lo)
        hi = max(k_min * first.hi, k_max * first.hi)
    shape = tuple(1 if i in axes else d for i, d in enumerate(first.shape) if keepdims or i not in axes)
    return Drawn((first.vid,), {"axis": spelled, "keepdims": keepdims}, shape, lo, hi)


def _reduction(name: str, *, mean: bool) -> OpSpec:
    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        return _draw_reduction(ctx, first, mean=mean)

    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        axis = attrs["axis"]
        return getattr(relax_ops(), name)(args[0], axis=None if axis is None else list(axis),
                                          keepdims=attrs["keepdims"])

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        (a,) = args
        axes = normalize_axes(attrs["axis"], a.v.ndim)
        keep = bool(attrs["keepdims"])
        k = math.prod(a.v.shape[i] for i in axes)
        v = np.sum(a.v, axis=axes, keepdims=keep)
        e = sum_error(np.abs(a.v), a.e, axes, k, u, keep)
        if mean:
            v = v / max(k, 1)
            # the count is exact in the dtype; the division rounds once
            e = e / max(k, 1) + u * np.abs(v) + underflow(u)
        return Approx(np.asarray(v, dtype=np.float64), np.asarray(e, dtype=np.float64))

    # pattern as AnnotateTIROpPattern sees the legalized kernel: mean's division after the
    # reduction makes it out-ewise-fusable ("conv"), sum is a plain commutative reduction
    return register_op(OpSpec(name, f"relax.{name}", "conv" if mean else "reduce", draw, build, reference,
                              symbolic=True, tags=frozenset({"reduce"})))


_reduction("sum", mean=False)
_reduction("mean", mean=True)
