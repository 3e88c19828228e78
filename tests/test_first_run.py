"""A first run that makes sense: known TVM bugs follow pytest's xfail convention (a `known`
column, listed once at the end with a `passcheck known show` hint, not failures unless
--strict-known; --ignore-known is still accepted), a finding recognised as a known bug is not
shrunk, the properties one example fails together shrink once, and the hunts of different
examples run at once."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from passcheck.core.engine import shrink as shrink_module
from passcheck.core.engine.results import RunConfig
from passcheck.core.engine.run import run
from passcheck.core.known import KNOWN_BUGS, KnownBug, register_known_bug

BIN = Path(sys.executable).with_name("passcheck")
BUG = "test_meshgrid_single_tensor_legalize"


def _meshgrid_module(path: Path) -> Path:
    """meshgrid of one tensor: LegalizeOps (FuseOps' prerequisite) raises, a kept TVM bug."""
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(R.meshgrid([x]))[0])
        bb.emit_func_output(out)
    path.write_text(bb.get().script())
    return path


def _run(tmp_path: Path, *extra: str) -> tuple[int, str, dict[str, Any]]:
    module = _meshgrid_module(tmp_path / "meshgrid.py")
    report = tmp_path / "report.json"
    proc = subprocess.run([str(BIN), "FuseOps", "--corpus", str(module), "--examples", "0", "--no-progress",
                           "--no-db", "--jobs", "1", "--report", f"json:{report}", *extra], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return proc.returncode, proc.stdout, json.loads(report.read_text())


def test_a_run_whose_findings_are_all_known_bugs_exits_0_and_lists_them_once(tmp_path: Path) -> None:
    code, out, report = _run(tmp_path)
    assert code == 0, out
    assert "┃ known ┃" in out  # the table's column
    row = next(line for line in out.splitlines() if "pass_does_not_raise" in line)
    held, violated, known = (c.strip() for c in row.split("│")[2:5])
    assert (held, violated, known) == ("0", "0", "1"), row
    assert "known TVM bugs hit (expected failures, not counted" in out
    assert out.count(BUG) == 1 and "passcheck known show NAME" in out
    assert "FINDING" not in out and "KNOWN TVM BUG" not in out
    assert "0 new findings; 1 known TVM bug hit on 1 example: pass" in out
    assert report["known_bugs_hit"] == {BUG: {"pass_does_not_raise": 1}} and report["new_findings"] == 0
    assert report["properties"]["pass_does_not_raise"]["known"] == 1
    (finding,) = report["findings"]
    assert finding["known_bug"] == BUG and finding["shrunk"] is False  # its kept repro is the minimal one


def test_strict_known_makes_known_bugs_fail_the_run(tmp_path: Path) -> None:
    code, out, report = _run(tmp_path, "--strict-known")
    assert code == 1, out
    assert f"KNOWN TVM BUG (kept repro: {BUG})" in out and "they fail the run (--strict-known)" in out
    assert report["strict_known"] is True


def test_ignore_known_is_still_accepted(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, "--ignore-known")
    assert code == 0, out


TOY_PROPERTIES = '''
from passcheck import prop, require


@prop("FoldConstant")
def toy_three_ops_a(case):
    "Fails on every graph of three ops or more."
    require(len(case.spec.nodes) < 3, f"toy: {len(case.spec.nodes)} ops")


@prop("FoldConstant")
def toy_three_ops_b(case):
    "Fails on the same graphs as toy_three_ops_a."
    require(len(case.spec.nodes) < 3, "toy b: three ops or more")


@prop("FoldConstant")
def toy_single_op(case):
    "Fails on graphs of one op: never the first example the others fail on."
    require(len(case.spec.nodes) != 1, "toy: a single op")


@prop("FoldConstant")
def toy_known(case):
    "Fails on graphs of two ops or more, with a message a known bug declared below matches."
    require(len(case.spec.nodes) < 2, "toy known bug: two ops or more")
'''


@pytest.fixture
def toy_known_bug() -> Any:
    bug = register_known_bug(KnownBug(name="test_toy_known_bug", repro="tests/test_first_run.py", note="a toy",
                                      subjects=("FoldConstant",), properties=("toy_known",),
                                      message=r"toy known bug"))
    yield bug
    KNOWN_BUGS.remove(bug.name)


@pytest.mark.usefixtures("toy_known_bug")
def test_shrinking_skips_known_bugs_shares_examples_and_runs_hunts_at_once(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    props = tmp_path / "toy_properties.py"
    props.write_text(TOY_PROPERTIES)
    hunted: list[tuple[str, ...]] = []
    both_started = threading.Barrier(2, timeout=120)  # broken unless the two hunts run at once
    real = shrink_module._hunt

    def hunt(plan: Any, evaluate: Any, record: Any, kinds: Any, groups: Any, group: Any, *args: Any) -> Any:
        hunted.append(tuple(s.prop for s in group))
        both_started.wait()
        return real(plan, evaluate, record, kinds, groups, group, *args)

    monkeypatch.setattr(shrink_module, "_hunt", hunt)
    names = ("toy_three_ops_a", "toy_three_ops_b", "toy_single_op", "toy_known")
    result = run(RunConfig(subject="FoldConstant", examples=40, seed=3, properties=names,
                           property_files=(str(props),), jobs=2, shrink_seconds=60,
                           findings_dir=str(tmp_path / "findings")))
    found = {f.property: f for f in result.findings}
    assert set(found) == set(names), found
    # the known bug: recognised, not shrunk, no hunt
    assert found["toy_known"].known_bug == "test_toy_known_bug" and not found["toy_known"].shrunk
    assert sorted(hunted) == [("toy_single_op",), ("toy_three_ops_a", "toy_three_ops_b")]
    # the two properties one example failed first: shrunk once, to one example failing both
    a, b = found["toy_three_ops_a"], found["toy_three_ops_b"]
    assert a.shrunk and b.shrunk and a.example == b.example and len(a.example.nodes) >= 3
    assert len(found["toy_single_op"].example.nodes) == 1
    assert result.ok is False and [f.property for f in result.new_findings] == list(names[:3])


def test_pytest_items_of_a_known_bug_are_xfail(tmp_path: Path) -> None:
    module = _meshgrid_module(tmp_path / "meshgrid.py")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "-rx", "--passcheck", "FuseOps",
                           "--passcheck-corpus", str(module), "--passcheck-examples", "0", "--passcheck-findings",
                           str(tmp_path / "f")], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "passcheck::FuseOps::pass_does_not_raise XFAIL" in proc.stdout, proc.stdout[-3000:]
    assert f"known TVM bug ({BUG})" in proc.stdout
