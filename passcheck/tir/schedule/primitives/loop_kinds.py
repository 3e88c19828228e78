"""How a loop runs: vectorize, parallel, unroll, bind (to a GPU thread axis)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import pick_loop, pick_stage
from passcheck.tir.schedule.registry import Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import Step, get_block, loop_at, name_of
from passcheck.tir.schedule.view import View


def _loop_kind_draw(prim: str, prefer: str | None) -> Callable[[st.DrawFn, View], Step]:
    def draw_loop_kind(draw: st.DrawFn, view: View) -> Step:
        s = pick_stage(draw, view)
        return Step(prim, s.name, (pick_loop(draw, s, prefer),))

    return draw_loop_kind


def _loop_kind_apply(method: str) -> Callable[[Any, Step], str]:
    def apply_loop_kind(sch: Any, step: Step) -> str:
        b = get_block(sch, step.block)
        loop = loop_at(sch, b, step.loops[0])
        lname = name_of(sch, loop)
        getattr(sch, method)(loop)
        return f"sch.{method}({lname!r} of {step.block!r})"

    return apply_loop_kind


def _loop_param(method: str) -> tuple[Any, ...]:
    return (param(method, "loop", "any loop of the block's nest"),)


register_primitive(Primitive("vectorize", _loop_kind_draw("vectorize", "inner"), _loop_kind_apply("vectorize"),
                             "vectorize a loop", params=_loop_param("vectorize")))
register_primitive(Primitive("parallel", _loop_kind_draw("parallel", "S"), _loop_kind_apply("parallel"),
                             "parallelize a loop", params=_loop_param("parallel")))
register_primitive(Primitive("unroll", _loop_kind_draw("unroll", None), _loop_kind_apply("unroll"),
                             "unroll a loop", params=_loop_param("unroll")))


THREAD_AXES = ("blockIdx.x", "threadIdx.x", "threadIdx.y", "vthread.x", "blockIdx.y", "threadIdx.z", "vthread.y")


def _draw_bind(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("bind", s.name, (pick_loop(draw, s, "S"),),
                (("thread", draw(st.sampled_from(THREAD_AXES))),))


def _apply_bind(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.bind(loop, step.arg["thread"])
    return f"sch.bind({lname!r} of {step.block!r}, {step.arg['thread']!r})"


register_primitive(Primitive("bind", _draw_bind, _apply_bind,
                             "bind a loop to a GPU thread axis (checked symbolically only)", executable=False,
                             params=(*_loop_param("bind"),
                                     param("bind", "thread_axis", *THREAD_AXES, form=arg_form("thread")))))
