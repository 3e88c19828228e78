"""TVM 0.27 bug: batch_norm's training form overflows its float16 variance.

TOPI's training form of ``R.nn.batch_norm`` computes the batch's variance as
``sum((x - mean)^2) / n`` in the tensor's dtype. On a float16 batch of 64 values in [-100, 100]
the squared deviations sum to about 2.2e5, past float16's 65504: the variance is inf, the
normalised value 0, and every output is ``beta``, where the batch's own statistics give values
from -3 to 3. layer_norm's kernel keeps its statistics in float32 for this reason; the training
batch_norm does not (DecomposeOpsForTraining's R.mean and R.variance compute the same, so the
pass keeps what the kernel computes). Found by DecomposeOpsForTraining's campaign (seed 2612) once
the training form was drawn; the generator draws such a batch at the bug's budget.
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.relax.spec import GraphSpec, Node, TensorDecl

H = "float16"
GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (1, 8, 8), H, False, lo=-100.0, hi=100.0), TensorDecl("p1", (1,), H, False, lo=-2.0, hi=2.0),
            TensorDecl("p2", (1,), H, False), TensorDecl("p3", (1,), H, False, lo=-100.0, hi=100.0),
            TensorDecl("p4", (1,), H, False, lo=0.5, hi=2.0)),
    nodes=(Node("batch_norm_training", (0, 1, 2, 3, 4), (("axis", 0), ("epsilon", 1e-05)), (1, 8, 8), H),),
    outputs=(5,),
)


def test_the_float16_variance_overflows() -> None:
    from tvm import relax
    from tvm.relax import op as R

    x = np.linspace(-100, 100, 64).reshape(1, 8, 8).astype(H)
    args = [x, np.ones(1, H), np.full(1, 0.5, H), np.zeros(1, H), np.ones(1, H)]

    def bn(*a):  # noqa: ANN002, ANN202
        return relax.TupleGetItem(R.nn.batch_norm(*a, axis=0, epsilon=1e-5, training=True), 0)

    got = compile_and_run(bn, args)
    assert np.all(got == np.float16(0.5))  # beta everywhere: the variance was inf
    x64 = x.astype(np.float64)
    want = (x64 - x64.mean()) / np.sqrt(x64.var() + 1e-5) + 0.5
    assert want.min() < -1.0 and want.max() > 2.0
    # the same batch in float32 is right
    np.testing.assert_allclose(compile_and_run(bn, [a.astype("float32") for a in args]), want, atol=1e-4)


def test_batch_norm_training_float16_variance_overflow() -> None:
    assert_recognised("DecomposeOpsForTraining", "semantics_preserved", GRAPH,
                      "test_batch_norm_training_float16_variance_overflow")
