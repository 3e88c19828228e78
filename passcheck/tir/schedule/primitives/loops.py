"""Loop nests reshaped: split, fuse, reorder. The split helpers also make loop_partition (in
``nests``), which takes the same arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.schedule.drawing import LOOP_INDEX, draw_bool, draw_factors, pick_loop, pick_stage
from passcheck.tir.schedule.registry import Primitive, arg_form, param, register_primitive
from passcheck.tir.schedule.step import (
    Step,
    StepNotApplicable,
    distinct_loops,
    get_block,
    loop_at,
    loops_of,
    name_of,
)
from passcheck.tir.schedule.view import Block, View


def split_like_draw(prim: str) -> Callable[[st.DrawFn, View], Step]:
    """The draw of ``split`` and of ``loop_partition``: a loop, 2-3 factors (an int, None for
    the inferred one, or an int given as an expression), unit iters kept or not; split also
    draws ``disable_predication``."""

    def draw_split_like(draw: st.DrawFn, view: View) -> Step:
        s = pick_stage(draw, view)
        factors = draw_factors(draw) if prim == "split" else draw_partition(draw)
        args: tuple[tuple[str, Any], ...] = (("factors", factors), ("preserve_unit_iters", draw_bool(draw)))
        if draw(st.integers(0, 3)) == 0:
            args += (("factors_as", "expr"),)
        if prim == "split" and draw(st.integers(0, 3)) == 0:
            args += (("disable_predication", True),)
        return Step(prim, s.name, (pick_loop(draw, s),), args)

    return draw_split_like


def draw_partition(draw: st.DrawFn) -> tuple[int | None, ...]:
    """loop_partition's factors are the lengths of consecutive pieces (their sum must stay
    below the extent; None takes the rest): 1-2 short pieces and the rest, sometimes no rest
    (then pieces the extent does not fill are a kept TVM bug)."""
    n = draw(st.integers(1, 2))
    fs: list[int | None] = [draw(st.sampled_from((1, 2, 3, 4, 8))) for _ in range(n)]
    if draw(st.integers(0, 4)) > 0:
        fs.insert(draw(st.integers(0, n)), None)
    return tuple(fs)


def _factor_exprs(sch: Any, loop: Any, factors: list[int | None]) -> list[Any]:
    from tvm import tirx

    dt = str(sch.get(loop).loop_var.ty.dtype)
    return [None if f is None else tirx.IntImm(dt, f) for f in factors]


def _divides(sch: Any, loop: Any, factors: list[int | None]) -> bool:
    """Do the factors tile the loop exactly (the product of the given ones divides a constant
    extent, and they do not ask for more than the extent when all are given)?"""
    from tvm import tirx

    ext = sch.get(loop).extent
    if not isinstance(ext, tirx.IntImm):
        return False
    prod = 1
    for f in factors:
        prod *= f or 1
    return int(ext.value) % prod == 0 if None in factors else prod == int(ext.value)


def _dividing(sch: Any, loop: Any, factors: list[int | None]) -> list[int | None]:
    """[None, d]: d the largest divisor of the loop's constant extent not above the largest
    factor given (the split then needs no predicate); [] when the extent is not a constant."""
    from tvm import tirx

    ext = sch.get(loop).extent
    if not isinstance(ext, tirx.IntImm):
        return []
    e, top = int(ext.value), max([f for f in factors if f] or [1])
    return [None, max(d for d in range(1, min(e, top) + 1) if e % d == 0)] if e else [None, 1]


def split_like_apply(method: str) -> Callable[[Any, Step], str]:
    def apply_split_like(sch: Any, step: Step) -> str:
        a = step.arg
        b = get_block(sch, step.block)
        loop = loop_at(sch, b, step.loops[0])
        lname = name_of(sch, loop)
        factors = list(a["factors"])
        kw: dict[str, Any] = {"preserve_unit_iters": a.get("preserve_unit_iters", True)}
        if method == "split":
            kw["disable_predication"] = a.get("disable_predication", False)
            if kw["disable_predication"] and not _divides(sch, loop, factors):
                # Documented: without the predicate the caller must know the factors divide,
                # so the step uses the largest tiling of the extent its factors allow -- or,
                # where the extent is not a constant, keeps the predicate.
                factors = _dividing(sch, loop, factors)
                kw["disable_predication"] = bool(factors)
                factors = factors or list(a["factors"])
        given = _factor_exprs(sch, loop, factors) if a.get("factors_as") == "expr" else factors
        dt = sch.get(loop).loop_var.ty.dtype
        getattr(sch, method)(loop, given, **kw)
        shown = ", ".join("None" if f is None else f"T.{dt}({f})" if a.get("factors_as") == "expr" else str(f)
                          for f in factors)
        return (f"sch.{method}({lname!r} of {step.block!r}, factors=[{shown}], "
                f"{', '.join(f'{k}={v}' for k, v in kw.items())})")

    return apply_split_like


def split_like_update(view: View, step: Step) -> View:
    """The split loop becomes as many loops as there are factors (in the block's nest)."""
    s = view.get(step.block)
    if s is None or not s.nest:
        return view
    i = step.loops[0] % len(s.nest)
    n = len(step.arg.get("factors", ())) or step.arg.get("n", 2)
    return view.replace(s.name, loops=s.nest[:i] + s.nest[i] * n + s.nest[i + 1:])


FACTOR_FORMS = ("int", "None (inferred)", "PrimExpr")


def _factor_form(step: Step) -> str:
    return "PrimExpr" if step.arg.get("factors_as") == "expr" else (
        "None (inferred)" if None in step.arg.get("factors", ()) else "int")


def split_like_params(method: str) -> tuple[Any, ...]:
    out = (param(method, "loop", "any loop of the block's nest"),
           param(method, "factors", *FACTOR_FORMS, form=_factor_form),
           param(method, "preserve_unit_iters", "True", "False", form=arg_form("preserve_unit_iters")))
    if method == "split":
        out += (param("split", "disable_predication", "False", "True (factors that divide)",
                      form=arg_form("disable_predication", {True: "True (factors that divide)"}, False)),)
    return out


register_primitive(Primitive("split", split_like_draw("split"), split_like_apply("split"),
                             "split a loop into 2-3 loops (non-dividing factors give a predicate)",
                             update=split_like_update, params=split_like_params("split")))


def _nested(_: int, b: Block) -> bool:
    return len(b.nest) >= 2


def _draw_fuse(draw: st.DrawFn, view: View) -> Step:
    # A block with two loops or more, where the view has one (a single loop has nothing to fuse:
    # the step was refused, and testing nothing, in 2% of a sequence's steps).
    s = pick_stage(draw, view, _nested)
    count = draw(st.integers(2, 3))
    if len(s.nest) >= 2:
        count = min(count, len(s.nest))
    args: tuple[tuple[str, Any], ...] = (("count", count), ("preserve_unit_iters", draw_bool(draw)))
    others = [x.name for x in view.stages if x.name != s.name]
    if others and draw(st.integers(0, 5)) == 0:
        # Loops of two nests: TVM must refuse (a ScheduleError), never fail inside.
        args += (("other", draw(st.sampled_from(others))), ("other_loop", draw(LOOP_INDEX)))
    return Step("fuse", s.name, (draw(LOOP_INDEX),), args)


def _apply_fuse(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loops = loops_of(sch, b)
    if "other" in step.arg:
        chosen = [loop_at(sch, b, step.loops[0]), loop_at(sch, get_block(sch, step.arg["other"]),
                                                            step.arg["other_loop"])]
        where = f"blocks {step.block!r} and {step.arg['other']!r}"
    else:
        start, count = step.loops[0], step.arg["count"]
        if len(loops) < count:
            raise StepNotApplicable("not enough loops to fuse")
        s = start % (len(loops) - count + 1)
        chosen = loops[s : s + count]
        where = f"block {step.block!r}"
    names = [name_of(sch, x) for x in chosen]
    sch.fuse(*chosen, preserve_unit_iters=step.arg.get("preserve_unit_iters", True))
    return f"sch.fuse({', '.join(map(repr, names))})  # {where}"


def _fuse_update(view: View, step: Step) -> View:
    s = view.get(step.block)
    if s is None or "other" in step.arg or len(s.nest) < step.arg.get("count", 2):
        return view
    n = step.arg.get("count", 2)
    i = step.loops[0] % (len(s.nest) - n + 1)
    part = s.nest[i:i + n]
    return view.replace(s.name, loops=s.nest[:i] + ("S" if set(part) == {"S"} else "R") + s.nest[i + n:])


def _nests_form(step: Step) -> str:
    return "loops of two nests" if "other" in step.arg else "consecutive loops of one nest"


register_primitive(Primitive("fuse", _draw_fuse, _apply_fuse, "fuse 2-3 consecutive loops", update=_fuse_update,
                             params=(param("fuse", "loops", "consecutive loops of one nest", "loops of two nests",
                                           form=_nests_form),
                                     param("fuse", "preserve_unit_iters", "True", "False",
                                           form=arg_form("preserve_unit_iters")))))


def _draw_reorder(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, _nested)
    # Distinct loops of the nest as the view knows it (indices past it wrap around).
    pool = st.integers(0, len(s.nest) - 1) if len(s.nest) >= 2 else LOOP_INDEX
    loops = tuple(draw(st.lists(pool, min_size=2, max_size=min(4, max(2, len(s.nest))), unique=True)))
    others = [x.name for x in view.stages if x.name != s.name]
    if others and draw(st.integers(0, 5)) == 0:
        return Step("reorder", s.name, loops[:1], (("other", draw(st.sampled_from(others))),
                                                   ("other_loop", draw(LOOP_INDEX))))
    return Step("reorder", s.name, loops)


def _apply_reorder(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    if "other" in step.arg:
        chosen = [loop_at(sch, get_block(sch, step.arg["other"]), step.arg["other_loop"]),
                  loop_at(sch, b, step.loops[0])]
        names = [name_of(sch, x) for x in chosen]
        sch.reorder(*chosen)
        return f"sch.reorder({', '.join(map(repr, names))})  # blocks {step.arg['other']!r} and {step.block!r}"
    chosen = distinct_loops(sch, b, step.loops)
    if len(chosen) < 2:
        raise StepNotApplicable("reorder needs two distinct loops")
    names = [name_of(sch, x) for x in chosen]
    sch.reorder(*chosen)
    return f"sch.reorder({', '.join(map(repr, names))})  # block {step.block!r}"


register_primitive(Primitive("reorder", _draw_reorder, _apply_reorder, "reorder loops of one nest",
                             reassociates=True,
                             params=(param("reorder", "ordered_loops", "loops of one nest", "loops of two nests",
                                           form=lambda s: "loops of two nests" if "other" in s.arg
                                           else "loops of one nest"),)))
