"""Planted bugs, one per new program structure (issue 19): each is caught within 200 examples,
by the property that should catch it, and its finding shrinks to a small program."""

from __future__ import annotations

from pathlib import Path

import pytest

import passcheck

BUGGY = Path(__file__).resolve().with_name("program_buggy_passes.py")


@pytest.mark.parametrize("subject, impl, prop", [
    ("ComputePrimValue", "drop_else", "semantics_preserved"),
    ("StaticPlanBlockMemory", "reuse_live_buffer", "no_live_tensors_share_storage"),
    ("LiftTransformParams", "lift_twice", "lifted_params_agree"),
    ("InlinePrivateFunctions", "inline_drops_second_argument", "semantics_preserved"),
])
def test_planted_bug_is_caught(tmp_path: Path, subject: str, impl: str, prop: str) -> None:
    result = passcheck.check(subject, impl=f"{BUGGY}:{impl}", examples=200, properties=(prop,), jobs=2,
                             shrink_seconds=60, findings_dir=str(tmp_path))
    found = [f for f in result.findings if f.property == prop and f.known_bug is None]
    assert found, f"{impl} not caught by {prop} in 200 examples: {result.stats[prop]}"
    repro = Path(found[0].repro)
    assert repro.is_file() and "ProgramSpec" in repro.read_text()
