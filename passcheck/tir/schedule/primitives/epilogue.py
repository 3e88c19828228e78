"""An epilogue folded into the reduction before it: fuse_reduction_epilogue."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import BLOCK_FORMS, block_form, draw_by_name, pick_stage
from passcheck.tir.schedule.registry import REDUCING, Primitive, param, register_primitive
from passcheck.tir.schedule.step import Step, get_block, given_block
from passcheck.tir.schedule.view import View


def _draw_fuse_reduction_epilogue(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, lambda j, x: x.is_reduction and j + 1 < len(view.stages))
    i = view.index(s.name)
    nxt = view.stages[i + 1].name if 0 <= i < len(view.stages) - 1 else s.name
    consumers = view.consumers(s.name)
    if consumers and draw(st.booleans()):
        nxt = draw(st.sampled_from(consumers))
    return Step("fuse_reduction_epilogue", s.name, (), (("epilogue", nxt), *draw_by_name(draw)))


def _apply_fuse_reduction_epilogue(sch: Any, step: Step) -> str:
    r, e = get_block(sch, step.block), get_block(sch, step.arg["epilogue"])
    sch.fuse_reduction_epilogue(given_block(sch, step, r), given_block(sch, step, e))
    return f"sch.fuse_reduction_epilogue({step.block!r}, {step.arg['epilogue']!r})"


def _epilogue_update(view: View, step: Step) -> View:
    """The epilogue is gone; the reduction writes what it wrote."""
    e = view.get(step.arg.get("epilogue", ""))
    if e is None or e.name == step.block:
        return view
    return view.drop(e.name).replace(step.block, output=e.output)


register_primitive(Primitive("fuse_reduction_epilogue", _draw_fuse_reduction_epilogue, _apply_fuse_reduction_epilogue,
                             "fold an epilogue into a reduction", kinds=REDUCING, reassociates=True, min_stages=2,
                             update=_epilogue_update,
                             params=(param("fuse_reduction_epilogue", "reduction_block", *BLOCK_FORMS, form=block_form),
                                     param("fuse_reduction_epilogue", "epilogue_block", *BLOCK_FORMS,
                                           form=block_form))))
