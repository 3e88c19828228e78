"""An epilogue folded into the reduction before it: fuse_reduction_epilogue."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import pick_stage
from passcheck.tir.schedule.registry import REDUCING, Primitive, register_primitive
from passcheck.tir.schedule.step import Step, get_block
from passcheck.tir.schedule.view import View


def _draw_fuse_reduction_epilogue(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, lambda j, x: x.is_reduction and j + 1 < len(view.stages))
    i = view.index(s.name)
    nxt = view.stages[i + 1].name if 0 <= i < len(view.stages) - 1 else s.name
    return Step("fuse_reduction_epilogue", s.name, (), (("epilogue", nxt),))


def _apply_fuse_reduction_epilogue(sch: Any, step: Step) -> str:
    sch.fuse_reduction_epilogue(get_block(sch, step.block), get_block(sch, step.arg["epilogue"]))
    return f"sch.fuse_reduction_epilogue({step.block!r}, {step.arg['epilogue']!r})"


register_primitive(Primitive("fuse_reduction_epilogue", _draw_fuse_reduction_epilogue, _apply_fuse_reduction_epilogue,
                             "fold an epilogue into a reduction", kinds=REDUCING, reassociates=True))
