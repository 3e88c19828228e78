"""Bug-finding power of the metamorphic checks: a pass whose bug no drawn graph reaches is
caught once the graphs are mutated (tests/model_buggy_passes.py); the repro names the
mutations and fails while the bug is there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import passcheck

BUGGY = Path(__file__).resolve().with_name("model_buggy_passes.py")


def test_a_bug_only_mutants_reach_is_caught_with_mutate(tmp_path: Path) -> None:
    impl = f"{BUGGY}:fold_constant_drops_negation"
    # (registered TVM bugs the drawn graphs meet are ignored: the claim is that no new finding comes)
    plain = passcheck.check("FoldConstant", impl=impl, examples=15, seed=4, findings_dir=str(tmp_path / "plain"),
                            ignore_known=True)
    assert plain.ok  # no drawn graph has a negation: the bug is invisible
    mutated = passcheck.check("FoldConstant", impl=impl, examples=30, seed=4, mutate=1,
                              findings_dir=str(tmp_path / "mutated"), shrink_seconds=40)
    found = {f.property: f for f in mutated.findings}
    assert "mutant_agrees" in found, [(f.property, f.message) for f in mutated.findings]
    f = found["mutant_agrees"]
    assert "is wrong, not just rounded" in f.message
    repro = Path(f.repro).read_text()
    assert "Mutant(" in repro and "Mutation(" in repro and "uoc-relu" in repro  # names the relation
    proc = subprocess.run([sys.executable, f.repro], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_cli_mutate_rejects_a_negative_count(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "passcheck", "FuseOps", "--mutate", "-1", "--no-progress"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--mutate" in proc.stderr
