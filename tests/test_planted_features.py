"""Planted bugs that one drawn feature alone reaches (issue 22), each caught within 200 examples
of the pass's default draws: coincident extents, a narrow integer's edge values and an attribute
form (a clip bound of 0) and a tuple-valued group read by field here, index narrowing near
2^31 in tests/tir/test_tir_buggy_passes.py, a hang in one input of ten in tests/test_hangs.py,
group_norm's epsilon in tests/test_impl_known.py. The stock pass holds on the same draws."""

from __future__ import annotations

from pathlib import Path

import pytest
from planted_check import first_caught

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")


def test_a_square_weights_transpose_taken_for_a_no_op_is_caught_within_200() -> None:
    caught = first_caught("FuseTransposeMatmul", "semantics_preserved",
                          impl=f"{BUGGY}:fuse_transpose_matmul_square_weight")
    assert caught is not None, "the square-weight transpose bug escaped 200 examples"
    index, message = caught
    assert "wrong numbers" in message
    # the same draws up to that one: the stock pass holds (the bug, not the example, is caught)
    assert first_caught("FuseTransposeMatmul", "semantics_preserved", limit=index + 1) is None


# (pass, planted bug, the feature only it reaches, seed): each caught within 200 examples drawn as
# the pass's run draws them, passing over what the stock pass fails too (kept TVM bugs on the way)
FEATURE_BUGS = [
    ("FoldConstant", "fold_constant_saturates_narrow_ints", "a narrow integer's edge values", 0),
    ("FoldConstant", "fold_constant_clip_zero_bound", "an attribute form: a clip bound of 0", 0),
    ("FuseOps", "fuse_ops_reads_first_field", "a tuple-valued group read by field", 0),
]


@pytest.mark.parametrize(("subject", "bug", "feature", "seed"), FEATURE_BUGS, ids=[b[1] for b in FEATURE_BUGS])
def test_a_bug_one_feature_reaches_is_caught_within_200(subject: str, bug: str, feature: str, seed: int) -> None:
    caught = first_caught(subject, "semantics_preserved", impl=f"{BUGGY}:{bug}", seed=seed, stock_holds=True)
    assert caught is not None, f"{bug} ({feature}) escaped 200 examples of {subject} at seed {seed}"
    assert "wrong numbers" in caught[1] or "shape" in caught[1], caught
