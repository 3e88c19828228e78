"""Cache stages: cache_read, cache_write, cache_inplace, cache_index, reindex,
reindex_cache_read, reindex_cache_write, read_at, write_at.

Each copy block a step makes enters the view under a block reference (``B<j``: what ``B``
reads through; ``B>j``: what takes over ``B``'s write), so later steps can move, split or
cache it in turn."""

from __future__ import annotations

from collections.abc import Callable
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
    pick_loop,
    pick_stage,
    reduction,
)
from passcheck.tir.schedule.registry import REDUCING, Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import (
    Step,
    StepNotApplicable,
    block_iter_map,
    block_names,
    get_block,
    given_block,
    given_buffer,
    loop_at,
    name_of,
    region_buffer,
    shown,
    with_arity,
)
from passcheck.tir.schedule.view import View

BUFFER_FORMS = ("int (region index)", "str (buffer name)", "Var (the buffer)")
SCOPE_FORMS = tuple(SCOPES)
CONSUMER_FORMS = {None: "None (every reader)", "self": "[this block] (cache_read), [] (cache_write)",
                  "all": "every reader, listed",
                  "names": "every reader, by name"}


def _read_index(draw: st.DrawFn) -> int:
    return draw(st.integers(0, 2))


def _draw_consumers(draw: st.DrawFn) -> tuple[tuple[str, str], ...]:
    """``consumer_blocks``: left out (every reader uses the cache), or a list of readers."""
    how = draw(st.sampled_from((None, None, "self", "all", "names")))
    return (("consumers", how),) if how else ()


def _consumers(sch: Any, step: Step, block: Any, buf: Any, kind: str) -> list[Any] | None:
    """The ``consumer_blocks`` list the step draws: None, [the block], or every block that
    reads the buffer (handles, or names where the names are unique)."""
    from passcheck.tir.analysis.concrete import key

    how = step.arg.get("consumers")
    if how is None:
        return None
    if how == "self":
        return [block] if kind == "read" else []
    readers = []
    names = block_names(sch)
    for name in dict.fromkeys(names):
        if names.count(name) != 1:
            continue
        rv = sch.get_sblock(name)
        if any(key(r.source) == key(buf) for r in sch.get(rv).reads):
            readers.append(name if how == "names" else rv)
    return readers


def _consumers_text(blocks: list[Any] | None, sch: Any) -> str:
    if blocks is None:
        return ""
    return ", consumer_blocks=[" + ", ".join(repr(b) if isinstance(b, str) else repr(sch.get(b).name_hint)
                                            for b in blocks) + "]"


def _cache_draw(prim: str) -> Callable[[st.DrawFn, View], Step]:
    def draw_cache(draw: st.DrawFn, view: View) -> Step:
        s = pick_stage(draw, view)
        j = _read_index(draw) if prim == "cache_read" else 0
        return Step(prim, s.name, (), (("buffer", j), ("scope", draw(st.sampled_from(SCOPES))), *_draw_consumers(draw),
                                       *draw_buffer_as(draw), *draw_by_name(draw)))

    return draw_cache


def _cache_apply(prim: str) -> Callable[[Any, Step], str]:
    kind = "read" if prim == "cache_read" else "write"

    def apply_cache(sch: Any, step: Step) -> str:
        b = get_block(sch, step.block)
        j, buf = region_buffer(sch, b, kind, step.arg["buffer"])
        consumers = _consumers(sch, step, b, buf, kind)
        which = given_buffer(sch, step, b, kind, j)
        kw = {} if consumers is None else {"consumer_blocks": consumers}
        getattr(sch, prim)(given_block(sch, step, b), which, step.arg["scope"], **kw)
        return f"sch.{prim}({step.block!r}, {shown(which)}, {step.arg['scope']!r}{_consumers_text(consumers, sch)})"

    return apply_cache


