"""One block and the loops right around it: blockize (wrap a loop subtree, or a list of
blocks, into an outer block), pad_einsum (pad a block's iteration space), annotate (a block or
a loop), add_unit_loop."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import (
    BLOCK_FORMS,
    LOOP_INDEX,
    block_form,
    draw_bool,
    draw_by_name,
    pick_loop,
    pick_stage,
    reduction,
)
from passcheck.tir.schedule.registry import REDUCING, Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import Step, derived, get_block, given_block, loop_at, loops_of, name_of
from passcheck.tir.schedule.view import Block, View


def _draw_blockize(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    keep = (("preserve_unit_iters", draw_bool(draw)),)
    if draw(st.integers(0, 3)) > 0:
        return Step("blockize", s.name, (pick_loop(draw, s),), keep)
    # A list of blocks: one, or the block with the next one or two (siblings, when they are).
    i = view.index(s.name)
    n = draw(st.integers(1, 3))
    blocks = tuple(x.name for x in view.stages[i:i + n])
    return Step("blockize", s.name, (), (("blocks", blocks), *keep))


def _apply_blockize(sch: Any, step: Step) -> str:
    keep = step.arg.get("preserve_unit_iters", True)
    if "blocks" in step.arg:
        rvs = [get_block(sch, n) for n in step.arg["blocks"]]
        sch.blockize(rvs, preserve_unit_iters=keep)
        return f"sch.blockize({list(step.arg['blocks'])!r}, preserve_unit_iters={keep})"
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.blockize(loop, preserve_unit_iters=keep)
    return f"sch.blockize({lname!r} of {step.block!r})"


def _blockize_update(view: View, step: Step) -> View:
    """The outer block comes before what it wraps: ``B+o`` (blockize of a loop: it carries the
    loops above, ``B`` keeps those below) or ``B^`` (blockize of a list of blocks)."""
    s = view.get(step.block)
    if s is None:
        return view
    if "blocks" in step.arg:
        outer = Block(f"{s.name}^", "", reads=view.producers(s.name), origin="blockize")
        return view.insert(view.index(s.name), outer)
    nest = s.nest
    depth = step.loops[0] % len(nest) if nest else 0
    outer = Block(derived(s.name, "o"), nest[:depth], output=s.output, reads=view.producers(s.name), origin="blockize")
    return view.replace(s.name, loops=nest[depth:] or "S").insert(view.index(s.name), outer)


def _target_form(step: Step) -> str:
    if "blocks" not in step.arg:
        return "LoopRV"
    return "list of one SBlockRV" if len(step.arg["blocks"]) == 1 else "list of 2-3 SBlockRVs"


register_primitive(Primitive("blockize", _draw_blockize, _apply_blockize,
                             "wrap a loop subtree, or a list of blocks, into an outer block", update=_blockize_update,
                             params=(param("blockize", "target", "LoopRV", "list of one SBlockRV",
                                           "list of 2-3 SBlockRVs", form=_target_form),
                                     param("blockize", "preserve_unit_iters", "True", "False",
                                           form=arg_form("preserve_unit_iters")))))


def _draw_pad_einsum(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    pads = tuple(draw(st.sampled_from((1, 2, 4, 8))) for _ in range(max(1, len(s.iters))))
    return Step("pad_einsum", s.name, (), (("padding", pads), *draw_by_name(draw)))


def _apply_pad_einsum(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    n = len(sch.get(b).iter_vars)
    pads = [step.arg["padding"][i % len(step.arg["padding"])] for i in range(n)]
    sch.pad_einsum(given_block(sch, step, b), pads)
    return f"sch.pad_einsum({step.block!r}, {pads})"


def _pad_einsum_update(view: View, step: Step) -> View:
    """The padded copies of the inputs (``B<j``) and of the output (``B>0``)."""
    return view.read_copy(step.block, f"{step.block}<0", "pad_einsum").write_copy(
        step.block, f"{step.block}>0", "pad_einsum")


register_primitive(Primitive("pad_einsum", _draw_pad_einsum, _apply_pad_einsum,
                             "pad an einsum-like block's iteration space", kinds=REDUCING, update=_pad_einsum_update,
                             params=(param("pad_einsum", "block", *BLOCK_FORMS, form=block_form),
                                     param("pad_einsum", "padding", "one multiple per iterator"))))

_LOOP_ANN = (("pragma_auto_unroll_max_step", (0, 16, 64)), ("pragma_unroll_explicit", (0, 1)),
             ("passcheck_tag", (1,)))
# Every form of ann_val TVM accepts: str, int, float, PrimExpr, list, dict (passcheck_tag is a
# key nothing in TVM reads, so any value must leave the code as it was).
_VALUES = (1, "x", 0.5, ("expr", 3), ("list", (1, "a")), ("dict", (("k", 1),)))
_BLOCK_ANN = (("passcheck_tag", _VALUES), ("meta_schedule.unroll_explicit", (16,)))
VALUE_FORMS = {int: "int", str: "str", float: "float", "expr": "PrimExpr", "list": "list", "dict": "dict"}


def _draw_annotate(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    on = draw(st.sampled_from(("block", "loop")))
    key, values = draw(st.sampled_from(_LOOP_ANN if on == "loop" else _BLOCK_ANN))
    if key == "passcheck_tag" and draw(st.booleans()):
        values = _VALUES
    return Step("annotate", s.name, (draw(LOOP_INDEX),),
                (("on", on), ("key", key), ("value", draw(st.sampled_from(values))), ("remove", draw_bool(draw))))


def _ann_value(v: Any) -> tuple[Any, str]:
    """The annotation value of a drawn form, and how it reads in a trace."""
    from tvm import tirx

    if not isinstance(v, tuple):
        return v, repr(v)
    kind, x = v
    if kind == "expr":
        return tirx.IntImm("int32", x), f"T.int32({x})"
    if kind == "list":
        return list(x), repr(list(x))
    return dict(x), repr(dict(x))


def _value_form(step: Step) -> str:
    v = step.arg["value"]
    return VALUE_FORMS[v[0]] if isinstance(v, tuple) else VALUE_FORMS[type(v)]


def _apply_annotate(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    target = b if a["on"] == "block" else loop_at(sch, b, step.loops[0])
    tname = step.block if a["on"] == "block" else name_of(sch, target)
    value, text = _ann_value(a["value"])
    sch.annotate(target, a["key"], value)
    line = f"sch.annotate({tname!r}, {a['key']!r}, {text})"
    if a.get("remove"):
        sch.unannotate(target, a["key"])
        line += f"; sch.unannotate({tname!r}, {a['key']!r})"
    return line


def _on_form(step: Step) -> str:
    return "SBlockRV" if step.arg["on"] == "block" else "LoopRV"


def _unannotated(step: Step) -> str | None:
    return _on_form(step) if step.arg.get("remove") else None


register_primitive(Primitive("annotate", _draw_annotate, _apply_annotate,
                             "annotate (and maybe unannotate) a block or loop",
                             params=(param("annotate", "block_or_loop", "SBlockRV", "LoopRV", form=_on_form),
                                     param("annotate", "ann_key", "a key TVM reads (unroll pragmas)",
                                           "a key nothing reads", form=lambda s: "a key nothing reads" if
                                           s.arg["key"] == "passcheck_tag" else "a key TVM reads (unroll pragmas)"),
                                     param("annotate", "ann_val", *VALUE_FORMS.values(), form=_value_form),
                                     param("unannotate", "block_or_loop", "SBlockRV", "LoopRV", form=_unannotated),
                                     param("unannotate", "ann_key", "the key just annotated",
                                           form=lambda s: "the key just annotated" if s.arg.get("remove")
                                           else None))))


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


def _add_unit_loop_update(view: View, step: Step) -> View:
    s = view.get(step.block)
    if s is None:
        return view
    nest = s.nest
    at = len(nest) if step.arg.get("on") != "loop" or not nest else step.loops[0] % len(nest)
    return view.replace(s.name, loops=nest[:at] + "S" + nest[at:])


register_primitive(Primitive("add_unit_loop", _draw_add_unit_loop, _apply_add_unit_loop,
                             "add a unit loop above a block or loop", update=_add_unit_loop_update,
                             params=(param("add_unit_loop", "block_or_loop", "SBlockRV", "LoopRV",
                                           form=lambda s: "LoopRV" if s.arg.get("on") == "loop" else "SBlockRV"),)))
