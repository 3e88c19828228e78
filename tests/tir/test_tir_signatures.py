"""The whole signature of tvm.s_tir.Schedule is drawn: every parameter of every method some
primitive calls (compared with ``inspect.signature``), every method nobody draws left out
with a reason, and every form a primitive declares actually drawn."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest
from hypothesis import HealthCheck, given, settings

from passcheck.integrations.cli import main
from passcheck.tir.schedule import PRIMITIVES, ScheduleExample, schedule_examples
from passcheck.tir.schedule.signatures import UNDRAWN, drawn, schedule_methods, uncovered


def test_every_parameter_of_every_schedule_method_is_drawn_or_left_out_with_a_reason() -> None:
    assert uncovered() == []
    assert all(why.strip() for why in UNDRAWN.values())
    methods = schedule_methods()
    covered = {d.method for d in drawn()}
    # Every method that changes the IR is drawn (what is left out only looks things up).
    assert covered | set(UNDRAWN) == set(methods)
    for d in drawn():
        assert set(methods[d.method]) >= {d.name}


def test_a_parameter_left_out_is_reported() -> None:
    from passcheck.tir.schedule.registry import _REGISTRY, Primitive

    saved = _REGISTRY["split"]
    try:
        _REGISTRY["split"] = Primitive("split", saved.draw, saved.apply, saved.summary,
                                       params=tuple(p for p in saved.params if p.name != "disable_predication"))
        assert "split: parameter 'disable_predication' is never drawn" in uncovered()
    finally:
        _REGISTRY["split"] = saved
    assert uncovered() == []


class _AllSeen(Exception):
    pass


@pytest.mark.parametrize("name", [n for n, p in PRIMITIVES.items() if p.params])
def test_every_declared_form_is_drawn(name: str) -> None:
    prim = PRIMITIVES[name]
    want = {(p.method, p.name): set(p.forms) for p in prim.params}
    seen: dict[tuple[str, str], set[str]] = {k: set() for k in want}

    @settings(max_examples=1500, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(schedule_examples(name))
    def draw(example: ScheduleExample) -> None:
        for step in example.steps:
            if step.prim != name:
                continue
            for p in prim.params:
                f = p.form_of(step)
                if f is not None:
                    seen[(p.method, p.name)].add(f)
        if all(want[k] <= seen[k] for k in want):
            raise _AllSeen

    try:
        draw()
    except _AllSeen:
        pass
    missing = {k: want[k] - seen[k] for k in want if want[k] - seen[k]}
    assert not missing, f"declared but never drawn: {missing}"
    for k in want:
        assert seen[k] <= want[k], (k, seen[k] - want[k])


def test_list_signatures_shows_each_primitive_and_the_methods_left_out() -> None:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["list", "--signatures"]) == 0
    text = buf.getvalue()
    assert "consumer_blocks" in text and "pad_value" in text and "list of 2-3 SBlockRVs" in text
    assert "tvm.s_tir.Schedule methods not drawn" in text and "can_decompose_padding" in text
