"""What a block declares about its buffers, overridden: unsafe_set_dtype,
annotate_buffer_access, unsafe_hide_buffer_access."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import not_output, pick_stage
from passcheck.tir.schedule.registry import Primitive, register_primitive
from passcheck.tir.schedule.step import Step, StepNotApplicable, get_block, is_param_buffer, region_buffer
from passcheck.tir.schedule.view import View


def _draw_unsafe_set_dtype(draw: st.DrawFn, view: View) -> Step:
    return Step("unsafe_set_dtype", pick_stage(draw, view, not_output).name, (), (("buffer", 0), ("dtype", "float64")))


def _apply_unsafe_set_dtype(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, "write", step.arg["buffer"])
    if is_param_buffer(sch, buf):
        raise StepNotApplicable("unsafe_set_dtype of a parameter changes the signature")
    sch.unsafe_set_dtype(b, j, step.arg["dtype"])
    return f"sch.unsafe_set_dtype({step.block!r}, {j}, {step.arg['dtype']!r})"


register_primitive(Primitive("unsafe_set_dtype", _draw_unsafe_set_dtype, _apply_unsafe_set_dtype,
                             "store an intermediate buffer in float64", unsafe=True, reassociates=True))


def _draw_annotate_buffer_access(draw: st.DrawFn, view: View) -> Step:
    return Step("annotate_buffer_access", pick_stage(draw, view).name, (),
                (("buffer", draw(st.integers(0, 2))), ("grow", draw(st.integers(0, 1)))))


def _apply_annotate_buffer_access(sch: Any, step: Step) -> str:
    """Re-declare a read region as what the block already reads, widened by ``grow`` on each
    side and clipped to the buffer: a sound annotation must not change the values computed."""
    from tvm import tirx

    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, "read", step.arg["buffer"])
    region = sch.get(b).reads[j].region
    grow = step.arg.get("grow", 0)

    def gen(*_block_vars: Any) -> list[tuple[Any, Any]]:
        # The callback receives the block's own iterator vars, which the region already uses.
        out = []
        for r, ext in zip(region, buf.shape, strict=True):
            lo, hi = r.min, r.min + r.extent
            if grow:
                dt = str(lo.ty.dtype)
                lo = tirx.max(lo - tirx.IntImm(dt, grow), tirx.IntImm(dt, 0))
                hi = tirx.min(hi + tirx.IntImm(dt, grow), ext)
            out.append((lo, hi))
        return out

    sch.annotate_buffer_access(b, j, "read", gen)
    return f"sch.annotate_buffer_access({step.block!r}, {j}, 'read', <its own region, grown by {grow}>)"


register_primitive(Primitive("annotate_buffer_access", _draw_annotate_buffer_access, _apply_annotate_buffer_access,
                             "declare a (sound, widened) read region"))


def _draw_unsafe_hide_buffer_access(draw: st.DrawFn, view: View) -> Step:
    return Step("unsafe_hide_buffer_access", pick_stage(draw, view).name, (), (("buffer", draw(st.integers(0, 2))),))


def _apply_unsafe_hide_buffer_access(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "read", step.arg["buffer"])
    sch.unsafe_hide_buffer_access(b, "read", [j])
    return f"sch.unsafe_hide_buffer_access({step.block!r}, 'read', [{j}])"


register_primitive(Primitive("unsafe_hide_buffer_access", _draw_unsafe_hide_buffer_access,
                             _apply_unsafe_hide_buffer_access, "hide a read from the block's signature", unsafe=True))
