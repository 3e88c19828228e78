"""Draw helpers shared by the op declarations: axes, symbolic-dim bounds, the Relax op module."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from passcheck.relax.ops.base import DrawContext
from passcheck.relax.ops.bounds import SYM_MAX
from passcheck.relax.spec import Dim


def relax_ops() -> Any:
    """``tvm.relax.op``, imported lazily: declarations must load without TVM (the generator side)."""
    from tvm.relax import op as R

    return R


def dim_max(d: Dim) -> int:
    return d if isinstance(d, int) else SYM_MAX


def dim_min(d: Dim) -> int:
    return d if isinstance(d, int) else 1


def count_range(shape: tuple[Dim, ...], axes: tuple[int, ...]) -> tuple[int, int]:
    """Smallest and largest number of elements the ``axes`` of ``shape`` can span at run time."""
    return (math.prod(dim_min(shape[a]) for a in axes), math.prod(dim_max(shape[a]) for a in axes))


def spelled_axis(ctx: DrawContext, axis: int, rank: int) -> int:
    """``axis`` as written in the IR: negative half the time, since passes must normalise both."""
    return axis - rank if ctx.draw(st.booleans()) else axis


def draw_axis(ctx: DrawContext, rank: int) -> int:
    return ctx.draw(st.integers(0, rank - 1))


def draw_axes(ctx: DrawContext, rank: int, *, min_size: int = 1) -> tuple[int, ...]:
    """A sorted, non-empty set of distinct axes of a rank-``rank`` tensor."""
    mask = ctx.draw(st.lists(st.booleans(), min_size=rank, max_size=rank))
    axes = tuple(i for i, m in enumerate(mask) if m)
    if len(axes) < min_size:
        axes = (draw_axis(ctx, rank),)
    return axes


def normalize_axes(axes: Any, rank: int) -> tuple[int, ...]:
    """Axes as non-negative ints; ``None`` means all of them (the Relax convention)."""
    if axes is None:
        return tuple(range(rank))
    if isinstance(axes, int):
        axes = (axes,)
    return tuple(sorted(a % rank if rank else 0 for a in axes))


def nonempty(draw: Any) -> Any:
    """An op's ``draw`` that refuses zero-size first operands (their reference is not written)."""
    def wrapped(ctx: DrawContext, first: Any) -> Any:
        if any(d == 0 for d in first.shape):
            return None
        return draw(ctx, first)

    return wrapped
