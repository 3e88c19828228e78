"""Where a block is computed: compute_at, reverse_compute_at, compute_inline,
reverse_compute_inline."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import draw_bool, not_output, pick_loop, pick_stage
from passcheck.tir.schedule.registry import Primitive, register_primitive
from passcheck.tir.schedule.step import Step, get_block, loop_at, name_of
from passcheck.tir.schedule.view import View


def _draw_compute_at(draw: st.DrawFn, view: View) -> Step:
    prod = pick_stage(draw, view, not_output)
    i = view.index(prod.name)
    target = pick_stage(draw, view, lambda j, s: j > i)
    return Step("compute_at", prod.name, (pick_loop(draw, target),),
                (("target", target.name), ("preserve_unit_loops", draw_bool(draw)),
                 ("index", draw(st.sampled_from((-1, -1, 0, -2))))))


def _draw_reverse_compute_at(draw: st.DrawFn, view: View) -> Step:
    cons = pick_stage(draw, view, lambda j, s: j > 0)
    i = view.index(cons.name)
    target = pick_stage(draw, view, lambda j, s: j < i)
    return Step("reverse_compute_at", cons.name, (pick_loop(draw, target),),
                (("target", target.name), ("preserve_unit_loops", draw_bool(draw)),
                 ("index", draw(st.sampled_from((-1, -1, 0, -2))))))


def _at_apply(method: str) -> Callable[[Any, Step], str]:
    def apply_at(sch: Any, step: Step) -> str:
        a = step.arg
        b = get_block(sch, step.block)
        tb = get_block(sch, a["target"])
        loop = loop_at(sch, tb, step.loops[0])
        lname = name_of(sch, loop)
        getattr(sch, method)(b, loop, preserve_unit_loops=a.get("preserve_unit_loops", False),
                             index=a.get("index", -1))
        return (f"sch.{method}({step.block!r}, {lname!r} of {a['target']!r}, "
                f"preserve_unit_loops={a.get('preserve_unit_loops', False)}, index={a.get('index', -1)})")

    return apply_at


register_primitive(Primitive("compute_at", _draw_compute_at, _at_apply("compute_at"),
                             "move a producer under a consumer's loop"))
register_primitive(Primitive("reverse_compute_at", _draw_reverse_compute_at, _at_apply("reverse_compute_at"),
                             "move a consumer under a producer's loop"))


def _drop(v: View, s: Step) -> View:
    return View(tuple(x for x in v.stages if x.name != s.block))


def _draw_compute_inline(draw: st.DrawFn, view: View) -> Step:
    return Step("compute_inline", pick_stage(draw, view, lambda j, s: not s.output and not s.is_reduction).name)


def _apply_compute_inline(sch: Any, step: Step) -> str:
    sch.compute_inline(get_block(sch, step.block))
    return f"sch.compute_inline({step.block!r})"


register_primitive(Primitive("compute_inline", _draw_compute_inline, _apply_compute_inline,
                             "inline a producer into its consumers", update=_drop))


def _draw_reverse_compute_inline(draw: st.DrawFn, view: View) -> Step:
    return Step("reverse_compute_inline", pick_stage(draw, view, lambda j, s: j > 0 and not s.is_reduction).name)


def _apply_reverse_compute_inline(sch: Any, step: Step) -> str:
    sch.reverse_compute_inline(get_block(sch, step.block))
    return f"sch.reverse_compute_inline({step.block!r})"


register_primitive(Primitive("reverse_compute_inline", _draw_reverse_compute_inline, _apply_reverse_compute_inline,
                             "inline a consumer into its producer", update=_drop))
