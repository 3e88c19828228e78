"""Reductions restructured: rfactor, decompose_reduction."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.kernels import StageInfo
from passcheck.tir.schedule.drawing import pick_loop, pick_stage, reduction
from passcheck.tir.schedule.registry import REDUCING, Primitive, register_primitive
from passcheck.tir.schedule.step import Step, get_block, loop_at, name_of
from passcheck.tir.schedule.view import View


def _draw_rfactor(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    return Step("rfactor", s.name, (pick_loop(draw, s, "R"),),
                (("factor_axis", draw(st.integers(0, max(0, s.n_spatial)))),))


def _add_rf(v: View, s: Step) -> View:
    i = v.index(s.block)
    if i < 0:
        return v
    base = v.stages[i]
    rf = StageInfo(s.block + "_rf", base.iters)
    return View(v.stages[:i] + (rf,) + v.stages[i:])


def _apply_rfactor(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.rfactor(loop, step.arg["factor_axis"])
    return f"sch.rfactor({lname!r} of {step.block!r}, factor_axis={step.arg['factor_axis']})"


register_primitive(Primitive("rfactor", _draw_rfactor, _apply_rfactor,
                             "factor a reduction loop into a partial-result block", kinds=REDUCING,
                             reassociates=True, update=_add_rf))


def _draw_decompose_reduction(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    return Step("decompose_reduction", s.name, (pick_loop(draw, s, "R"),))


def _apply_decompose_reduction(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.decompose_reduction(b, loop)
    return f"sch.decompose_reduction({step.block!r}, {lname!r})"


register_primitive(Primitive("decompose_reduction", _draw_decompose_reduction, _apply_decompose_reduction,
                             "separate a reduction's init block", kinds=REDUCING))
