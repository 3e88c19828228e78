"""Cache stages: cache_read, cache_write, cache_inplace, cache_index, reindex,
reindex_cache_read, reindex_cache_write, read_at, write_at."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import SCOPES, draw_perm, pick_loop, pick_stage, reduction
from passcheck.tir.schedule.registry import REDUCING, Primitive, register_primitive
from passcheck.tir.schedule.step import Step, block_iter_map, get_block, loop_at, name_of, region_buffer
from passcheck.tir.schedule.view import View


def _draw_cache_read(draw: st.DrawFn, view: View) -> Step:
    return Step("cache_read", pick_stage(draw, view).name, (),
                (("buffer", draw(st.integers(0, 2))), ("scope", draw(st.sampled_from(SCOPES)))))


def _apply_cache_read(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "read", step.arg["buffer"])
    sch.cache_read(b, j, step.arg["scope"])
    return f"sch.cache_read({step.block!r}, {j}, {step.arg['scope']!r})"


register_primitive(Primitive("cache_read", _draw_cache_read, _apply_cache_read, "stage a read buffer through a cache"))


def _draw_cache_write(draw: st.DrawFn, view: View) -> Step:
    return Step("cache_write", pick_stage(draw, view).name, (),
                (("buffer", 0), ("scope", draw(st.sampled_from(SCOPES)))))


def _apply_cache_write(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "write", step.arg["buffer"])
    sch.cache_write(b, j, step.arg["scope"])
    return f"sch.cache_write({step.block!r}, {j}, {step.arg['scope']!r})"


register_primitive(Primitive("cache_write", _draw_cache_write, _apply_cache_write,
                             "stage a written buffer through a cache"))


def _draw_cache_inplace(draw: st.DrawFn, view: View) -> Step:
    return Step("cache_inplace", pick_stage(draw, view, reduction).name, (),
                (("buffer", draw(st.integers(0, 2))), ("scope", draw(st.sampled_from(SCOPES)))))


def _apply_cache_inplace(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "read", step.arg["buffer"])
    sch.cache_inplace(b, j, step.arg["scope"])
    return f"sch.cache_inplace({step.block!r}, {j}, {step.arg['scope']!r})"


register_primitive(Primitive("cache_inplace", _draw_cache_inplace, _apply_cache_inplace,
                             "cache a buffer read and written in place", kinds=REDUCING))


def _draw_cache_index(draw: st.DrawFn, view: View) -> Step:
    return Step("cache_index", pick_stage(draw, view).name, (), (("cse_thresh", draw(st.integers(0, 2))),))


def _apply_cache_index(sch: Any, step: Step) -> str:
    sch.cache_index(get_block(sch, step.block), "global", cse_thresh=step.arg.get("cse_thresh", 0))
    return f"sch.cache_index({step.block!r}, 'global', cse_thresh={step.arg.get('cse_thresh', 0)})"


register_primitive(Primitive("cache_index", _draw_cache_index, _apply_cache_index,
                             "precompute index expressions into a buffer"))


def _draw_reindex(draw: st.DrawFn, view: View) -> Step:
    kind = draw(st.sampled_from(("read", "write")))
    return Step("reindex", pick_stage(draw, view).name, (),
                (("kind", kind), ("buffer", draw(st.integers(0, 2)) if kind == "read" else 0)))


def _apply_reindex(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    kind = step.arg["kind"]
    j, _ = region_buffer(sch, b, kind, step.arg["buffer"])
    sch.reindex(b, (kind, j))
    return f"sch.reindex({step.block!r}, ({kind!r}, {j}))"


register_primitive(Primitive("reindex", _draw_reindex, _apply_reindex,
                             "copy a buffer into one indexed by the block iterators"))


def _reindex_cache_draw(kind: str) -> Callable[[st.DrawFn, View], Step]:
    def draw_reindex_cache(draw: st.DrawFn, view: View) -> Step:
        s = pick_stage(draw, view)
        return Step(f"reindex_cache_{kind}", s.name, (),
                    (("buffer", draw(st.integers(0, 2)) if kind == "read" else 0),
                     ("scope", draw(st.sampled_from(SCOPES))), ("perm", draw_perm(draw, len(s.iters)))))

    return draw_reindex_cache


def _reindex_cache_apply(kind: str) -> Callable[[Any, Step], str]:
    def apply_reindex_cache(sch: Any, step: Step) -> str:
        b = get_block(sch, step.block)
        j, _ = region_buffer(sch, b, kind, step.arg["buffer"])
        imap, order = block_iter_map(sch, b, step.arg["perm"])
        getattr(sch, f"reindex_cache_{kind}")(b, j, step.arg["scope"], imap)
        return (f"sch.reindex_cache_{kind}({step.block!r}, {j}, {step.arg['scope']!r}, "
                f"lambda *v: [v[i] for i in {order}])")

    return apply_reindex_cache


register_primitive(Primitive("reindex_cache_read", _reindex_cache_draw("read"), _reindex_cache_apply("read"),
                             "cache_read with a block-iterator index map"))
register_primitive(Primitive("reindex_cache_write", _reindex_cache_draw("write"), _reindex_cache_apply("write"),
                             "cache_write with a block-iterator index map"))


def _at_loop_draw(kind: str) -> Callable[[st.DrawFn, View], Step]:
    def draw_at_loop(draw: st.DrawFn, view: View) -> Step:
        s = pick_stage(draw, view)
        return Step(f"{kind}_at", s.name, (pick_loop(draw, s),),
                    (("buffer", draw(st.integers(0, 2)) if kind == "read" else 0),
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


register_primitive(Primitive("read_at", _at_loop_draw("read"), _at_loop_apply("read"),
                             "cache a read region under a loop"))
register_primitive(Primitive("write_at", _at_loop_draw("write"), _at_loop_apply("write"),
                             "cache a written region under a loop"))
