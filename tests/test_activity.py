"""Pass activity (issue 19, item 3): every run counts the examples the pass changed; the table,
the JSON, HTML and JUnit reports say it; under 5% a run warns and names what the pass needs;
``--min-activity P`` exits 2; ``passcheck list`` shows the measured table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import passcheck
from passcheck.core.engine.results import RunConfig, RunResult
from passcheck.integrations.reports.html_report import render
from passcheck.integrations.reports.junit_report import junit_tree

BIN = Path(sys.executable).with_name("passcheck")
IDENTITY = '''
import tvm

def identity():
    return tvm.transform.module_pass(lambda mod, ctx: mod, opt_level=0, name="Identity")
'''


def _identity(tmp_path: Path) -> str:
    path = tmp_path / "identity.py"
    path.write_text(IDENTITY)
    return f"{path}:identity"


def test_a_pass_that_changes_nothing_is_measured_and_warned_about(tmp_path: Path) -> None:
    result = passcheck.check("FoldConstant", impl=_identity(tmp_path), examples=8, jobs=1,
                             properties=("pass_does_not_raise",), findings_dir=str(tmp_path / "f"))
    assert (result.changed, result.measured) == (0, 8)
    assert result.activity_line() == "changed 0 of 8 examples (0.0%)"
    warning = result.activity_warning()
    assert "FoldConstant changed only 0 of 8" in warning and "constant" in warning, warning


def test_a_pass_that_acts_is_counted_and_not_warned_about(tmp_path: Path) -> None:
    result = passcheck.check("FoldConstant", examples=8, jobs=1, properties=("pass_does_not_raise",),
                             findings_dir=str(tmp_path / "f"))
    assert result.measured == 8 and result.changed >= 6, result.activity_line()
    assert result.activity_warning() == ""


def test_reports_carry_the_activity() -> None:
    result = RunResult(RunConfig(subject="X"), "X", [], {}, [], examples=40)
    result.changed, result.measured, result.needs = 1, 40, "constant-only subgraphs"
    data = result.to_dict()["activity"]
    assert data["changed"] == 1 and data["examples"] == 40 and data["share"] == 0.025
    assert "constant-only subgraphs" in data["warning"]
    props = {p.get("name"): p.get("value") for p in junit_tree(result).iter("property")}
    assert props["changed"] == "1" and props["activity"] == "0.0250"
    assert "warning: X changed only 1 of 40" in (junit_tree(result).find(".//system-err").text or "")
    page = render(result)
    assert "changed 1 of 40 examples (2.5%)" in page and "constant-only subgraphs" in page
    from passcheck.integrations.reports.table import summary_line

    assert "X: 40 examples checked in" in summary_line(result)
    assert "the pass changed 1 of them (2%)" in summary_line(result)  # the run's last line says it too
    result.measured = 0
    assert result.to_dict()["activity"] is None and result.activity_warning() == ""


def test_min_activity_exits_2(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    proc = subprocess.run([str(BIN), "FoldConstant", "--impl", _identity(tmp_path), "--examples", "6", "--jobs",
                           "1", "--property", "pass_does_not_raise", "--no-progress", "--no-db", "--min-activity",
                           "5", "--report", f"json:{report}"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--min-activity 5: changed 0 of 6 examples" in proc.stderr
    assert "changed 0 of 6 examples" in proc.stdout and "warning:" in proc.stdout
    assert json.loads(report.read_text())["activity"]["changed"] == 0


def test_list_shows_the_measured_activity() -> None:
    from passcheck.relax.activity import measured_activity

    table = measured_activity()
    assert table["passes"], "benchmarks/pass_activity.py --write has not written passcheck/relax/pass_activity.json"
    out = subprocess.run([str(BIN), "list"], capture_output=True, text=True, timeout=300).stdout
    assert "measured activity" in out
    name, row = next(iter(table["passes"].items()))
    assert name in out and f"{row['changed']} of {row['examples']}" in out