def _cache_params(prim: str) -> tuple[Any, ...]:
    index = "read_buffer_index" if prim == "cache_read" else "write_buffer_index"
    return (param(prim, "block", *BLOCK_FORMS, form=block_form),
            param(prim, index, *BUFFER_FORMS, form=buffer_form),
            param(prim, "storage_scope", *SCOPE_FORMS, form=arg_form("scope")),
            param(prim, "consumer_blocks", *CONSUMER_FORMS.values(), form=arg_form("consumers", CONSUMER_FORMS)))


def _read_copy(view: View, step: Step) -> View:
    kind = step.arg.get("kind", "read")
    j = step.arg.get("buffer", 0)
    if kind == "write":
        return view.write_copy(step.block, f"{step.block}>{j}", step.prim)
    return view.read_copy(step.block, f"{step.block}<{j}", step.prim)


def _write_copy(view: View, step: Step) -> View:
    return view.write_copy(step.block, f"{step.block}>{step.arg.get('buffer', 0)}", step.prim)


register_primitive(Primitive("cache_read", _cache_draw("cache_read"), _cache_apply("cache_read"),
                             "stage a read buffer through a cache", update=_read_copy,
                             params=_cache_params("cache_read")))
register_primitive(Primitive("cache_write", _cache_draw("cache_write"), _cache_apply("cache_write"),
                             "stage a written buffer through a cache", update=_write_copy,
                             params=_cache_params("cache_write")))


def _decomposed_update(_j: int, x: Any) -> bool:
    """A reduction's update block once decompose_reduction separated its init: it reads the
    buffer it writes (the init, of the same origin, has no reduction iterator)."""
    return x.origin == "decompose_reduction" and "R" in x.iters


def _draw_cache_inplace(draw: st.DrawFn, view: View) -> Step:
    # a reduction not decomposed yet reads nothing it writes: TVM refuses it (drawn one time in eight)
    s = pick_stage(draw, view, _decomposed_update if view.where(_decomposed_update) and draw(st.integers(0, 7))
                   else lambda j, x: x.is_reduction)
    args: tuple[tuple[str, Any], ...] = (("buffer", _read_index(draw)), ("scope", draw(st.sampled_from(SCOPES))))
    if draw(st.integers(0, 3)) > 0:
        args += (("inplace", True),)
    return Step("cache_inplace", s.name, (), (*args, *draw_buffer_as(draw), *draw_by_name(draw)))


def _setup_cache_inplace(draw: st.DrawFn, view: View, spec: Any) -> tuple[tuple[Step, ...], Step]:
    """cache_inplace needs a block that reads and writes one buffer: a reduction's update block
    once decompose_reduction separated its init (at any of its loops)."""
    s = pick_stage(draw, view, reduction)
    prep = (Step("decompose_reduction", s.name, (draw(st.integers(0, 7)),)),)
    return prep, Step("cache_inplace", s.name, (), (("buffer", 0), ("scope", draw(st.sampled_from(SCOPES))),
                                                    ("inplace", True), *draw_buffer_as(draw), *draw_by_name(draw)))


def _apply_cache_inplace(sch: Any, step: Step) -> str:
    from passcheck.tir.analysis.concrete import key

    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "read", step.arg["buffer"])
    if step.arg.get("inplace"):
        blk = sch.get(b)
        written = {key(w.source) for w in blk.writes}
        both = [i for i, r in enumerate(blk.reads) if key(r.source) in written]
        if not both:
            raise StepNotApplicable("the block reads no buffer it also writes")
        j = both[step.arg["buffer"] % len(both)]
    which = given_buffer(sch, step, b, "read", j)
    sch.cache_inplace(given_block(sch, step, b), which, step.arg["scope"])
    return f"sch.cache_inplace({step.block!r}, {shown(which)}, {step.arg['scope']!r})"


def _inplace_update(view: View, step: Step) -> View:
    return view.read_copy(step.block, f"{step.block}<{step.arg.get('buffer', 0)}", step.prim)


