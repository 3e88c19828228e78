"""Where a block is computed: compute_at, reverse_compute_at, compute_inline,
reverse_compute_inline."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import (
    BLOCK_FORMS,
    block_form,
    draw_bool,
    draw_by_name,
    pick_loop,
    pick_stage,
)
from passcheck.tir.schedule.registry import Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import Step, get_block, given_block, loop_at, name_of
from passcheck.tir.schedule.view import View

INDEX_FORMS = {-1: "-1 (last point)", -2: "-2 (first point)", 0: "0", 1: "1"}


def _draw_at(prim: str) -> Callable[[st.DrawFn, View], Step]:
    """compute_at moves a producer under a loop of a block that (directly or not) reads it,
    reverse_compute_at a consumer under a loop of a block it depends on: three times in four
    such a target, else any other block, earlier or later (TVM must refuse what it cannot do)."""
    forward = prim == "compute_at"

    def draw_at(draw: st.DrawFn, view: View) -> Step:
        if forward:
            s = pick_stage(draw, view, lambda j, x: not x.output and bool(view.downstream(x.name)))
            related = view.downstream(s.name)
        else:
            # Mostly a block with one producer: a join needs all its producers under the loop.
            one = draw(st.integers(0, 3)) > 0
            s = pick_stage(draw, view, lambda j, x: bool(view.upstream(x.name)) and (
                not one or len(view.producers(x.name)) == 1))
            related = view.upstream(s.name)
        others = [x for x in view.stages if x.name != s.name]
        near = [x for x in others if x.name in related]
        related_target = bool(near) and draw(st.integers(0, 5)) > 0
        target = draw(st.sampled_from(near if related_target else others or [s]))
        anywhere = () if target.name in related else (("anywhere", True),)
        return Step(prim, s.name, (pick_loop(draw, target),),
                    (("target", target.name), ("preserve_unit_loops", draw_bool(draw)),
                     ("index", draw(st.sampled_from((-1, -1, 0, -2, 1)))), *anywhere, *draw_by_name(draw)))

    return draw_at


def _at_update(view: View, step: Step) -> View:
    """The block moves next to its target (before it, or after it for reverse_compute_at),
    under the target's loops down to the chosen one."""
    s, t = view.get(step.block), view.get(step.arg.get("target", ""))
    if s is None or t is None or not t.nest:
        return view
    depth = step.loops[0] % len(t.nest) + 1
    moved = view.replace(s.name, loops=t.nest[:depth] + s.iters)
    return moved.move(s.name, moved.index(t.name) + (step.prim == "reverse_compute_at"))


def _at_apply(method: str) -> Callable[[Any, Step], str]:
    def apply_at(sch: Any, step: Step) -> str:
        a = step.arg
        b = get_block(sch, step.block)
        tb = get_block(sch, a["target"])
        loop = loop_at(sch, tb, step.loops[0])
        lname = name_of(sch, loop)
        getattr(sch, method)(given_block(sch, step, b), loop, preserve_unit_loops=a.get("preserve_unit_loops", False),
                             index=a.get("index", -1))
        return (f"sch.{method}({step.block!r}, {lname!r} of {a['target']!r}, "
                f"preserve_unit_loops={a.get('preserve_unit_loops', False)}, index={a.get('index', -1)})")

    return apply_at


def _at_params(method: str) -> tuple[Any, ...]:
    return (param(method, "block", *BLOCK_FORMS, form=block_form),
            param(method, "loop", "a loop of a block it feeds" if method == "compute_at" else
                  "a loop of a block it depends on", "a loop of any other block, earlier or later",
                  form=lambda s: "a loop of any other block, earlier or later" if s.arg.get("anywhere") else
                  "a loop of a block it feeds" if method == "compute_at" else "a loop of a block it depends on"),
            param(method, "preserve_unit_loops", "True", "False", form=arg_form("preserve_unit_loops")),
            param(method, "index", *INDEX_FORMS.values(), form=arg_form("index", INDEX_FORMS)))


register_primitive(Primitive("compute_at", _draw_at("compute_at"), _at_apply("compute_at"),
                             "move a producer under a consumer's loop", update=_at_update, min_stages=2,
                             params=_at_params("compute_at")))
register_primitive(Primitive("reverse_compute_at", _draw_at("reverse_compute_at"), _at_apply("reverse_compute_at"),
                             "move a consumer under a producer's loop", update=_at_update, min_stages=2,
                             params=_at_params("reverse_compute_at")))


def _drop(v: View, s: Step) -> View:
    return v.drop(s.block)


def _draw_compute_inline(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, lambda j, s: not s.output and not s.is_reduction)
    return Step("compute_inline", s.name, (), draw_by_name(draw))


def _apply_compute_inline(sch: Any, step: Step) -> str:
    sch.compute_inline(given_block(sch, step, get_block(sch, step.block)))
    return f"sch.compute_inline({step.block!r})"


register_primitive(Primitive("compute_inline", _draw_compute_inline, _apply_compute_inline,
                             "inline a producer into its consumers", update=_drop, min_stages=2,
                             params=(param("compute_inline", "block", *BLOCK_FORMS, form=block_form),)))


def _draw_reverse_compute_inline(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, lambda j, s: bool(view.producers(s.name)) and not s.is_reduction)
    return Step("reverse_compute_inline", s.name, (), draw_by_name(draw))


def _apply_reverse_compute_inline(sch: Any, step: Step) -> str:
    sch.reverse_compute_inline(given_block(sch, step, get_block(sch, step.block)))
    return f"sch.reverse_compute_inline({step.block!r})"


register_primitive(Primitive("reverse_compute_inline", _draw_reverse_compute_inline, _apply_reverse_compute_inline,
                             "inline a consumer into its producer", update=_drop, min_stages=2,
                             params=(param("reverse_compute_inline", "block", *BLOCK_FORMS, form=block_form),)))
