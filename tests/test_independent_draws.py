"""``--draws independent``: every example drawn on its own from the run's seed (core/draws.py),
against Hypothesis's own generation, whose mutants repeat what came before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passcheck.core.draws import backend, examples_of
from passcheck.core.engine.plan import plan
from passcheck.core.engine.results import RunConfig
from passcheck.integrations.cli import main


def _strategy(subject: str) -> object:
    return plan(RunConfig(subject=subject, examples=1)).strategy()


def test_independent_draws_are_distinct_and_wider() -> None:
    strategy = _strategy("LegalizeOps")
    own = examples_of(strategy, 300, 0)
    independent = examples_of(strategy, 300, 0, "independent")
    assert len(set(map(repr, independent))) == 300 > len(set(map(repr, own)))
    # what each example starts with: one of a handful repeated, or drawn afresh each time
    starts = len({repr(e.graph.nodes[0]) for e in independent})  # type: ignore[attr-defined]
    assert starts > 1.5 * len({repr(e.graph.nodes[0]) for e in own}), starts  # type: ignore[attr-defined]


def test_an_independent_stream_depends_on_the_seed_alone() -> None:
    # the n-th example is the same in a short run and a long one, and again at the same seed
    strategy = _strategy("FuseOps")
    long = examples_of(strategy, 120, 5, "independent")
    assert examples_of(strategy, 40, 5, "independent") == long[:40]
    assert examples_of(strategy, 40, 6, "independent") != long[:40]


def test_a_draws_value_is_one_of_two() -> None:
    assert backend("hypothesis") == "hypothesis" and backend("independent") != "hypothesis"
    with pytest.raises(ValueError, match="one of hypothesis, independent"):
        backend("random")


def test_a_run_with_independent_draws_finds_and_shrinks_a_planted_bug(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    code = main(["FoldConstant", "--examples", "60", "--no-db", "--no-progress", "--jobs", "1", "--draws", "independent",
                 "--impl", str(Path(__file__).parent / "buggy_passes.py") + ":fold_constant_swapped",
                 "--property", "semantics_preserved", "--shrink-time", "30", "--findings-dir", str(tmp_path / "f"),
                 "--report", f"json:{report}"])
    assert code == 1, capsys.readouterr().out[-3000:]
    data = json.loads(report.read_text())
    assert data["draws"] == "independent"
    repros = list((tmp_path / "f").rglob("repro.py"))
    assert repros, "the planted bug's finding has no repro"
    assert main(["FoldConstant", "--examples", "5", "--draws", "whatever"]) == 2