register_primitive(Primitive("cache_inplace", _draw_cache_inplace, _apply_cache_inplace,
                             "cache a buffer read and written in place", kinds=REDUCING,
                             setup=_setup_cache_inplace, update=_inplace_update,
                             wants=lambda v: bool(v.where(_decomposed_update)),
                             params=(param("cache_inplace", "block", *BLOCK_FORMS, form=block_form),
                                     param("cache_inplace", "read_buffer_index", *BUFFER_FORMS, form=buffer_form),
                                     param("cache_inplace", "storage_scope", *SCOPE_FORMS, form=arg_form("scope")))))


def _draw_cache_index(draw: st.DrawFn, view: View) -> Step:
    args: tuple[tuple[str, Any], ...] = (("cse_thresh", draw(st.integers(0, 2))),)
    if draw(st.integers(0, 3)) == 0:
        args += (("scope", "local"),)
    return Step("cache_index", pick_stage(draw, view).name, (), (*args, *draw_by_name(draw)))


def _apply_cache_index(sch: Any, step: Step) -> str:
    scope = step.arg.get("scope", "global")
    sch.cache_index(given_block(sch, step, get_block(sch, step.block)), scope,
                    cse_thresh=step.arg.get("cse_thresh", 0))
    return f"sch.cache_index({step.block!r}, {scope!r}, cse_thresh={step.arg.get('cse_thresh', 0)})"


register_primitive(Primitive("cache_index", _draw_cache_index, _apply_cache_index,
                             "precompute index expressions into a buffer",
                             params=(param("cache_index", "block", *BLOCK_FORMS, form=block_form),
                                     param("cache_index", "storage_scope", "global", "local",
                                           form=arg_form("scope", default="global")),
                                     param("cache_index", "cse_thresh", "0", "1", "2",
                                           form=arg_form("cse_thresh")))))


REINDEX_FORMS = {"index": "(kind, int)", "name": "str (buffer name)", "var": "Var (the buffer)"}


def _draw_reindex(draw: st.DrawFn, view: View) -> Step:
    kind = draw(st.sampled_from(("read", "write")))
    return Step("reindex", pick_stage(draw, view).name, (),
                (("kind", kind), ("buffer", _read_index(draw) if kind == "read" else 0), *draw_buffer_as(draw),
                 *draw_by_name(draw)))


