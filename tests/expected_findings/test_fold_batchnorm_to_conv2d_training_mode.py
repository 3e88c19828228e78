"""TVM 0.27 bug: FoldBatchnormToConv2D folds a training-mode batch_norm into its conv2d.

``R.nn.batch_norm(conv2d(x, w), gamma, beta, mean, var, training=True)`` normalises by the batch's
own statistics; the moving ``mean`` and ``var`` are only updated (outputs 1 and 2). With ``w``,
gamma, beta and the moving statistics constant, FoldBatchnormToConv2D folds it into the conv2d as
if it were in inference mode (``w * gamma / sqrt(var + eps)``, bias from ``mean``): the batch_norm
is gone and the results change. It should fold inference-mode batch_norms only. Found by checking
the pass on the training form once passcheck drew it (its motif draws it at the bug's budget).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

F = "float32"
GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (1, 4, 3, 3), F, False), TensorDecl("c1", (4, 4, 1, 1), F, True, seed=1),
            TensorDecl("c2", (4,), F, True, lo=0.5, hi=1.5, seed=2), TensorDecl("c3", (4,), F, True, seed=3),
            TensorDecl("c4", (4,), F, True, seed=4), TensorDecl("c5", (4,), F, True, lo=0.5, hi=2.0, seed=5)),
    nodes=(Node("conv2d", (0, 1), (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)), ("strides", (1, 1))),
                (1, 4, 3, 3), F),
           Node("batch_norm_training", (6, 2, 3, 4, 5), (("axis", 1), ("epsilon", 1e-05)), (1, 4, 3, 3), F)),
    outputs=(7,),
)


def test_a_training_batch_norm_is_folded_with_the_moving_statistics() -> None:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    rng = np.random.default_rng(0)
    x = relax.Var("x", relax.TensorType((2, 3, 4, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            conv = bb.emit(R.nn.conv2d(x, relax.const(rng.uniform(-1, 1, (3, 3, 1, 1)).astype("float32"))))
            stats = [relax.const(a.astype("float32")) for a in (np.ones(3), np.zeros(3), np.zeros(3), np.ones(3))]
            bn = bb.emit(R.nn.batch_norm(conv, *stats, axis=1, epsilon=1e-5, training=True))
            out = bb.emit_output(relax.TupleGetItem(bn, 0))
        bb.emit_func_output(out)
    mod = bb.get()
    folded = relax.transform.FoldBatchnormToConv2D()(mod)
    assert "batch_norm" not in folded.script()
    arg = tvm.runtime.tensor(rng.uniform(-1, 1, (2, 3, 4, 4)).astype("float32"))

    def run(m):  # noqa: ANN001, ANN202
        return relax.VirtualMachine(tvm.compile(m, target="llvm"), tvm.cpu())["main"](arg).numpy()

    assert np.abs(run(mod) - run(folded)).max() > 0.1


def test_passcheck_reports_it() -> None:
    assert recheck("FoldBatchnormToConv2D", "semantics_preserved", GRAPH) == 1


def test_fold_batchnorm_to_conv2d_training_mode() -> None:
    assert_recognised("FoldBatchnormToConv2D", "semantics_preserved", GRAPH, "test_fold_batchnorm_to_conv2d_training_mode")
