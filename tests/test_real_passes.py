"""The shipped properties hold on TVM 0.27's real passes (no false alarms).

The default run checks a few dozen examples per pass; ``-m slow`` runs the 2,000-example
campaigns that back the "0 false alarms" claim.
"""

from __future__ import annotations

import pytest

import passcheck
from passcheck.core.engine.results import RunResult

PASSES = ("FuseOps", "FoldConstant", "AlterOpLayout", "SimplifyInference")


def _assert_clean(result: RunResult) -> None:
    """No finding but the registered TVM bugs (tests/expected_findings/): the engine reports a
    new finding even after a known bug failed the same property first, so every failing example
    matched a registered bug."""
    new = result.new_findings
    msgs = [f"{f.property} ({f.kind}): {f.message} -> {f.repro}" for f in new]
    assert not new, "false alarm(s):\n" + "\n".join(msgs)
    for name, st in result.stats.items():
        # a property that never got to check anything would pass vacuously
        assert st.held > 0, f"{name} held on no example ({st})"


@pytest.mark.parametrize("name", PASSES)
def test_no_findings_on_real_pass(name: str, tmp_path) -> None:  # noqa: ANN001
    result = passcheck.check(name, examples=40, seed=7, findings_dir=str(tmp_path), ignore_known=True)
    assert result.examples == 40
    _assert_clean(result)


def test_relax_name_aliases_reach_the_same_pass(tmp_path) -> None:  # noqa: ANN001
    a = passcheck.check("DecomposeOpsForInference", examples=5, seed=1, findings_dir=str(tmp_path))
    b = passcheck.check("SimplifyInference", examples=5, seed=1, findings_dir=str(tmp_path))
    assert a.subject_name == b.subject_name == "SimplifyInference"
    assert {k: vars(v) for k, v in a.stats.items()} == {k: vars(v) for k, v in b.stats.items()}


def test_any_relax_pass_by_name_gets_generic_properties(tmp_path) -> None:  # noqa: ANN001
    result = passcheck.check("CanonicalizeBindings", examples=15, seed=3, findings_dir=str(tmp_path),
                             ignore_known=True)
    assert set(result.stats) == {"pass_does_not_raise", "well_formed", "signature_preserved",
                                 "semantics_preserved", "purity_kept"}
    _assert_clean(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", PASSES)
def test_campaign_2000_examples(name: str, tmp_path) -> None:  # noqa: ANN001
    result = passcheck.check(name, examples=2000, seed=2026, findings_dir=str(tmp_path), timeout=120,
                             ignore_known=True)
    _assert_clean(result)