def _apply_reindex(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    kind = step.arg["kind"]
    j, _ = region_buffer(sch, b, kind, step.arg["buffer"])
    which = given_buffer(sch, step, b, kind, j)
    arg = (kind, j) if isinstance(which, int) else which
    sch.reindex(given_block(sch, step, b), arg)
    return f"sch.reindex({step.block!r}, {shown(arg)})"


register_primitive(Primitive("reindex", _draw_reindex, _apply_reindex,
                             "copy a buffer into one indexed by the block iterators", update=_read_copy,
                             params=(param("reindex", "block", *BLOCK_FORMS, form=block_form),
                                     param("reindex", "buffer", *[f"{f}, read or write" for f in
                                                                  REINDEX_FORMS.values()],
                                           form=lambda s: f"{REINDEX_FORMS[s.arg.get('buffer_as', 'index')]}, "
                                                          "read or write"))))


def _reindex_cache_draw(kind: str) -> Callable[[st.DrawFn, View], Step]:
    def draw_reindex_cache(draw: st.DrawFn, view: View) -> Step:
        s = pick_stage(draw, view)
        args: tuple[tuple[str, Any], ...] = (
            ("buffer", _read_index(draw) if kind == "read" else 0), ("scope", draw(st.sampled_from(SCOPES))),
            ("perm", draw_perm(draw, len(s.iters))))
        if draw_bool_quarter(draw):
            args += (("map_as", "callable"),)
        return Step(f"reindex_cache_{kind}", s.name, (), (*args, *draw_by_name(draw)))

    return draw_reindex_cache


def draw_bool_quarter(draw: st.DrawFn) -> bool:
    return draw(st.integers(0, 3)) == 0


def _reindex_cache_apply(kind: str) -> Callable[[Any, Step], str]:
    def apply_reindex_cache(sch: Any, step: Step) -> str:
        b = get_block(sch, step.block)
        j, _ = region_buffer(sch, b, kind, step.arg["buffer"])
        imap, order = block_iter_map(sch, b, step.arg["perm"])
        fn = with_arity(lambda *v: [v[i] for i in order], len(order)) if step.arg.get("map_as") == "callable" \
            else imap
        getattr(sch, f"reindex_cache_{kind}")(given_block(sch, step, b), j, step.arg["scope"], fn)
        return (f"sch.reindex_cache_{kind}({step.block!r}, {j}, {step.arg['scope']!r}, "
                f"lambda *v: [v[i] for i in {order}])")

    return apply_reindex_cache


def _reindex_cache_params(kind: str) -> tuple[Any, ...]:
    m = f"reindex_cache_{kind}"
    return (param(m, "block", *BLOCK_FORMS, form=block_form),
            param(m, f"{kind}_buffer_index", "int (region index)"),
            param(m, "storage_scope", *SCOPE_FORMS, form=arg_form("scope")),
            param(m, "index_map", "IndexMap (a permutation of the block iterators)", "Callable (the same, as a lambda)",
                  form=lambda s: "Callable (the same, as a lambda)" if s.arg.get("map_as") == "callable"
                  else "IndexMap (a permutation of the block iterators)"))


register_primitive(Primitive("reindex_cache_read", _reindex_cache_draw("read"), _reindex_cache_apply("read"),
                             "cache_read with a block-iterator index map", update=_read_copy,
                             params=_reindex_cache_params("read")))
register_primitive(Primitive("reindex_cache_write", _reindex_cache_draw("write"), _reindex_cache_apply("write"),
                             "cache_write with a block-iterator index map", update=_write_copy,
                             params=_reindex_cache_params("write")))


def _at_loop_draw(kind: str) -> Callable[[st.DrawFn, View], Step]:
    def draw_at_loop(draw: st.DrawFn, view: View) -> Step:
        s = pick_stage(draw, view)
        return Step(f"{kind}_at", s.name, (pick_loop(draw, s),),
                    (("buffer", _read_index(draw) if kind == "read" else 0),
                     ("scope", draw(st.sampled_from(SCOPES)))))

    return draw_at_loop


def _at_loop_apply(kind: str) -> Callable[[Any, Step], str]:
    def apply_at_loop(sch: Any, step: Step) -> str:
        b = get_block(sch, step.block)
        loop = loop_at(sch, b, step.loops[0])
        j, _ = region_buffer(sch, b, kind, step.arg["buffer"])
        lname = name_of(sch, loop)
        getattr(sch, f"{kind}_at")(loop, b, j, step.arg["scope"])
        return f"sch.{kind}_at({lname!r}, {step.block!r}, {j}, {step.arg['scope']!r})"

    return apply_at_loop


def _at_loop_params(kind: str) -> tuple[Any, ...]:
    m = f"{kind}_at"
    return (param(m, "loop", "any loop of the block's nest"), param(m, "block", "SBlockRV"),
            param(m, f"{kind}_buffer_index", "int (region index)"),
            param(m, "storage_scope", *SCOPE_FORMS, form=arg_form("scope")))


register_primitive(Primitive("read_at", _at_loop_draw("read"), _at_loop_apply("read"),
                             "cache a read region under a loop", update=_read_copy, params=_at_loop_params("read")))
register_primitive(Primitive("write_at", _at_loop_draw("write"), _at_loop_apply("write"),
                             "cache a written region under a loop", update=_write_copy,
                             params=_at_loop_params("write")))
