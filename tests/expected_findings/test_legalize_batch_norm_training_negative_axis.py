"""TVM 0.27 bug: ``batch_norm(training=True)`` with a negative axis does not legalize.

``R.nn.batch_norm(x, gamma, beta, mean, var, axis=-1, training=True)`` on a (2, 3) tensor
type-checks (Relax normalises the axis for its type rule), but LegalizeOps hands the axis to TOPI
unnormalised, and TOPI's training form builds its reduction axes as ``list(range(ndim))`` less the
axis: ``ValueError: list.remove(x): x not in list``. ``axis=1`` (the same axis) works, and so does
the inference form with ``axis=-1`` (it only indexes the shape). Found by passcheck's op vocabulary
when batch_norm's training form was added (issue 19: DecomposeOpsForTraining acts on it).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (2, 3), "float32", False),
            *(TensorDecl(f"p{i}", (3,), "float32", False) for i in range(1, 5))),
    nodes=(Node("batch_norm_training", (0, 1, 2, 3, 4), (("axis", -1), ("epsilon", 1e-05)), (2, 3), "float32"),),
    outputs=(5,),
)


def _args() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, (2, 3)).astype("float32"), np.ones(3, "float32"), np.zeros(3, "float32"),
            np.zeros(3, "float32"), np.ones(3, "float32")]


def test_batch_norm_training_negative_axis_still_fails() -> None:
    from tvm import relax
    from tvm.relax import op as R

    def bn(axis: int, training: bool):  # noqa: ANN202
        return lambda *a: relax.TupleGetItem(R.nn.batch_norm(*a, axis=axis, epsilon=1e-5, training=training), 0)

    args = _args()
    with pytest.raises(ValueError, match=r"list\.remove\(x\): x not in list"):
        compile_and_run(bn(-1, True), args)
    got = compile_and_run(bn(1, True), args)
    x = args[0].astype(np.float64)
    want = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + 1e-5)  # the batch's statistics
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    compile_and_run(bn(-1, False), args)  # the inference form takes the negative axis


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "pass_does_not_raise", GRAPH) == 1
    assert recheck("Normalize", "semantics_preserved", GRAPH) == 1


@pytest.mark.parametrize("subject, prop", [("FuseOps", "pass_does_not_raise"),
                                           ("Normalize", "semantics_preserved")])
def test_legalize_batch_norm_training_negative_axis(subject: str, prop: str) -> None:
    message = assert_recognised(subject, prop, GRAPH, "test_legalize_batch_norm_training_negative_axis")
    assert "list.remove(x): x not in list" in message
