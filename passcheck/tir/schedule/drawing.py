"""Helpers that primitives' draws share: which block, which loop, which factors.

A draw's sequence of Hypothesis calls is what a seed replays: change a helper here and every
primitive that uses it draws different examples.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import Block, View

FACTORS = (1, 2, 3, 4, 5, 7, 8, 16)
SCOPES = ("global", "local")
LOOP_INDEX = st.integers(0, 7)


def pick_stage(draw: st.DrawFn, view: View, pred: Callable[[int, Block], bool] | None = None) -> Block:
    """A block satisfying ``pred`` (any block when none does); one an earlier step made, a
    third of the time there is one: steps on what earlier steps made are what the kernel's own
    blocks never show."""
    pool = (view.where(pred) if pred else []) or list(view.stages)
    made = [s for s in pool if s.origin]
    if made and made != pool and draw(st.integers(0, 2)) == 0:
        pool = made
    return draw(st.sampled_from(pool))


def draw_by_name(draw: st.DrawFn) -> tuple[tuple[str, bool], ...]:
    """The block given by its name instead of its handle (the ``SBlockRV | str`` parameters),
    one time in four."""
    return (("by_name", True),) if draw(st.integers(0, 3)) == 0 else ()


BLOCK_FORMS = ("SBlockRV", "str (its name)")


def block_form(step: Step) -> str:
    return BLOCK_FORMS[1] if step.arg.get("by_name") else BLOCK_FORMS[0]


BUFFER_FORMS = ("index", "name", "var")
BUFFER_FORM_NAMES = {"index": "int (region index)", "name": "str (buffer name)", "var": "Var (the buffer)"}


def buffer_form(step: Step) -> str:
    return BUFFER_FORM_NAMES[step.arg.get("buffer_as", "index")]


def draw_buffer_as(draw: st.DrawFn) -> tuple[tuple[str, str], ...]:
    """A buffer given by its region index (mostly), its name, or its Var (the ``int | str |
    Var`` parameters)."""
    return (("buffer_as", draw(st.sampled_from(BUFFER_FORMS))),) if draw(st.booleans()) else ()


def draw_bool(draw: st.DrawFn) -> bool:
    return draw(st.booleans())


def draw_factors(draw: st.DrawFn) -> tuple[int | None, ...]:
    n = draw(st.integers(2, 3))
    fs: list[int | None] = [draw(st.sampled_from(FACTORS)) for _ in range(n)]
    if draw(st.integers(0, 4)) > 0:  # mostly one inferred factor, sometimes all explicit
        fs[draw(st.integers(0, n - 1))] = None
    return tuple(fs)


def not_output(i: int, s: Block) -> bool:
    return not s.output


def reduction(i: int, s: Block) -> bool:
    return s.is_reduction


def pick_loop(draw: st.DrawFn, s: Block, prefer: str | None = None) -> int:
    """A loop index, biased towards loops of the wanted kind in the block's nest as the view
    knows it now."""
    nest = s.nest
    if prefer and prefer in nest and draw(st.integers(0, 3)) > 0:
        return draw(st.sampled_from([i for i, c in enumerate(nest) if c == prefer]))
    if prefer == "inner" and nest and draw(st.integers(0, 3)) > 0:
        spatial = [i for i, c in enumerate(nest) if c == "S"]
        return spatial[-1] if spatial else len(nest) - 1
    return draw(LOOP_INDEX)


def draw_perm(draw: st.DrawFn, n: int = 4) -> tuple[int, ...]:
    return tuple(draw(st.permutations(range(max(n, 2)))))
