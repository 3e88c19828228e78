"""TVM 0.27 bug: FoldConstant raises on a reshape to a data-dependent shape.

``reshape(data, tensor_to_shape(t))`` where ``t`` is computed from function parameters cannot
be folded; FoldConstant still hands the reshape to its legalizer, whose ``reshape_call_te``
asserts the target shape is a ``ShapeExpr`` and raises a bare ``AssertionError`` out of the
pass. TVM's own test (test_fold_multiple_relax_ops_with_data_dependent_reshape) binds the
parameters to constants first and so never meets it. Found by ``passcheck FoldConstant
--corpus`` on the Before modules of TVM's pass tests (tests/fixtures/tvm_corpus).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from known_bug_check import assert_recognised

from passcheck.core.corpus import load_corpus
from passcheck.core.engine.repro import recheck

MODULE = (Path(__file__).resolve().parents[1]
          / "fixtures/tvm_corpus/relax/FoldConstant/fold_multiple_relax_ops_with_data_dependent_reshape.py")


def _example():  # noqa: ANN202
    return load_corpus([str(MODULE)], "relax").examples[0]


def test_fold_constant_still_raises() -> None:
    from tvm import relax

    mod = load_corpus([str(MODULE)], "relax").modules[f"{MODULE}:Before"]
    with pytest.raises(AssertionError):
        relax.transform.FoldConstant()(mod)


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "pass_does_not_raise", _example()) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("FoldConstant", "pass_does_not_raise", _example(), "test_fold_constant_data_dependent_reshape")
