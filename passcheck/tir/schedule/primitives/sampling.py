"""Sampling primitives, each applied with the decision it sampled: sample_perfect_tile,
sample_partitioned_tile (then split), sample_compute_location (then compute_at),
sample_categorical (then annotate an unroll depth)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import (
    BLOCK_FORMS,
    LOOP_INDEX,
    block_form,
    draw_by_name,
    not_output,
    pick_loop,
    pick_stage,
)
from passcheck.tir.schedule.primitives.loops import split_like_update
from passcheck.tir.schedule.registry import Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import Step, StepNotApplicable, get_block, given_block, loop_at, name_of
from passcheck.tir.schedule.view import View


def _sampled(sch: Any, rv: Any) -> Any:
    try:
        return int(sch.get(rv))
    except (TypeError, ValueError):
        return rv


DECISION_FORMS = ("None (sampled)", "given")


def _decision_form(step: Step) -> str:
    return "given" if "decision" in step.arg else "None (sampled)"


def _maybe_decision(draw: st.DrawFn, values: st.SearchStrategy[Any]) -> tuple[tuple[str, Any], ...]:
    return (("decision", draw(values)),) if draw(st.booleans()) else ()


def _draw_sample_perfect_tile(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("sample_perfect_tile", s.name, (pick_loop(draw, s),),
                (("n", draw(st.integers(2, 3))), ("max_innermost", draw(st.sampled_from((4, 16)))),
                 *_maybe_decision(draw, st.integers(0, 63))))


def _perfect_tiling(sch: Any, loop: Any, n: int, pick: int, max_inner: int) -> list[int]:
    """The ``pick``-th (modulo their number) way to write the loop's constant extent as a
    product of ``n`` factors whose innermost is at most ``max_inner``: a valid decision."""
    from tvm import tirx

    ext = sch.get(loop).extent
    if not isinstance(ext, tirx.IntImm):
        raise StepNotApplicable("a perfect tiling decision needs a constant extent")
    e = int(ext.value)

    def tilings(rest: int, k: int) -> list[list[int]]:
        if k == 1:
            return [[rest]]
        return [[d, *t] for d in range(1, rest + 1) if rest % d == 0 for t in tilings(rest // d, k - 1)]

    ok = [t for t in tilings(e, n) if t[-1] <= max_inner] or [[e] + [1] * (n - 1)]
    return ok[pick % len(ok)]


def _apply_sample_perfect_tile(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    n, inner = step.arg["n"], step.arg.get("max_innermost", 16)
    kw = {}
    if "decision" in step.arg:
        kw["decision"] = _perfect_tiling(sch, loop, n, step.arg["decision"], inner)
    tiles = sch.sample_perfect_tile(loop, n=n, max_innermost_factor=inner, **kw)
    sch.split(loop, tiles)
    vals = [_sampled(sch, t) for t in tiles]
    given = f", decision={kw['decision']}" if kw else ""
    return f"sch.split({lname!r} of {step.block!r}, sch.sample_perfect_tile(n={n}{given}))  # sampled {vals}"


register_primitive(Primitive("sample_perfect_tile", _draw_sample_perfect_tile, _apply_sample_perfect_tile,
                             "split by a sampled perfect tiling", update=split_like_update,
                             params=(param("sample_perfect_tile", "loop", "any loop of the block's nest"),
                                     param("sample_perfect_tile", "n", "2", "3", form=arg_form("n")),
                                     param("sample_perfect_tile", "max_innermost_factor", "4", "16",
                                           form=arg_form("max_innermost")),
                                     param("sample_perfect_tile", "decision", *DECISION_FORMS, form=_decision_form),
                                     param("split", "factors", "sampled ExprRVs"))))


def _draw_sample_partitioned_tile(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("sample_partitioned_tile", s.name, (pick_loop(draw, s),),
                (("n", draw(st.integers(2, 3))), ("pos", draw(st.integers(0, 2))),
                 ("inner", draw(st.sampled_from((1, 2, 4)))), *_maybe_decision(draw, st.just(True))))


def _apply_sample_partitioned_tile(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    n = step.arg["n"]
    kw: dict[str, Any] = {"n": n, "partition_pos": step.arg["pos"] % n, "innerpart_factor": step.arg["inner"]}
    if "decision" in step.arg:
        # A decision TVM itself would make: what a first sampling (on a copy) drew.
        probe = sch.copy()
        kw["decision"] = [_sampled(probe, t) for t in probe.sample_partitioned_tile(loop, **kw)]
    tiles = sch.sample_partitioned_tile(loop, **kw)
    sch.split(loop, tiles)
    vals = [_sampled(sch, t) for t in tiles]
    given = f", decision={kw['decision']}" if "decision" in kw else ""
    return f"sch.split({lname!r} of {step.block!r}, sch.sample_partitioned_tile(n={n}{given}))  # sampled {vals}"


register_primitive(Primitive("sample_partitioned_tile", _draw_sample_partitioned_tile, _apply_sample_partitioned_tile,
                             "split by a sampled partitioned tiling", update=split_like_update,
                             params=(param("sample_partitioned_tile", "loop", "any loop of the block's nest"),
                                     param("sample_partitioned_tile", "n", "2", "3", form=arg_form("n")),
                                     param("sample_partitioned_tile", "partition_pos", "0", "1", "2 (modulo n)",
                                           form=lambda s: ("0", "1", "2 (modulo n)")[s.arg["pos"]]),
                                     param("sample_partitioned_tile", "innerpart_factor", "1", "2", "4",
                                           form=arg_form("inner")),
                                     param("sample_partitioned_tile", "decision", "None (sampled)",
                                           "given (a decision a first sampling made)",
                                           form=lambda s: "given (a decision a first sampling made)"
                                           if "decision" in s.arg else "None (sampled)"))))


def _draw_sample_compute_location(draw: st.DrawFn, view: View) -> Step:
    return Step("sample_compute_location", pick_stage(draw, view, not_output).name, (),
                (*_maybe_decision(draw, st.integers(-2, 3)), *draw_by_name(draw)))


def _apply_sample_compute_location(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    kw = {"decision": step.arg["decision"]} if "decision" in step.arg else {}
    loc = sch.sample_compute_location(given_block(sch, step, b), **kw)
    # The sample may be one of the special locations (root, inline) that sch.get cannot show;
    # compute_at accepts them.
    try:
        lname = sch.get(loc).loop_var.name
    except (TypeError, AttributeError, ValueError):
        lname = "<root or inline>"
    sch.compute_at(b, loc)
    given = f", decision={kw['decision']}" if kw else ""
    return (f"sch.compute_at({step.block!r}, sch.sample_compute_location({step.block!r}{given}))  "
            f"# sampled {lname!r}")


register_primitive(Primitive("sample_compute_location", _draw_sample_compute_location, _apply_sample_compute_location,
                             "compute_at a sampled location",
                             params=(param("sample_compute_location", "block", *BLOCK_FORMS, form=block_form),
                                     param("sample_compute_location", "decision", "None (sampled)",
                                           "given (-2 .. 3)", form=lambda s: "given (-2 .. 3)"
                                           if "decision" in s.arg else "None (sampled)"))))

CANDIDATES = ((0, 16, 64, 512), (0, 512), (16,))


def _draw_sample_categorical(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    args: tuple[tuple[str, Any], ...] = ()
    if draw(st.booleans()):
        cands = draw(st.sampled_from(CANDIDATES))
        skew = draw(st.booleans())
        args = (("candidates", cands), ("skewed", skew), *_maybe_decision(draw, st.integers(0, len(cands) - 1)))
    return Step("sample_categorical", s.name, (draw(LOOP_INDEX),), args)


def _apply_sample_categorical(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    cands = list(step.arg.get("candidates", (0, 16, 64, 512)))
    weights = [float(i + 1) for i in range(len(cands))] if step.arg.get("skewed") else [1.0] * len(cands)
    probs = [w / sum(weights) for w in weights]
    kw = {"decision": step.arg["decision"]} if "decision" in step.arg else {}
    v = sch.sample_categorical(cands, probs, **kw)
    sch.annotate(loop, "pragma_auto_unroll_max_step", v)
    given = f", decision={kw['decision']}" if kw else ""
    return (f"sch.annotate({lname!r}, 'pragma_auto_unroll_max_step', sch.sample_categorical({cands}{given}))  "
            f"# sampled {int(sch.get(v))}")


register_primitive(Primitive("sample_categorical", _draw_sample_categorical, _apply_sample_categorical,
                             "annotate an unroll depth sampled categorically",
                             params=(param("sample_categorical", "candidates", "4 unroll depths", "2 unroll depths",
                                           "1 unroll depth", form=lambda s: {4: "4 unroll depths", 2: "2 unroll depths",
                                                                             1: "1 unroll depth"}[
                                               len(s.arg.get("candidates", (0, 16, 64, 512)))]),
                                     param("sample_categorical", "probs", "uniform", "skewed",
                                           form=lambda s: "skewed" if s.arg.get("skewed") else "uniform"),
                                     param("sample_categorical", "decision", *DECISION_FORMS, form=_decision_form))))
