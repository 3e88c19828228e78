"""One block and the loops right around it: blockize (wrap a loop subtree into a block),
pad_einsum (pad a block's iteration space), annotate (a block or a loop), add_unit_loop."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import LOOP_INDEX, draw_bool, pick_loop, pick_stage, reduction
from passcheck.tir.schedule.registry import REDUCING, Primitive, register_primitive
from passcheck.tir.schedule.step import Step, get_block, loop_at, loops_of, name_of
from passcheck.tir.schedule.view import View


def _draw_blockize(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("blockize", s.name, (pick_loop(draw, s),), (("preserve_unit_iters", draw_bool(draw)),))


def _apply_blockize(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.blockize(loop, preserve_unit_iters=step.arg.get("preserve_unit_iters", True))
    return f"sch.blockize({lname!r} of {step.block!r})"


register_primitive(Primitive("blockize", _draw_blockize, _apply_blockize, "wrap a loop subtree into an outer block"))


def _draw_pad_einsum(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    pads = tuple(draw(st.sampled_from((1, 2, 4, 8))) for _ in range(max(1, len(s.iters))))
    return Step("pad_einsum", s.name, (), (("padding", pads),))


def _apply_pad_einsum(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    n = len(sch.get(b).iter_vars)
    pads = [step.arg["padding"][i % len(step.arg["padding"])] for i in range(n)]
    sch.pad_einsum(b, pads)
    return f"sch.pad_einsum({step.block!r}, {pads})"


register_primitive(Primitive("pad_einsum", _draw_pad_einsum, _apply_pad_einsum,
                             "pad an einsum-like block's iteration space", kinds=REDUCING))

_LOOP_ANN = (("pragma_auto_unroll_max_step", (0, 16, 64)), ("pragma_unroll_explicit", (0, 1)),
             ("passcheck_tag", (1,)))
_BLOCK_ANN = (("passcheck_tag", (1, "x")), ("meta_schedule.unroll_explicit", (16,)))


def _draw_annotate(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    on = draw(st.sampled_from(("block", "loop")))
    key, values = draw(st.sampled_from(_LOOP_ANN if on == "loop" else _BLOCK_ANN))
    return Step("annotate", s.name, (draw(LOOP_INDEX),),
                (("on", on), ("key", key), ("value", draw(st.sampled_from(values))), ("remove", draw_bool(draw))))


def _apply_annotate(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    target = b if a["on"] == "block" else loop_at(sch, b, step.loops[0])
    tname = step.block if a["on"] == "block" else name_of(sch, target)
    sch.annotate(target, a["key"], a["value"])
    line = f"sch.annotate({tname!r}, {a['key']!r}, {a['value']!r})"
    if a.get("remove"):
        sch.unannotate(target, a["key"])
        line += f"; sch.unannotate({tname!r}, {a['key']!r})"
    return line


register_primitive(Primitive("annotate", _draw_annotate, _apply_annotate,
                             "annotate (and maybe unannotate) a block or loop"))


def _draw_add_unit_loop(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("add_unit_loop", s.name, (draw(LOOP_INDEX),), (("on", draw(st.sampled_from(("block", "loop")))),))


def _apply_add_unit_loop(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    if step.arg.get("on") == "loop" and loops_of(sch, b):
        target = loop_at(sch, b, step.loops[0])
        tname = name_of(sch, target)
    else:
        target, tname = b, step.block
    sch.add_unit_loop(target)
    return f"sch.add_unit_loop({tname!r})"


register_primitive(Primitive("add_unit_loop", _draw_add_unit_loop, _apply_add_unit_loop,
                             "add a unit loop above a block or loop"))
