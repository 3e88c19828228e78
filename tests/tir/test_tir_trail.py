"""Unit tests of trails (``passcheck.tir.analysis.trail``): the one Z3 encoding of a trail and
the one concrete replay that both symbolic checks use must agree with each other."""

from __future__ import annotations

import pytest
import z3
from tvm import tirx

from passcheck.tir.analysis import (
    Bind,
    Encoder,
    EvalError,
    Guard,
    Loop,
    TrailEncoder,
    by_name,
    from_model,
    key,
    replay,
)


def _int(v: int) -> tirx.IntImm:
    return tirx.IntImm("int32", v)


def test_a_solved_trail_replays_to_the_same_point() -> None:
    i, j, k = tirx.Var("i", "int32"), tirx.Var("j", "int32"), tirx.Var("k", "int32")
    trail = (Loop(i, _int(0), _int(10)), Bind(j, i * 2 + 1), Guard(j > 12, True),
             Loop(k, _int(1), _int(20), _int(3)))
    ctx = z3.Context()
    trails = TrailEncoder(Encoder(ctx=ctx))
    path = trails.path(trail)
    (_, ti), (_, tk) = trails.loop_terms(trail)
    s = z3.Solver(ctx=ctx)
    s.add(*path, tk > 10)
    assert s.check() == z3.sat
    model = s.model()
    r = replay(trail, from_model(model, trails), {})
    assert r.ev is not None, r.why
    point = dict(r.point)
    assert point["i"] == model.eval(ti).as_long() and 6 <= point["i"] < 10
    assert point["j"] == 2 * point["i"] + 1 > 12
    assert point["k"] > 10 and (point["k"] - 1) % 3 == 0  # on the loop's step
    assert [n for n, _ in r.point] == ["i", "j", "k"]  # outer first
    assert r.ev(j + k) == point["j"] + point["k"]


def test_a_step_is_encoded_once_per_encoder() -> None:
    i = tirx.Var("i", "int32")
    trail = (Loop(i, _int(0), _int(4)), Guard(i < 3, True))
    trails = TrailEncoder(Encoder(ctx=z3.Context()))
    first, again = trails.path(trail), trails.path(trail)
    assert all(a.eq(b) for a, b in zip(first, again, strict=True))
    assert len(trails.loop_terms()) == 1


@pytest.mark.parametrize(("values", "why"), [
    ({"i": 10}, "i=10 outside [0, 10)"),
    ({"i": -1}, "i=-1 outside [0, 10)"),
    ({"i": 2}, "guard i * 2 + 1 > 12 is not True there"),
    ({}, "no value for loop i"),
])
def test_a_point_that_is_not_executed_says_why(values: dict[str, int], why: str) -> None:
    i = tirx.Var("i", "int32")
    r = replay((Loop(i, _int(0), _int(10)), Guard(i * 2 + 1 > 12, True)), by_name(values), {})
    assert r.ev is None
    assert r.why == why


def test_a_point_off_the_loop_step_and_an_else_branch() -> None:
    i = tirx.Var("i", "int32")
    strided = (Loop(i, _int(1), _int(20), _int(3)),)
    assert replay(strided, by_name({"i": 5}), {}).why == "i=5 is not on the loop's step"
    assert replay(strided, by_name({"i": 7}), {}).ev is not None
    else_branch = (Loop(i, _int(0), _int(10)), Guard(i < 5, False))
    assert replay(else_branch, by_name({"i": 3}), {}).why == "guard i < 5 is not False there"
    assert dict(replay(else_branch, by_name({"i": 7}), {}).point) == {"i": 7}


def test_replay_reads_shape_vars_from_the_environment() -> None:
    i, n = tirx.Var("i", "int32"), tirx.Var("n", "int32")
    trail = (Loop(i, _int(0), n),)
    assert replay(trail, by_name({"i": 6}), {key(n): 7}).ev is not None
    assert replay(trail, by_name({"i": 7}), {key(n): 7}).why == "i=7 outside [0, 7)"
    assert replay(trail, by_name({"i": 0}), {}).why == "not evaluable concretely: unbound variable n"


def test_tagged_copies_have_independent_loops_over_shared_shape_vars() -> None:
    i, n = tirx.Var("i", "int32"), tirx.Var("n", "int32")
    ctx = z3.Context()
    shared = {key(n): z3.BitVec("n", 32, ctx=ctx)}
    a, b = TrailEncoder.fresh(ctx, "_a", shared), TrailEncoder.fresh(ctx, "_b", shared)
    trail = (Loop(i, _int(0), n),)
    ca, cb = a.path(trail), b.path(trail)
    [(_, ia)], [(_, ib)] = a.loop_terms(), b.loop_terms()
    assert not ia.eq(ib)
    assert "_a" in str(ia) and "_b" in str(ib)
    s = z3.Solver(ctx=ctx)
    s.add(*ca, *cb, ia != ib)
    assert s.check() == z3.sat  # two different points of the same nest
    s.add(shared[key(n)] == 1)
    assert s.check() == z3.unsat  # ... but both copies see the same n


def test_strict_raises_where_lenient_goes_opaque() -> None:
    x = tirx.Var("x", "float32")
    trail = (Bind(x, tirx.FloatImm("float32", 1.5)),)
    with pytest.raises(EvalError, match="non-integer binding"):
        TrailEncoder(Encoder(ctx=z3.Context()), strict=True).path(trail)
    lenient = TrailEncoder(Encoder(ctx=z3.Context()))
    assert lenient.path(trail) == []
    assert any(o.reason == "non-integer binding" for o in lenient.enc.opaque.values())
