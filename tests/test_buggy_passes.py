"""passcheck catches deliberately buggy passes (tests/buggy_passes.py), shrinks them, and writes
repro scripts that fail while the bug is there.

Everything is real: real TVM passes with a real bug on top, real compilation and execution, the
same engine the CLI uses. Example counts and seeds are chosen so that each run sees the buggy
pattern; the runs are deterministic per seed.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import passcheck

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")


def impl(name: str) -> str:
    return f"{BUGGY}:{name}"


@dataclass(frozen=True)
class Bug:
    subject: str
    impl: str
    expected: tuple[tuple[str, str], ...]  # (property, kind) that must be among the findings
    max_nodes: int  # the shrunk example of the first expected finding has at most this many ops
    examples: int = 40
    seed: int = 0
    timeout: float = 60.0
    shrink_seconds: float = 25.0
    properties: tuple[str, ...] = ()  # empty: every property of the pass
    also: tuple[str, ...] = ()  # properties that must fail too (whatever the kind)


# Seeds: deterministic runs in which the buggy pattern shows up early. The bounds on the shrunk
# size leave a little slack over what the current generators reach (1 op; 2 for FuseOps, whose
# groups need two ops; AlterOpLayout shrinks least well, see the report).
BUGS = {
    "fold-constant-swapped-operands": Bug(
        "FoldConstant", "fold_constant_swapped", (("semantics_preserved", "violation"),), max_nodes=2,
        examples=50, seed=0),
    "fuse-ops-drops-a-channel": Bug(
        "FuseOps", "fuse_ops_drops_channel", (("semantics_preserved", "violation"),), max_nodes=3,
        examples=40, seed=1, also=("matches_unfused_bitwise",)),
    "alter-op-layout-wrong-permutation": Bug(
        "AlterOpLayout", "convert_layout_wrong_perm",
        (("semantics_preserved", "violation"), ("signature_preserved", "ill-formed")), max_nodes=4,
        examples=40, seed=1),
    "simplify-inference-eps-outside-sqrt": Bug(
        "SimplifyInference", "decompose_eps_outside_sqrt", (("semantics_preserved", "violation"),),
        max_nodes=2, examples=30, seed=0),
    "raises-on-rank-broadcast": Bug(
        "FoldConstant", "fold_constant_raises_on_rank_broadcast", (("pass_does_not_raise", "raised"),),
        max_nodes=3, examples=20, seed=3),
    "segfaults-on-exp": Bug(
        "FoldConstant", "fold_constant_segfaults_on_exp", (("pass_does_not_raise", "crash"),),
        max_nodes=2, examples=40, seed=0, shrink_seconds=20.0),
    # Every hanging example costs the whole per-example timeout, so this run checks only the
    # transformation and sets a short one. FoldConstant itself compiles constant subgraphs: the
    # run's p95 example took 0.78 s with the suite running beside it, and 1 s timed out six
    # floors (a false hang, shrunk instead of the multiply); 4 s is five times that p95.
    "hangs-on-multiply": Bug(
        "FoldConstant", "fold_constant_hangs_on_multiply", (("pass_does_not_raise", "timeout"),),
        max_nodes=2, examples=10, seed=2, timeout=4.0, shrink_seconds=25.0,
        properties=("pass_does_not_raise",)),
}


def run_repro(path: str, hang_timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """``python repro.py``. A repro script rechecks with a 600 s per-example timeout (the run's
    --timeout is not recorded in it), so for a hang we run the same script with recheck's
    default timeout lowered to ``hang_timeout``."""
    if hang_timeout is None:
        return subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=300)
    code = ("import runpy, sys; import passcheck.core.engine.repro as r; "
            f"d = list(r.recheck.__defaults__); d[-1] = {hang_timeout!r}; r.recheck.__defaults__ = tuple(d); "
            "runpy.run_path(sys.argv[1], run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("bug", list(BUGS.values()), ids=list(BUGS))
def test_buggy_pass_is_caught(bug: Bug, tmp_path: Path) -> None:
    result = passcheck.check(bug.subject, impl=impl(bug.impl), examples=bug.examples, seed=bug.seed,
                             timeout=bug.timeout, shrink_seconds=bug.shrink_seconds,
                             properties=bug.properties, findings_dir=str(tmp_path / "findings"))
    found = {(f.property, f.kind): f for f in result.findings}
    summary = "\n".join(f"  {f.property} ({f.kind}, {len(f.example.nodes)} ops): {f.message[:200]}"
                        for f in result.findings)
    for key in bug.expected:
        assert key in found, f"{bug.impl} not caught as {key}; findings:\n{summary or '  none'}"
        prop_name = key[0]
        assert result.stats[prop_name].violated >= 1
    for prop_name in bug.also:
        assert any(f.property == prop_name for f in result.findings), f"{prop_name} missed it:\n{summary}"
    assert not result.ok

    main = found[bug.expected[0]]
    assert main.shrunk, f"{bug.impl}: the finding was not shrunk"
    n_ops = len(main.example.nodes)
    assert 1 <= n_ops <= bug.max_nodes, (
        f"{bug.impl}: shrunk example still has {n_ops} ops: {main.example.ops()}\n{summary}")

    for key in bug.expected:
        repro = found[key].repro
        assert repro and Path(repro).is_file()
        proc = run_repro(repro, hang_timeout=5.0 if key[1] == "timeout" else None)
        assert proc.returncode == 1, (f"{repro} exited {proc.returncode} (expected 1: still failing)\n"
                                      f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}")
        assert key[0] in proc.stdout


def test_fuse_ops_bitwise_property_reports_a_violation(tmp_path: Path) -> None:
    result = passcheck.check("FuseOps", impl=impl("fuse_ops_drops_channel"), examples=40, seed=1,
                             properties=("matches_unfused_bitwise",), shrink_seconds=5.0,
                             findings_dir=str(tmp_path))
    assert [(f.property, f.kind) for f in result.findings] == [("matches_unfused_bitwise", "violation")]
    assert "differs from the unfused module" in result.findings[0].message


def test_repro_passes_once_the_bug_is_fixed(tmp_path: Path) -> None:
    """A repro exits 1 with the buggy pass and 0 once the pass is the real one again."""
    result = passcheck.check("SimplifyInference", impl=impl("decompose_eps_outside_sqrt"), examples=30,
                             shrink_seconds=10.0, findings_dir=str(tmp_path))
    finding = next(f for f in result.findings if f.property == "semantics_preserved")
    text = Path(finding.repro).read_text()
    assert run_repro(finding.repro).returncode == 1
    fixed = Path(finding.repro).with_name("repro_fixed.py")
    fixed.write_text(text.replace(repr(impl("decompose_eps_outside_sqrt")), "None"))
    assert fixed.read_text() != text
    proc = run_repro(str(fixed))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_fixture_reports_findings(passcheck: Any) -> None:
    """The pytest fixture fails the test with the findings and their repro paths."""
    with pytest.raises(AssertionError) as info:
        passcheck.check("SimplifyInference", impl=impl("decompose_eps_outside_sqrt"), examples=30,
                        shrink_seconds=10.0)
    text = str(info.value)
    assert "semantics_preserved (violation)" in text
    assert "repro: python " in text
    repro = text.split("repro: python ", 1)[1].split()[0]
    assert Path(repro).is_file()


def test_fixture_passes_on_the_real_pass(passcheck: Any) -> None:
    """With ``ignore_known`` the fixture passes a run whose only findings are registered TVM bugs
    (every failing example matched one: a later new failure would be a finding of its own)."""
    result = passcheck.check("SimplifyInference", examples=15, ignore_known=True)
    assert result.ok
    assert result.examples == 15
    assert not result.new_findings
    assert all(s.held > 0 for s in result.stats.values())
