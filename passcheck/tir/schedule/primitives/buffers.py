"""What a block declares about its buffers, overridden: unsafe_set_dtype,
annotate_buffer_access, unsafe_hide_buffer_access."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import BLOCK_FORMS, block_form, draw_by_name, not_output, pick_stage
from passcheck.tir.schedule.registry import Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import (
    Step,
    StepNotApplicable,
    get_block,
    given_block,
    is_param_buffer,
    region_buffer,
)
from passcheck.tir.schedule.view import View

DTYPES = ("float64", "float16")


def _draw_unsafe_set_dtype(draw: st.DrawFn, view: View) -> Step:
    return Step("unsafe_set_dtype", pick_stage(draw, view, not_output).name, (),
                (("buffer", 0), ("dtype", draw(st.sampled_from(DTYPES))), *draw_by_name(draw)))


def _apply_unsafe_set_dtype(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, "write", step.arg["buffer"])
    if is_param_buffer(sch, buf):
        raise StepNotApplicable("unsafe_set_dtype of a parameter changes the signature")
    sch.unsafe_set_dtype(given_block(sch, step, b), j, step.arg["dtype"])
    return f"sch.unsafe_set_dtype({step.block!r}, {j}, {step.arg['dtype']!r})"


register_primitive(Primitive("unsafe_set_dtype", _draw_unsafe_set_dtype, _apply_unsafe_set_dtype,
                             "store an intermediate buffer in another float type", unsafe=True, reassociates=True,
                             min_stages=2,
                             params=(param("unsafe_set_dtype", "block", *BLOCK_FORMS, form=block_form),
                                     param("unsafe_set_dtype", "buffer_index", "int (write region index)"),
                                     param("unsafe_set_dtype", "dtype", *DTYPES, form=arg_form("dtype")))))


def _draw_annotate_buffer_access(draw: st.DrawFn, view: View) -> Step:
    kind = draw(st.sampled_from(("read", "read", "write")))
    args: tuple[tuple[str, Any], ...] = (("buffer", draw(st.integers(0, 2)) if kind == "read" else 0),
                                         ("grow", draw(st.integers(0, 1)) if kind == "read" else 0))
    if kind == "write":
        args += (("kind", "write"),)
    if draw(st.booleans()):
        args += (("points", True),)
    return Step("annotate_buffer_access", pick_stage(draw, view).name, (), args)


def _apply_annotate_buffer_access(sch: Any, step: Step) -> str:
    """Re-declare a region as what the block already accesses: a read widened by ``grow`` on
    each side and clipped to the buffer, a write exactly (declaring writes the block does not
    make would be the caller's lie); with ``points``, a one-element range as the bare index."""
    from tvm import tirx

    kind = step.arg.get("kind", "read")
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, kind, step.arg["buffer"])
    blk = sch.get(b)
    region = (blk.reads if kind == "read" else blk.writes)[j].region
    grow = step.arg.get("grow", 0)
    points = step.arg.get("points", False)

    def gen(*_block_vars: Any) -> list[Any]:
        # The callback receives the block's own iterator vars, which the region already uses.
        out: list[Any] = []
        for r, ext in zip(region, buf.shape, strict=True):
            lo, hi = r.min, r.min + r.extent
            if grow:
                dt = str(lo.ty.dtype)
                lo = tirx.max(lo - tirx.IntImm(dt, grow), tirx.IntImm(dt, 0))
                hi = tirx.min(hi + tirx.IntImm(dt, grow), ext)
            one = isinstance(r.extent, tirx.IntImm) and int(r.extent.value) == 1
            out.append(lo if points and one and not grow else (lo, hi))
        return out

    sch.annotate_buffer_access(b, j, kind, gen)
    how = f"grown by {grow}" if grow else "as it is"
    return (f"sch.annotate_buffer_access({step.block!r}, {j}, {kind!r}, <its own region, {how}"
            f"{', single points as indices' if points else ''}>)")


register_primitive(Primitive("annotate_buffer_access", _draw_annotate_buffer_access, _apply_annotate_buffer_access,
                             "declare a (sound, widened) read or write region",
                             params=(param("annotate_buffer_access", "block", "SBlockRV"),
                                     param("annotate_buffer_access", "buffer_index", "int (region index)"),
                                     param("annotate_buffer_access", "buf_type", "read", "write",
                                           form=arg_form("kind", default="read")),
                                     param("annotate_buffer_access", "gen_new_ranges", "(begin, end) ranges",
                                           "an index where the range is one element",
                                           form=lambda s: "an index where the range is one element"
                                           if s.arg.get("points") else "(begin, end) ranges"))))


def _draw_unsafe_hide_buffer_access(draw: st.DrawFn, view: View) -> Step:
    kind = draw(st.sampled_from(("read", "read", "write")))
    idx = tuple(draw(st.lists(st.integers(0, 2), min_size=1, max_size=2, unique=True)))
    args: tuple[tuple[str, Any], ...] = (("buffer", idx[0]),)
    if len(idx) > 1:
        args += (("more", idx[1:]),)
    if kind == "write":
        args += (("kind", "write"),)
    return Step("unsafe_hide_buffer_access", pick_stage(draw, view).name, (), args)


def _apply_unsafe_hide_buffer_access(sch: Any, step: Step) -> str:
    kind = step.arg.get("kind", "read")
    b = get_block(sch, step.block)
    idxs = [region_buffer(sch, b, kind, i)[0] for i in (step.arg["buffer"], *step.arg.get("more", ()))]
    idxs = list(dict.fromkeys(idxs))
    sch.unsafe_hide_buffer_access(b, kind, idxs)
    return f"sch.unsafe_hide_buffer_access({step.block!r}, {kind!r}, {idxs})"


register_primitive(Primitive("unsafe_hide_buffer_access", _draw_unsafe_hide_buffer_access,
                             _apply_unsafe_hide_buffer_access, "hide a read or write from the block's signature",
                             unsafe=True,
                             # a hidden write the block still makes: lowering's signature check says so
                             refuted_by=r"is written in the block but is not in the block's signature",
                             params=(param("unsafe_hide_buffer_access", "block", "SBlockRV"),
                                     param("unsafe_hide_buffer_access", "buf_type", "read", "write",
                                           form=arg_form("kind", default="read")),
                                     param("unsafe_hide_buffer_access", "buf_index_array", "one index",
                                           "two indices", form=lambda s: "two indices" if "more" in s.arg
                                           else "one index"))))
