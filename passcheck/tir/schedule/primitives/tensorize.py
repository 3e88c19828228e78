"""tensorize: an inner matmul reduction replaced by one of passcheck's plain-TIR dot-product
intrinsics (``schedule/intrinsics.py``; none of TVM's applies to float32 on plain LLVM)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule.drawing import draw_bool, pick_loop, pick_stage, reduction
from passcheck.tir.schedule.intrinsics import MAX_DOT, ensure_dot
from passcheck.tir.schedule.registry import Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import Step, derived, get_block, loop_at, name_of
from passcheck.tir.schedule.view import Block, View


def _draw_tensorize(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    return Step("tensorize", s.name, (pick_loop(draw, s, "R"),),
                (("k", draw(st.sampled_from((2, 4, 8)))), ("preserve_unit_iters", draw_bool(draw))))


def _setup_tensorize(draw: st.DrawFn, view: View, spec: PrimFuncSpec) -> tuple[tuple[Step, ...], Step]:
    """Tensorize needs the inner reduction loop cut to the intrinsic's length and the update
    separated from its init: split the matmul's reduction loop by a divisor K of its extent (a
    non-dividing split adds a predicate no intrinsic matches), decompose the reduction, maybe
    tile a spatial loop first."""
    s = pick_stage(draw, view, reduction)
    extent = spec.shape[-1] if spec.shape else 1
    # (A length-1 dot product never matches: TVM drops unit reduction loops.)
    ks = [d for d in range(2, MAX_DOT + 1) if extent % d == 0] or [2]
    k = draw(st.sampled_from(ks))
    prep = []
    last = len(s.iters) - 1
    if draw_bool(draw):
        prep.append(Step("split", s.name, (0,), (("factors", (None, draw(st.sampled_from((2, 3))))),
                                                 ("preserve_unit_iters", True))))
        last += 1
    prep.append(Step("split", s.name, (last,), (("factors", (None, k)), ("preserve_unit_iters", True))))
    prep.append(Step("decompose_reduction", s.name, (0,)))
    keep = draw_bool(draw)
    if draw(st.booleans()):
        # The block form: blockize the dot product's loop first, tensorize the block it made.
        prep.append(Step("blockize", s.name, (last + 1,), (("preserve_unit_iters", keep),)))
        return tuple(prep), Step("tensorize", derived(s.name, "o"), (), (("k", k), ("preserve_unit_iters", keep),
                                                                           ("on", "block")))
    return tuple(prep), Step("tensorize", s.name, (last + 1,), (("k", k), ("preserve_unit_iters", keep)))


def _apply_tensorize(sch: Any, step: Step) -> str:
    from passcheck.tir.analysis.concrete import dtype_of

    b = get_block(sch, step.block)
    keep = step.arg["preserve_unit_iters"]
    if step.arg.get("on") == "block":
        iters = sch.get(b).iter_vars
        name = ensure_dot(step.arg["k"], dtype_of(iters[0].var) if len(iters) else "int32")
        sch.tensorize(b, name, preserve_unit_iters=keep)
        return f"sch.tensorize({step.block!r}, {name!r}, preserve_unit_iters={keep})"
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    name = ensure_dot(step.arg["k"], dtype_of(sch.get(loop).loop_var))
    sch.tensorize(loop, name, preserve_unit_iters=keep)
    return f"sch.tensorize({lname!r} of {step.block!r}, {name!r}, preserve_unit_iters={keep})"


def _tensorize_update(view: View, step: Step) -> View:
    """The tensorized loop's subtree becomes one block (``B+o``, around what is left of ``B``)."""
    if step.arg.get("on") == "block" or view.get(step.block) is None:
        return view
    s = view.get(step.block)
    assert s is not None
    outer = Block(derived(s.name, "o"), s.nest, output=s.output, reads=view.producers(s.name), origin="tensorize")
    return view.insert(view.index(s.name), outer)


register_primitive(Primitive("tensorize", _draw_tensorize, _apply_tensorize,
                             "replace an inner matmul reduction by a (plain-TIR) dot-product intrinsic",
                             kinds=("matmul",), setup=_setup_tensorize, update=_tensorize_update,
                             params=(param("tensorize", "block_or_loop", "LoopRV", "SBlockRV (a blockized dot product)",
                                           form=lambda s: "SBlockRV (a blockized dot product)"
                                           if s.arg.get("on") == "block" else "LoopRV"),
                                     param("tensorize", "tensor_intrin", "a registered dot product of the loop's "
                                           "length"),
                                     param("tensorize", "preserve_unit_iters", "True", "False",
                                           form=arg_form("preserve_unit_iters")))))
