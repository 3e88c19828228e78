"""Sampling primitives, each applied with the decision it sampled: sample_perfect_tile,
sample_partitioned_tile (then split), sample_compute_location (then compute_at),
sample_categorical (then annotate an unroll depth)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import LOOP_INDEX, not_output, pick_loop, pick_stage
from passcheck.tir.schedule.registry import Primitive, register_primitive
from passcheck.tir.schedule.step import Step, get_block, loop_at, name_of
from passcheck.tir.schedule.view import View


def _sampled(sch: Any, rv: Any) -> Any:
    try:
        return int(sch.get(rv))
    except (TypeError, ValueError):
        return rv


def _draw_sample_perfect_tile(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("sample_perfect_tile", s.name, (pick_loop(draw, s),),
                (("n", draw(st.integers(2, 3))), ("max_innermost", draw(st.sampled_from((4, 16))))))


def _apply_sample_perfect_tile(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    tiles = sch.sample_perfect_tile(loop, n=step.arg["n"], max_innermost_factor=step.arg.get("max_innermost", 16))
    sch.split(loop, tiles)
    vals = [_sampled(sch, t) for t in tiles]
    return f"sch.split({lname!r} of {step.block!r}, sch.sample_perfect_tile(n={step.arg['n']}))  # sampled {vals}"


register_primitive(Primitive("sample_perfect_tile", _draw_sample_perfect_tile, _apply_sample_perfect_tile,
                             "split by a sampled perfect tiling"))


def _draw_sample_partitioned_tile(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("sample_partitioned_tile", s.name, (pick_loop(draw, s),),
                (("n", draw(st.integers(2, 3))), ("pos", draw(st.integers(0, 2))),
                 ("inner", draw(st.sampled_from((1, 2, 4))))))


def _apply_sample_partitioned_tile(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    n = step.arg["n"]
    tiles = sch.sample_partitioned_tile(loop, n=n, partition_pos=step.arg["pos"] % n,
                                        innerpart_factor=step.arg["inner"])
    sch.split(loop, tiles)
    vals = [_sampled(sch, t) for t in tiles]
    return f"sch.split({lname!r} of {step.block!r}, sch.sample_partitioned_tile(n={n}))  # sampled {vals}"


register_primitive(Primitive("sample_partitioned_tile", _draw_sample_partitioned_tile, _apply_sample_partitioned_tile,
                             "split by a sampled partitioned tiling"))


def _draw_sample_compute_location(draw: st.DrawFn, view: View) -> Step:
    return Step("sample_compute_location", pick_stage(draw, view, not_output).name)


def _apply_sample_compute_location(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loc = sch.sample_compute_location(b)
    # The sample may be one of the special locations (root, inline) that sch.get cannot show;
    # compute_at accepts them.
    try:
        lname = sch.get(loc).loop_var.name
    except (TypeError, AttributeError, ValueError):
        lname = "<root or inline>"
    sch.compute_at(b, loc)
    return f"sch.compute_at({step.block!r}, sch.sample_compute_location({step.block!r}))  # sampled {lname!r}"


register_primitive(Primitive("sample_compute_location", _draw_sample_compute_location, _apply_sample_compute_location,
                             "compute_at a sampled location"))


def _draw_sample_categorical(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("sample_categorical", s.name, (draw(LOOP_INDEX),))


def _apply_sample_categorical(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    cands = [0, 16, 64, 512]
    v = sch.sample_categorical(cands, [0.25] * 4)
    sch.annotate(loop, "pragma_auto_unroll_max_step", v)
    return (f"sch.annotate({lname!r}, 'pragma_auto_unroll_max_step', sch.sample_categorical({cands}))  "
            f"# sampled {int(sch.get(v))}")


register_primitive(Primitive("sample_categorical", _draw_sample_categorical, _apply_sample_categorical,
                             "annotate an unroll depth sampled categorically"))
