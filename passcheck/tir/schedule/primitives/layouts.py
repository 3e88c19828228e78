"""Buffer and block layouts: transform_layout, transform_block_layout, storage_align,
set_scope."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import SCOPES, draw_perm, not_output, pick_stage
from passcheck.tir.schedule.registry import Primitive, register_primitive
from passcheck.tir.schedule.step import (
    Step,
    StepNotApplicable,
    block_iter_map,
    get_block,
    is_param_buffer,
    region_buffer,
)
from passcheck.tir.schedule.view import View


def _draw_transform_layout(draw: st.DrawFn, view: View) -> Step:
    # Intermediate buffers only (a parameter's layout is the function's signature): the
    # writer's write, or a consumer's read.
    kind = draw(st.sampled_from(("write", "read")))
    s = pick_stage(draw, view, not_output if kind == "write" else (lambda j, x: j > 0))
    mk = draw(st.sampled_from(("permute", "split", "fuse")))
    if mk == "permute":
        desc: tuple[Any, ...] = ("permute", draw_perm(draw, 4))
    elif mk == "split":
        desc = ("split", draw(st.integers(0, 3)), draw(st.sampled_from((2, 3, 4, 8))))
    else:
        desc = ("fuse", draw(st.integers(0, 2)))
    pad = draw(st.sampled_from((None, None, 0.0)))
    return Step("transform_layout", s.name, (),
                (("kind", kind), ("buffer", draw(st.integers(0, 2)) if kind == "read" else 0), ("map", desc),
                 ("pad_value", pad)))


def _index_map(desc: tuple[Any, ...], shape: list[Any], index_dtype: str) -> Any:
    """An IndexMap over a buffer of ``shape`` from a plain description:
    ("permute", perm) | ("split", dim, factor) | ("fuse", dim)."""
    from tvm import tirx

    nd = len(shape)
    kind = desc[0]
    if kind == "permute":
        perm = [p % nd for p in desc[1]]
        if sorted(perm) != list(range(nd)):
            perm = list(range(nd))[::-1]
        return tirx.IndexMap.from_func(lambda *v: [v[p] for p in perm], ndim=nd, index_dtype=index_dtype)
    if kind == "split":
        d, f = desc[1] % nd, int(desc[2])

        def split(*v: Any) -> list[Any]:
            c = tirx.IntImm(v[d].ty.dtype, f)
            return [*v[:d], tirx.floordiv(v[d], c), tirx.floormod(v[d], c), *v[d + 1:]]

        return tirx.IndexMap.from_func(split, ndim=nd, index_dtype=index_dtype)
    if kind == "fuse":
        if nd < 2:
            raise StepNotApplicable("fuse needs a buffer of 2 or more dims")
        d = desc[1] % (nd - 1)
        inner = shape[d + 1]

        def fuse(*v: Any) -> list[Any]:
            return [*v[:d], v[d] * tirx.Cast(v[d].ty.dtype, inner) + v[d + 1], *v[d + 2:]]

        return tirx.IndexMap.from_func(fuse, ndim=nd, index_dtype=index_dtype)
    raise StepNotApplicable(f"unknown index map kind {kind!r}")


def _shape_dtype(shape: list[Any]) -> str:
    return str(shape[0].ty.dtype) if shape else "int32"


def _apply_transform_layout(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, a["kind"], a["buffer"])
    if is_param_buffer(sch, buf):
        # A parameter's layout is the function's interface: callers would have to change too.
        raise StepNotApplicable("transform_layout of a function parameter changes the signature")
    shape = list(buf.shape)
    imap = _index_map(a["map"], shape, _shape_dtype(shape))
    pad = a.get("pad_value")
    sch.transform_layout(b, (a["kind"], j), imap, pad_value=pad)
    return f"sch.transform_layout({step.block!r}, ({a['kind']!r}, {j}), {a['map']!r}, pad_value={pad!r})"


register_primitive(Primitive("transform_layout", _draw_transform_layout, _apply_transform_layout,
                             "re-layout an intermediate buffer through an index map"))


def _draw_transform_block_layout(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("transform_block_layout", s.name, (), (("perm", draw_perm(draw, len(s.iters))),))


def _apply_transform_block_layout(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    imap, order = block_iter_map(sch, b, step.arg["perm"])
    sch.transform_block_layout(b, imap)
    return f"sch.transform_block_layout({step.block!r}, lambda *v: [v[i] for i in {order}])"


register_primitive(Primitive("transform_block_layout", _draw_transform_block_layout, _apply_transform_block_layout,
                             "permute a block's iteration space", reassociates=True))


def _draw_storage_align(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, not_output)
    f = draw(st.sampled_from((2, 4, 8, 16, 32)))
    return Step("storage_align", s.name, (), (("buffer", 0), ("axis", draw(st.integers(0, 2))), ("factor", f),
                                              ("offset", draw(st.integers(0, f - 1)))))


def _apply_storage_align(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, "write", a["buffer"])
    axis = a["axis"] % max(1, len(buf.shape))
    sch.storage_align(b, j, axis, a["factor"], a["offset"] % a["factor"])
    return (f"sch.storage_align({step.block!r}, {j}, axis={axis}, factor={a['factor']}, "
            f"offset={a['offset'] % a['factor']})")


register_primitive(Primitive("storage_align", _draw_storage_align, _apply_storage_align,
                             "pad an intermediate buffer's strides"))


def _draw_set_scope(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, not_output)
    return Step("set_scope", s.name, (), (("buffer", 0), ("scope", draw(st.sampled_from(SCOPES)))))


def _apply_set_scope(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "write", step.arg["buffer"])
    sch.set_scope(b, j, step.arg["scope"])
    return f"sch.set_scope({step.block!r}, {j}, {step.arg['scope']!r})"


register_primitive(Primitive("set_scope", _draw_set_scope, _apply_set_scope,
                             "change an intermediate buffer's storage scope"))
