"""Loop nests cut apart and joined: loop_partition (one loop into consecutive nests), merge
(loops of two nests into one), reorder_block_iter_var (the order of a block's iterators)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import draw_perm, pick_stage
from passcheck.tir.schedule.primitives.loops import split_like_apply, split_like_draw
from passcheck.tir.schedule.registry import Primitive, register_primitive
from passcheck.tir.schedule.step import Step, StepNotApplicable, get_block, loop_at, name_of
from passcheck.tir.schedule.view import View

register_primitive(Primitive("loop_partition", split_like_draw("loop_partition"), split_like_apply("loop_partition"),
                             "partition a loop into consecutive loops"))


def _draw_merge(draw: st.DrawFn, view: View) -> Step:
    a = pick_stage(draw, view)
    b = pick_stage(draw, view, lambda j, s: s.name != a.name)
    return Step("merge", a.name, (draw(st.integers(0, 2)),), (("other", b.name),))


def _apply_merge(sch: Any, step: Step) -> str:
    b1 = get_block(sch, step.block)
    b2 = get_block(sch, step.arg["other"])
    l1 = loop_at(sch, b1, step.loops[0])
    l2 = loop_at(sch, b2, step.loops[0])
    n1, n2 = name_of(sch, l1), name_of(sch, l2)
    sch.merge(l1, l2)
    return f"sch.merge({n1!r} of {step.block!r}, {n2!r} of {step.arg['other']!r})"


register_primitive(Primitive("merge", _draw_merge, _apply_merge, "merge loops of different nests with equal extents",
                             min_stages=2))


def _draw_reorder_block_iter_var(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("reorder_block_iter_var", s.name, (), (("perm", draw_perm(draw, len(s.iters))),))


def _apply_reorder_block_iter_var(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    n = len(sch.get(b).iter_vars)
    if n < 2:
        raise StepNotApplicable("block has fewer than two iterators")
    order = [p % n for p in step.arg["perm"]]
    order = list(dict.fromkeys(order)) + [i for i in range(n) if i not in order]
    sch.reorder_block_iter_var(b, order)
    return f"sch.reorder_block_iter_var({step.block!r}, {order})"


register_primitive(Primitive("reorder_block_iter_var", _draw_reorder_block_iter_var, _apply_reorder_block_iter_var,
                             "permute a block's iterator list"))
