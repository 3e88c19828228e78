"""Buffer and block layouts: transform_layout, transform_block_layout, storage_align,
set_scope."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import (
    BLOCK_FORMS,
    SCOPES,
    block_form,
    buffer_form,
    draw_buffer_as,
    draw_by_name,
    draw_perm,
    not_output,
    pick_stage,
)
from passcheck.tir.schedule.registry import Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import (
    Step,
    StepNotApplicable,
    block_iter_map,
    get_block,
    given_block,
    given_buffer,
    is_param_buffer,
    region_buffer,
    shown,
    with_arity,
)
from passcheck.tir.schedule.view import View

PAD_FORMS = {None: "None", "float": "float", "int": "int", "expr": "PrimExpr", "callable": "Callable (of the indices)",
             "index_map": "IndexMap (of the indices)"}
MAP_FORMS = {"permute": "permutation", "split": "split of a dim (padded where the factor does not divide)",
             "fuse": "fusion of two dims", "collapse": "non-injective (two indices onto one)"}


def _draw_transform_layout(draw: st.DrawFn, view: View) -> Step:
    # Intermediate buffers only (a parameter's layout is the function's signature): the
    # writer's write, or a consumer's read.
    kind = draw(st.sampled_from(("write", "read")))
    s = pick_stage(draw, view, not_output if kind == "write" else (lambda j, x: bool(view.producers(x.name))))
    mk = draw(st.sampled_from(("permute", "split", "fuse", "split", "collapse")))
    if mk == "permute":
        desc: tuple[Any, ...] = ("permute", draw_perm(draw, 4))
    elif mk in ("split", "collapse"):
        desc = (mk, draw(st.integers(0, 3)), draw(st.sampled_from((2, 3, 4, 8))))
    else:
        desc = ("fuse", draw(st.integers(0, 2)))
    pad = draw(st.sampled_from((None, None, "float", "int", "expr", "callable", "index_map")))
    args: tuple[tuple[str, Any], ...] = (
        ("kind", kind), ("buffer", draw(st.integers(0, 2)) if kind == "read" else 0), ("map", desc),
        ("pad_value", 0.0 if pad == "float" else pad), ("intermediate", True))
    if draw(st.integers(0, 3)) == 0:
        args += (("map_as", "callable"),)
    if mk != "collapse" and draw(st.integers(0, 3)) == 0:
        args += (("assume_injective", True),)
    return Step("transform_layout", s.name, (), (*args, *draw_buffer_as(draw), *draw_by_name(draw)))


def _index_fn(desc: tuple[Any, ...], shape: list[Any]) -> Any:
    """The index function of a plain description: ("permute", perm) | ("split", dim, factor)
    | ("fuse", dim) | ("collapse", dim, factor) (floor-divides one index: not injective)."""
    from tvm import tirx

    nd = len(shape)
    kind = desc[0]
    if kind == "permute":
        perm = [p % nd for p in desc[1]]
        if sorted(perm) != list(range(nd)):
            perm = list(range(nd))[::-1]
        return lambda *v: [v[p] for p in perm]
    if kind in ("split", "collapse"):
        d, f = desc[1] % nd, int(desc[2])

        def split(*v: Any) -> list[Any]:
            c = tirx.IntImm(v[d].ty.dtype, f)
            if kind == "collapse":
                return [*v[:d], tirx.floordiv(v[d], c), *v[d + 1:]]
            return [*v[:d], tirx.floordiv(v[d], c), tirx.floormod(v[d], c), *v[d + 1:]]

        return split
    if kind == "fuse":
        if nd < 2:
            raise StepNotApplicable("fuse needs a buffer of 2 or more dims")
        d = desc[1] % (nd - 1)
        inner = shape[d + 1]

        def fuse(*v: Any) -> list[Any]:
            return [*v[:d], v[d] * tirx.Cast(v[d].ty.dtype, inner) + v[d + 1], *v[d + 2:]]

        return fuse
    raise StepNotApplicable(f"unknown index map kind {kind!r}")


def _index_map(desc: tuple[Any, ...], shape: list[Any], index_dtype: str) -> Any:
    """An IndexMap over a buffer of ``shape`` from a plain description (see ``_index_fn``)."""
    from tvm import tirx

    return tirx.IndexMap.from_func(_index_fn(desc, shape), ndim=len(shape), index_dtype=index_dtype)


def _pad_value(form: Any, dtype: str, nd: int, index_dtype: str) -> tuple[Any, str]:
    """The ``pad_value`` argument of a drawn form, and how it reads in a trace."""
    from tvm import tirx

    if form is None or isinstance(form, float):
        return form, repr(form)
    if form == "int":
        return 0, "0"
    if form == "expr":
        return tirx.const(0.5, dtype), f"T.{dtype}(0.5)"
    if form == "callable":
        return with_arity(lambda *i: tirx.Cast(dtype, i[-1]), nd), f"lambda *i: T.Cast({dtype!r}, i[-1])"
    return (tirx.IndexMap.from_func(lambda *i: [tirx.Cast(dtype, i[0])], ndim=nd, index_dtype=index_dtype),
            f"IndexMap(lambda *i: [T.Cast({dtype!r}, i[0])])")


def _shape_dtype(shape: list[Any]) -> str:
    return str(shape[0].ty.dtype) if shape else "int32"


def _apply_transform_layout(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, a["kind"], a["buffer"])
    if a.get("intermediate") and is_param_buffer(sch, buf):
        blk = sch.get(b)
        regions = list(blk.reads if a["kind"] == "read" else blk.writes)
        inner = [i for i, r in enumerate(regions) if not is_param_buffer(sch, r.source)]
        if inner:  # the buffer drawn among the block's intermediates
            j, buf = region_buffer(sch, b, a["kind"], inner[a["buffer"] % len(inner)])
    if is_param_buffer(sch, buf):
        # A parameter's layout is the function's interface: callers would have to change too.
        raise StepNotApplicable("transform_layout of a function parameter changes the signature")
    shape = list(buf.shape)
    dt = _shape_dtype(shape)
    fn = _index_fn(a["map"], shape)
    imap = with_arity(fn, len(shape)) if a.get("map_as") == "callable" else _index_map(a["map"], shape, dt)
    nd_after = len(_index_map(a["map"], shape, dt).final_indices)
    pad, pad_text = _pad_value(a.get("pad_value"), str(buf.dtype), nd_after, dt)
    which = given_buffer(sch, step, b, a["kind"], j)
    target = (a["kind"], j) if isinstance(which, int) else which
    kw = {"assume_injective_transform": True} if a.get("assume_injective") else {}
    sch.transform_layout(given_block(sch, step, b), target, imap, pad_value=pad, **kw)
    extra = ", assume_injective_transform=True" if kw else ""
    return f"sch.transform_layout({step.block!r}, {shown(target)}, {a['map']!r}, pad_value={pad_text}{extra})"


def _map_form(step: Step) -> str:
    return MAP_FORMS[step.arg["map"][0]]


register_primitive(Primitive("transform_layout", _draw_transform_layout, _apply_transform_layout,
                             "re-layout an intermediate buffer through an index map", min_stages=2,
                             params=(param("transform_layout", "block", *BLOCK_FORMS, form=block_form),
                                     param("transform_layout", "buffer", "(kind, int)", "str (buffer name)",
                                           "Var (the buffer)", form=lambda s: {"index": "(kind, int)"}.get(
                                               s.arg.get("buffer_as", "index"), buffer_form(s))),
                                     param("transform_layout", "index_map", *[f"IndexMap: {m}" for m in
                                                                              MAP_FORMS.values()],
                                           "Callable", form=lambda s: "Callable" if s.arg.get("map_as") ==
                                           "callable" else f"IndexMap: {_map_form(s)}"),
                                     param("transform_layout", "pad_value", *PAD_FORMS.values(),
                                           form=lambda s: PAD_FORMS["float" if isinstance(s.arg.get("pad_value"),
                                                                                          float)
                                                                    else s.arg.get("pad_value")]),
                                     param("transform_layout", "assume_injective_transform", "False",
                                           "True (injective maps)", form=lambda s: "True (injective maps)" if
                                           s.arg.get("assume_injective") else "False"))))


def _draw_transform_block_layout(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    extra = (("map_as", "callable"),) if draw(st.integers(0, 3)) == 0 else ()
    return Step("transform_block_layout", s.name, (), (("perm", draw_perm(draw, len(s.iters))), *extra,
                                                       *draw_by_name(draw)))


def _apply_transform_block_layout(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    imap, order = block_iter_map(sch, b, step.arg["perm"])
    fn = with_arity(lambda *v: [v[i] for i in order], len(order)) if step.arg.get("map_as") == "callable" \
        else imap
    sch.transform_block_layout(given_block(sch, step, b), fn)
    return f"sch.transform_block_layout({step.block!r}, lambda *v: [v[i] for i in {order}])"


register_primitive(Primitive("transform_block_layout", _draw_transform_block_layout, _apply_transform_block_layout,
                             "permute a block's iteration space", reassociates=True,
                             params=(param("transform_block_layout", "block", *BLOCK_FORMS, form=block_form),
                                     param("transform_block_layout", "index_map", "IndexMap (a permutation)",
                                           "Callable (the same, as a lambda)",
                                           form=lambda s: "Callable (the same, as a lambda)" if s.arg.get("map_as")
                                           == "callable" else "IndexMap (a permutation)"))))


def _draw_storage_align(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, not_output)
    f = draw(st.sampled_from((2, 4, 8, 16, 32)))
    return Step("storage_align", s.name, (), (("buffer", 0), ("axis", draw(st.integers(0, 2))), ("factor", f),
                                              ("offset", draw(st.integers(0, f - 1))), *draw_by_name(draw)))


def _apply_storage_align(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, "write", a["buffer"])
    axis = a["axis"] % max(1, len(buf.shape))
    sch.storage_align(given_block(sch, step, b), j, axis, a["factor"], a["offset"] % a["factor"])
    return (f"sch.storage_align({step.block!r}, {j}, axis={axis}, factor={a['factor']}, "
            f"offset={a['offset'] % a['factor']})")


register_primitive(Primitive("storage_align", _draw_storage_align, _apply_storage_align,
                             "pad an intermediate buffer's strides", min_stages=2,
                             params=(param("storage_align", "block", *BLOCK_FORMS, form=block_form),
                                     param("storage_align", "buffer_index", "int (write region index)"),
                                     param("storage_align", "axis", "0", "1", "2 (modulo the buffer's dims)",
                                           form=lambda s: ("0", "1", "2 (modulo the buffer's dims)")[s.arg["axis"]]),
                                     param("storage_align", "factor", "2", "4", "8", "16", "32",
                                           form=arg_form("factor")),
                                     param("storage_align", "offset", "0 .. factor - 1"))))


def _draw_set_scope(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, not_output)
    return Step("set_scope", s.name, (), (("buffer", 0), ("scope", draw(st.sampled_from(SCOPES))),
                                          *draw_buffer_as(draw), *draw_by_name(draw)))


def _apply_set_scope(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "write", step.arg["buffer"])
    which = given_buffer(sch, step, b, "write", j)
    sch.set_scope(given_block(sch, step, b), which, step.arg["scope"])
    return f"sch.set_scope({step.block!r}, {shown(which)}, {step.arg['scope']!r})"


register_primitive(Primitive("set_scope", _draw_set_scope, _apply_set_scope,
                             "change an intermediate buffer's storage scope", min_stages=2,
                             params=(param("set_scope", "block", *BLOCK_FORMS, form=block_form),
                                     param("set_scope", "buffer_index", "int (region index)", "str (buffer name)",
                                           "Var (the buffer)", form=buffer_form),
                                     param("set_scope", "storage_scope", *SCOPES, form=arg_form("scope")))))
