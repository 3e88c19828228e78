"""Planted bugs, one per new program structure (issue 19): each is caught within 200 examples,
by the property that should catch it; a branch or function finding shrinks to the smallest
program (one branch or one function, few ops) and its repro.py runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import passcheck

BUGGY = Path(__file__).resolve().with_name("program_buggy_passes.py")


@pytest.mark.parametrize("subject, impl, prop, form", [
    ("ComputePrimValue", "drop_else", "semantics_preserved", "branch"),
    ("StaticPlanBlockMemory", "reuse_live_buffer", "no_live_tensors_share_storage", None),
    ("LiftTransformParams", "lift_twice", "lifted_params_agree", None),
    ("InlinePrivateFunctions", "inline_drops_second_argument", "semantics_preserved", "function"),
    ("LegalizeOps", "inplace_on_parameter", "semantics_preserved", "wrote into its argument"),
    ("LegalizeOps", "inplace_on_constant", "semantics_preserved", "wrong numbers on the second call"),
])
def test_planted_bug_is_caught(tmp_path: Path, subject: str, impl: str, prop: str, form: str | None) -> None:
    result = passcheck.check(subject, impl=f"{BUGGY}:{impl}", examples=200, properties=(prop,), jobs=2,
                             shrink_seconds=120, findings_dir=str(tmp_path))
    found = [f for f in result.findings if f.property == prop and f.known_bug is None]
    assert found, f"{impl} not caught by {prop} in 200 examples: {result.stats[prop]}"
    repro = Path(found[0].repro)
    assert repro.is_file() and "ProgramSpec" in repro.read_text()
    if form is None:
        return
    if " " in form:  # (no structure to shrink to: what the finding must say)
        assert form in found[0].message, found[0].message
        return
    prog = found[0].example
    assert found[0].shrunk
    # the smallest program: the one structure the bug needs, and few ops
    assert [r.form for r in prog.all_regions()] == [form], prog
    assert len(prog.graph.nodes) <= 3 and not prog.options, prog
    run = subprocess.run([sys.executable, str(repro)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr  # it still fails
