"""Reductions restructured: rfactor, decompose_reduction."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import (
    BLOCK_FORMS,
    block_form,
    draw_by_name,
    pick_loop,
    pick_stage,
    reduction,
)
from passcheck.tir.schedule.registry import REDUCING, Primitive, param, register_primitive
from passcheck.tir.schedule.step import Step, derived, get_block, given_block, loop_at, name_of
from passcheck.tir.schedule.view import Block, View


def _draw_rfactor(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    axis = draw(st.integers(0, max(0, s.n_spatial)))
    if draw(st.integers(0, 4)) == 0:
        axis = -1 - axis  # counted from the end
    return Step("rfactor", s.name, (pick_loop(draw, s, "R"),), (("factor_axis", axis),))


def _add_rf(v: View, s: Step) -> View:
    """The rf-block (``B_rf``, partial results over the factored loop) comes before the block,
    which now reads it."""
    i = v.index(s.block)
    if i < 0:
        return v
    base = v.stages[i]
    rf = derived(s.block, "rf")
    v = v.explicit()
    v = v.insert(i, Block(rf, base.iters, reads=v.producers(s.block), origin="rfactor"))
    return v.replace(s.block, reads=(*v.producers(s.block), rf))


def _apply_rfactor(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.rfactor(loop, step.arg["factor_axis"])
    return f"sch.rfactor({lname!r} of {step.block!r}, factor_axis={step.arg['factor_axis']})"


register_primitive(Primitive("rfactor", _draw_rfactor, _apply_rfactor,
                             "factor a reduction loop into a partial-result block", kinds=REDUCING,
                             reassociates=True, update=_add_rf,
                             params=(param("rfactor", "loop", "a loop of the block's nest (mostly a reduction loop)"),
                                     param("rfactor", "factor_axis", "0..ndim", "negative (from the end)",
                                           form=lambda s: "negative (from the end)" if s.arg["factor_axis"] < 0
                                           else "0..ndim"))))


def _draw_decompose_reduction(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    # Every loop of the nest, outer ones (spatial, or loops a compute_at put above it) too.
    loop = pick_loop(draw, s, "R") if draw(st.booleans()) else draw(st.integers(0, max(0, len(s.nest) - 1)))
    return Step("decompose_reduction", s.name, (loop,), draw_by_name(draw))


def _apply_decompose_reduction(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.decompose_reduction(given_block(sch, step, b), loop)
    return f"sch.decompose_reduction({step.block!r}, {lname!r})"


def _add_init(v: View, s: Step) -> View:
    """The init block (``B_init``) comes first; the block itself is renamed ``B_update`` (its
    bare name still finds it) and now reads what it writes."""
    b = v.get(s.block)
    if b is None:
        return v
    v = v.explicit()
    init = Block(derived(s.block, "init"), "S" * b.n_spatial, reads=(), origin="decompose_reduction")
    v = v.insert(v.index(s.block), init)
    return View(tuple(dataclasses.replace(x, origin=x.origin or "decompose_reduction") if x.name == s.block else x
                      for x in v.stages))


register_primitive(Primitive("decompose_reduction", _draw_decompose_reduction, _apply_decompose_reduction,
                             "separate a reduction's init block", kinds=REDUCING, update=_add_init,
                             params=(param("decompose_reduction", "block", *BLOCK_FORMS, form=block_form),
                                     param("decompose_reduction", "loop",
                                           "any loop of the block's nest, outer ones too"))))
