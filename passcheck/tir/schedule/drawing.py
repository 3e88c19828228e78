"""Helpers that primitives' draws share: which block, which loop, which factors.

A draw's sequence of Hypothesis calls is what a seed replays: change a helper here and every
primitive that uses it draws different examples.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from passcheck.tir.kernels import StageInfo
from passcheck.tir.schedule.view import View

FACTORS = (1, 2, 3, 4, 5, 7, 8, 16)
SCOPES = ("global", "local")
LOOP_INDEX = st.integers(0, 7)


def pick_stage(draw: st.DrawFn, view: View, pred: Callable[[int, StageInfo], bool] | None = None) -> StageInfo:
    """A block satisfying ``pred``; any block when none does."""
    pool = view.where(pred) if pred else []
    return draw(st.sampled_from(pool or list(view.stages)))


def draw_bool(draw: st.DrawFn) -> bool:
    return draw(st.booleans())


def draw_factors(draw: st.DrawFn) -> tuple[int | None, ...]:
    n = draw(st.integers(2, 3))
    fs: list[int | None] = [draw(st.sampled_from(FACTORS)) for _ in range(n)]
    if draw(st.integers(0, 4)) > 0:  # mostly one inferred factor, sometimes all explicit
        fs[draw(st.integers(0, n - 1))] = None
    return tuple(fs)


def not_output(i: int, s: StageInfo) -> bool:
    return not s.output


def reduction(i: int, s: StageInfo) -> bool:
    return s.is_reduction


def pick_loop(draw: st.DrawFn, s: StageInfo, prefer: str | None = None) -> int:
    """A loop index, biased towards loops of the wanted kind in the original nest."""
    if prefer and prefer in s.iters and draw(st.integers(0, 3)) > 0:
        return draw(st.sampled_from([i for i, c in enumerate(s.iters) if c == prefer]))
    if prefer == "inner" and s.iters and draw(st.integers(0, 3)) > 0:
        return len(s.iters) - 1 - s.n_reduce if s.n_spatial else len(s.iters) - 1
    return draw(LOOP_INDEX)


def draw_perm(draw: st.DrawFn, n: int = 4) -> tuple[int, ...]:
    return tuple(draw(st.permutations(range(max(n, 2)))))
