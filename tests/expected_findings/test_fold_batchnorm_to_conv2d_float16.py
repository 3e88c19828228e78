"""TVM 0.27 bug: FoldBatchnormToConv2D raises on a float16 conv2d followed by batch_norm.

The pass folds the batch_norm into the conv's weights computing ``moving_var + epsilon`` with the
epsilon as a float32 scalar: for float16 statistics that is ``R.add(<float16>, T.float32(1e-05))``
and ``TypeError: Binary operators must have the same datatype for both operands``. The float32
program folds. Found by ``passcheck FoldBatchnormToConv2D`` (its motif: a batch_norm over a
conv2d's channels, weights and statistics constant).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _graph(dtype: str) -> GraphSpec:
    conv = (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)), ("strides", (1, 1)))
    return GraphSpec(
        inputs=(TensorDecl("p0", (1, 4, 3, 3), dtype, False), TensorDecl("c1", (4, 4, 1, 1), dtype, True, seed=1),
                TensorDecl("c2", (4,), dtype, True, 0.5, 1.5, seed=2), TensorDecl("c3", (4,), dtype, True, seed=3),
                TensorDecl("c4", (4,), dtype, True, seed=4), TensorDecl("c5", (4,), dtype, True, 0.5, 2.0, seed=5)),
        nodes=(Node("conv2d", (0, 1), conv, (1, 4, 3, 3), dtype),
               Node("batch_norm", (6, 2, 3, 4, 5), (("axis", 1), ("epsilon", 1e-05)), (1, 4, 3, 3), dtype)),
        outputs=(7,))


def test_fold_batchnorm_to_conv2d_raises_on_float16() -> None:
    from tvm import relax

    from passcheck.relax.build import build_module

    with pytest.raises(TypeError, match="Binary operators must have the same datatype"):
        relax.transform.FoldBatchnormToConv2D()(build_module(_graph("float16")))
    folded = relax.transform.FoldBatchnormToConv2D()(build_module(_graph("float32")))
    assert "batch_norm" not in folded.script()


def test_passcheck_recognises_it() -> None:
    assert_recognised("FoldBatchnormToConv2D", "pass_does_not_raise", _graph("float16"),
                      "test_fold_batchnorm_to_conv2d_float16")
