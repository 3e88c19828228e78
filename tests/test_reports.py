"""``--report junit:PATH`` beside ``json:PATH``: the JUnit XML validates against the schema CI
readers expect (checked with a real XSD validator) and carries what the JSON report says."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema

from passcheck.core.engine.results import Finding, PropertyStats, RunConfig, RunResult
from passcheck.core.outcome import Verdict
from passcheck.integrations.reports import write_report

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = xmlschema.XMLSchema(str(ROOT / "tests" / "fixtures" / "junit.xsd"))
PASSCHECK = str(Path(sys.executable).parent / "passcheck")


def test_cli_writes_both_reports_and_the_junit_validates(tmp_path: Path) -> None:
    junit, js = tmp_path / "ci" / "passcheck.xml", tmp_path / "report.json"
    proc = subprocess.run([PASSCHECK, "FuseOps", "--impl", f"{ROOT}/tests/buggy_passes.py:fuse_ops_drops_channel",
                           "--corpus", str(ROOT / "tests" / "corpus" / "relax" / "mlp.py"), "--examples", "0",
                           "--no-progress", "--findings-dir", str(tmp_path / "f"),
                           "--report", f"junit:{junit}", "--report", f"json:{js}"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    SCHEMA.validate(str(junit))
    report = json.loads(js.read_text())
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("name") == "passcheck.FuseOps"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert list(cases) == list(report["properties"])  # one test case per property, in order
    failed = {n for n, c in cases.items() if c.find("failure") is not None}
    assert failed == {f["property"] for f in report["findings"]} and "semantics_preserved" in failed
    assert int(suite.get("failures")) == len(failed) and int(suite.get("tests")) == len(cases)
    failure = cases["semantics_preserved"].find("failure")
    finding = next(f for f in report["findings"] if f["property"] == "semantics_preserved")
    assert failure.get("type") == "violation" and failure.get("message") == finding["message"].splitlines()[0]
    assert f"repro: python {finding['repro']}" in failure.text and "@R.function" in failure.text
    assert "held 1," in cases["well_formed"].find("system-out").text


def _result(strict_known: bool) -> RunResult:
    cfg = RunConfig(subject="FoldConstant", strict_known=strict_known)
    stats = {"pass_does_not_raise": PropertyStats(held=3), "semantics_preserved": PropertyStats(held=1, violated=2),
             "fold_is_idempotent": PropertyStats(discarded=3, unknown=1)}
    bad = Finding("semantics_preserved", Verdict.VIOLATION, "wrong numbers\x01: output 0\nsecond line", None,
                  input_script="# IR", repro="/x/repro.py", shrunk=True, known_bug="test_kept_repro")
    return RunResult(cfg, "FoldConstant", list(stats), stats, [bad], examples=3, duration_s=1.25)


def test_known_bugs_and_all_discarded_properties(tmp_path: Path) -> None:
    for strict in (False, True):
        path = write_report(_result(strict), f"junit:{tmp_path}/{strict}.xml")
        SCHEMA.validate(str(path))
        suite = ET.parse(path).getroot().find("testsuite")
        cases = {c.get("name"): c for c in suite.findall("testcase")}
        skipped = cases["fold_is_idempotent"].find("skipped")
        assert skipped is not None and "1 unknown" in skipped.get("message")
        known = cases["semantics_preserved"]
        if not strict:  # a known bug is no failure of the run (pytest's xfail), so no failed test either
            assert known.find("failure") is None and "test_kept_repro" in known.find("skipped").get("message")
            assert suite.get("failures") == "0" and suite.get("skipped") == "2"
        else:
            assert "known TVM bug, kept repro: test_kept_repro" in known.find("failure").text
            assert known.find("failure").get("message") == "wrong numbers?: output 0"
            assert suite.get("failures") == "1"
