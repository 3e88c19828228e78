"""Checking passes from pytest (e.g. in CI) with passcheck's ``passcheck`` fixture.

Installing passcheck registers the fixture (a pytest plugin); nothing to import. The fixture's
``check`` runs like the ``passcheck`` command and fails the test with every finding and the
path of its repro script (written under the test's tmp_path). Run:

    pytest examples/test_with_pytest.py

``pytest --passcheck-examples 500 ...`` raises the default number of examples, e.g. for a
nightly job; an explicit ``examples=`` in a test wins over it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def test_my_fold_constant(passcheck: Any) -> None:
    """Our own constant folder keeps every FoldConstant property, and our own property."""
    passcheck.check(
        "FoldConstant",
        impl=f"{HERE / 'my_fold_constant.py'}:my_fold_constant",
        property_files=[str(HERE / "properties_example.py")],
        examples=25,
        seed=0,
        # our folder calls TVM's own one, so drawn graphs may meet TVM bugs that passcheck already
        # keeps repros of (tests/expected_findings/); only new findings should fail this job
        ignore_known=True,
    )


def test_tvm_simplify_inference(passcheck: Any) -> None:
    """TVM's own pass, with only the property we care about in this job.

    ``ignore_known=True``: a job about TVM's own pass should fail on new findings only; the drawn
    graphs may meet TVM bugs that passcheck already keeps repros of (tests/expected_findings/).
    """
    result = passcheck.check("SimplifyInference", properties=["semantics_preserved"], examples=15, seed=4,
                             ignore_known=True)
    assert result.stats["semantics_preserved"].held > 0  # the run really checked something
