"""The long campaigns of issue 10's "done when" (marked slow: ``pytest -m slow``): every finding
must be a kept TVM bug, drift is reported apart, and the seed corpus is accounted for."""

from __future__ import annotations

from pathlib import Path

import pytest

import passcheck

pytestmark = pytest.mark.slow


def _no_new_findings(result: passcheck.core.engine.results.RunResult) -> None:  # type: ignore[name-defined]
    assert not result.new_findings, [(f.property, f.message[:300], f.repro) for f in result.new_findings]


def test_fuse_ops_with_three_rounds_of_mutation(tmp_path: Path) -> None:
    result = passcheck.check("FuseOps", mutate=3, examples=500, findings_dir=str(tmp_path))
    _no_new_findings(result)
    agree = result.stats["mutant_agrees"]
    assert agree.held + agree.drift >= 450


def test_sequences_of_passes(tmp_path: Path) -> None:
    result = passcheck.check("sequence", examples=500, findings_dir=str(tmp_path))
    _no_new_findings(result)
    assert result.stats["every_step_preserves_semantics"].held >= 400


def test_the_whole_pipeline(tmp_path: Path) -> None:
    result = passcheck.check("pipeline", examples=500, findings_dir=str(tmp_path))
    _no_new_findings(result)
    agree = result.stats["builds_agree"]
    assert agree.held + agree.drift >= 400


def test_fold_constant_on_the_builtin_corpus(tmp_path: Path) -> None:
    pytest.importorskip("onnx", reason='the onnx extra is not installed: pip install -e ".[dev,onnx]"')
    from passcheck.integrations.seed_report import summarize

    result = passcheck.check("FoldConstant", seed_models=["builtin"], findings_dir=str(tmp_path))
    _no_new_findings(result)
    s = summarize(result)
    assert s is not None and s["models"] > 1500 and s["clean_under_pass"] > 900
