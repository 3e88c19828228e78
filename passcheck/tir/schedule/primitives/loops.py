"""Loop nests reshaped: split, fuse, reorder. The split helpers also make loop_partition (in
``nests``), which takes the same arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import LOOP_INDEX, draw_bool, draw_factors, pick_loop, pick_stage
from passcheck.tir.schedule.registry import Primitive, register_primitive
from passcheck.tir.schedule.step import (
    Step,
    StepNotApplicable,
    distinct_loops,
    get_block,
    loop_at,
    loops_of,
    name_of,
)
from passcheck.tir.schedule.view import View


def split_like_draw(prim: str) -> Callable[[st.DrawFn, View], Step]:
    """The draw of ``split`` and of ``loop_partition``: a loop, 2-3 factors, unit iters kept or not."""

    def draw_split_like(draw: st.DrawFn, view: View) -> Step:
        s = pick_stage(draw, view)
        return Step(prim, s.name, (pick_loop(draw, s),), (("factors", draw_factors(draw)),
                                                          ("preserve_unit_iters", draw_bool(draw))))

    return draw_split_like


def split_like_apply(method: str) -> Callable[[Any, Step], str]:
    def apply_split_like(sch: Any, step: Step) -> str:
        a = step.arg
        b = get_block(sch, step.block)
        loop = loop_at(sch, b, step.loops[0])
        lname = name_of(sch, loop)
        factors = list(a["factors"])
        kw: dict[str, Any] = {"preserve_unit_iters": a.get("preserve_unit_iters", True)}
        if method == "split":
            kw["disable_predication"] = a.get("disable_predication", False)
        getattr(sch, method)(loop, factors, **kw)
        return (f"sch.{method}({lname!r} of {step.block!r}, factors={factors}, "
                f"{', '.join(f'{k}={v}' for k, v in kw.items())})")

    return apply_split_like


register_primitive(Primitive("split", split_like_draw("split"), split_like_apply("split"),
                             "split a loop into 2-3 loops (non-dividing factors give a predicate)"))


def _draw_fuse(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("fuse", s.name, (draw(LOOP_INDEX),), (("count", draw(st.integers(2, 3))),
                                                       ("preserve_unit_iters", draw_bool(draw))))


def _apply_fuse(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loops = loops_of(sch, b)
    start, count = step.loops[0], step.arg["count"]
    if len(loops) < count:
        raise StepNotApplicable("not enough loops to fuse")
    s = start % (len(loops) - count + 1)
    chosen = loops[s : s + count]
    names = [name_of(sch, x) for x in chosen]
    sch.fuse(*chosen, preserve_unit_iters=step.arg.get("preserve_unit_iters", True))
    return f"sch.fuse({', '.join(map(repr, names))})  # block {step.block!r}"


register_primitive(Primitive("fuse", _draw_fuse, _apply_fuse, "fuse 2-3 consecutive loops"))


def _draw_reorder(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    loops = tuple(draw(st.lists(LOOP_INDEX, min_size=2, max_size=4, unique=True)))
    return Step("reorder", s.name, loops)


def _apply_reorder(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    chosen = distinct_loops(sch, b, step.loops)
    if len(chosen) < 2:
        raise StepNotApplicable("reorder needs two distinct loops")
    names = [name_of(sch, x) for x in chosen]
    sch.reorder(*chosen)
    return f"sch.reorder({', '.join(map(repr, names))})  # block {step.block!r}"


register_primitive(Primitive("reorder", _draw_reorder, _apply_reorder, "reorder loops of one nest",
                             reassociates=True))
