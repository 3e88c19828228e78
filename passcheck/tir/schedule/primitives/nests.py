"""Loop nests cut apart and joined: loop_partition (one loop into consecutive nests), merge
(loops of two nests into one), reorder_block_iter_var (the order of a block's iterators)."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import draw_perm, pick_stage
from passcheck.tir.schedule.primitives.loops import (
    split_like_apply,
    split_like_draw,
    split_like_params,
    split_like_update,
)
from passcheck.tir.schedule.registry import Primitive, param, register_primitive
from passcheck.tir.schedule.step import Step, StepNotApplicable, get_block, is_reference, loop_at, name_of
from passcheck.tir.schedule.view import View


def _partition_update(view: View, step: Step) -> View:
    """The block is cut into one piece per factor, each a block of its own (TVM renames them
    after the loop: ``B_i0``, ``B_i1``): later steps name them ``B%k``."""
    view = split_like_update(view, step)
    s = view.get(step.block)
    if s is None or is_reference(s.name):
        return view
    i = view.index(s.name)
    pieces = [dataclasses.replace(s, name=f"{s.name}%{k}", origin="loop_partition")
              for k in range(len(step.arg.get("factors", ())))]
    v = view.explicit()
    stages = [*v.stages[:i], *pieces, *v.stages[i + 1:]]
    stages = [x if not x.reads or s.name not in x.reads else
              dataclasses.replace(x, reads=tuple(r for y in x.reads for r in ([p.name for p in pieces] if y == s.name
                                                                               else [y])))
              for x in stages]
    return View(tuple(stages))


register_primitive(Primitive("loop_partition", split_like_draw("loop_partition"), split_like_apply("loop_partition"),
                             "partition a loop into consecutive loops", update=_partition_update,
                             params=split_like_params("loop_partition")))


def _draw_merge(draw: st.DrawFn, view: View) -> Step:
    a = pick_stage(draw, view)
    b = pick_stage(draw, view, lambda j, s: s.name != a.name)
    args: tuple[tuple[str, Any], ...] = (("other", b.name),)
    rest = [s.name for s in view.stages if s.name not in (a.name, b.name)]
    if rest and draw(st.integers(0, 3)) == 0:
        args += (("third", draw(st.sampled_from(rest))),)
    return Step("merge", a.name, (draw(st.integers(0, 2)),), args)


def _apply_merge(sch: Any, step: Step) -> str:
    names = [step.block, step.arg["other"], *([step.arg["third"]] if "third" in step.arg else [])]
    loops = [loop_at(sch, get_block(sch, n), step.loops[0]) for n in names]
    shown = ", ".join(f"{name_of(sch, lp)!r} of {n!r}" for lp, n in zip(loops, names, strict=True))
    sch.merge(*loops)
    return f"sch.merge({shown})"


register_primitive(Primitive("merge", _draw_merge, _apply_merge, "merge loops of different nests with equal extents",
                             min_stages=2,
                             params=(param("merge", "loops", "loops of two nests", "loops of three nests",
                                           form=lambda s: "loops of three nests" if "third" in s.arg
                                           else "loops of two nests"),)))


def _draw_reorder_block_iter_var(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, lambda j, x: len(x.iters) >= 2)
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
                             "permute a block's iterator list",
                             params=(param("reorder_block_iter_var", "block", "SBlockRV"),
                                     param("reorder_block_iter_var", "new_order", "a permutation of the iterators"))))
