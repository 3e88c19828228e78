"""Padded and sliding-window kernels (pad, conv2d, pool): rolling_buffer, decompose_padding."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule.drawing import (
    BLOCK_FORMS,
    block_form,
    draw_bool,
    draw_by_name,
    not_output,
    pick_loop,
    pick_stage,
)
from passcheck.tir.schedule.registry import PADDED, Primitive, param, register_primitive
from passcheck.tir.schedule.step import Step, derived, get_block, given_block, loop_at, name_of, region_buffer
from passcheck.tir.schedule.view import Block, View


def _draw_rolling_buffer(draw: st.DrawFn, view: View) -> Step:
    return Step("rolling_buffer", pick_stage(draw, view, not_output).name, (), (("buffer", 0), *draw_by_name(draw)))


def _setup_rolling_buffer(draw: st.DrawFn, view: View, spec: PrimFuncSpec) -> tuple[tuple[Step, ...], Step]:
    """rolling_buffer needs a producer computed under a loop of a consumer whose windows
    overlap from one iteration to the next (pooling, convolution): compute_at the producer
    under one of the consumer's inner spatial loops, that loop maybe tiled first."""
    cons = pick_stage(draw, view, lambda j, s: j > 0 and s.is_reduction)
    i = view.index(cons.name)
    if i <= 0:
        return (), _draw_rolling_buffer(draw, view)
    prod = view.stages[i - 1]
    spatial = [k for k, c in enumerate(cons.iters) if c == "S"]
    loop = draw(st.sampled_from(spatial[-2:] or [0]))
    prep = []
    if draw_bool(draw):
        prep.append(Step("split", cons.name, (loop,), (("factors", (None, draw(st.sampled_from((2, 3, 4))))),
                                                       ("preserve_unit_iters", True))))
    prep.append(Step("compute_at", prod.name, (loop,), (("target", cons.name), ("preserve_unit_loops", True),
                                                        ("index", -1))))
    return tuple(prep), Step("rolling_buffer", prod.name, (), (("buffer", 0), *draw_by_name(draw)))


def _apply_rolling_buffer(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "write", step.arg["buffer"])
    sch.rolling_buffer(given_block(sch, step, b), j)
    return f"sch.rolling_buffer({step.block!r}, {j})"


register_primitive(Primitive("rolling_buffer", _draw_rolling_buffer, _apply_rolling_buffer,
                             "turn an intermediate buffer into a rolling buffer", kinds=PADDED, min_stages=2,
                             setup=_setup_rolling_buffer,
                             params=(param("rolling_buffer", "block", *BLOCK_FORMS, form=block_form),
                                     param("rolling_buffer", "write_buffer_index", "int (write region index)"))))


def _draw_decompose_padding(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, lambda j, x: "pad" in x.name.lower())
    return Step("decompose_padding", s.name, (pick_loop(draw, s),), draw_by_name(draw))


def _padding_update(view: View, step: Step) -> View:
    """The constant fill (``B_pad_const``) comes first; the block then copies the in-bound part."""
    s = view.get(step.block)
    if s is None:
        return view
    fill = Block(derived(s.name, "pad_const"), s.iters, reads=(), origin="decompose_padding")
    return view.insert(view.index(s.name), fill)


def _apply_decompose_padding(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.decompose_padding(given_block(sch, step, b), loop)
    return f"sch.decompose_padding({step.block!r}, {lname!r})"


register_primitive(Primitive("decompose_padding", _draw_decompose_padding, _apply_decompose_padding,
                             "split a padding block into fill and copy", kinds=PADDED, update=_padding_update,
                             params=(param("decompose_padding", "block", *BLOCK_FORMS, form=block_form),
                                     param("decompose_padding", "loop", "any loop of the block's nest"))))
