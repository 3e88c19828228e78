"""TVM 0.27 bugs: DecomposeOpsForTraining on ``batch_norm``.

1. It ignores the op's ``training`` attribute: an inference-mode ``batch_norm(...,
   training=False)`` -- which LegalizeOps and the VM compute with the moving mean and
   variance -- is decomposed with the batch's own statistics, so the function's results
   change (by 2.0 on the graph below). The op attribute says what the call means; a pass
   that rewrites the call must keep that meaning.
2. It does not normalise a negative ``axis``: ``batch_norm(x, ..., axis=-2)`` (valid, and
   computed correctly by LegalizeOps) makes it emit a mean over the wrong axes and fail its
   own type check: ``ValueError: ... requires the input moving_mean to have as many dimensions
   as the length of input axes. However, the given one has ndim 0``.

Found by ``passcheck sequence`` (``semantics_preserved`` / ``every_step_preserves_semantics``
and ``pass_does_not_raise``), shrunk to one ``batch_norm``.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _graph(axis: int) -> GraphSpec:
    return GraphSpec(
        inputs=(TensorDecl(name="p0", shape=(2, 3, 4), dtype="float32", const=False),
                TensorDecl(name="p1", shape=(3,), dtype="float32", const=False, lo=0.5, hi=2.0),
                TensorDecl(name="p2", shape=(3,), dtype="float32", const=False),
                TensorDecl(name="p3", shape=(3,), dtype="float32", const=False),
                TensorDecl(name="p4", shape=(3,), dtype="float32", const=False, lo=0.5, hi=2.0)),
        nodes=(Node(op="batch_norm", args=(0, 1, 2, 3, 4), attrs=(("axis", axis), ("epsilon", 1e-05)),
                    shape=(2, 3, 4), dtype="float32"),),
        outputs=(5,),
    )


INFERENCE = _graph(1)
NEGATIVE_AXIS = _graph(-2)


def _module(axis: int, training: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3, 4), "float32"))
    c = [relax.const(np.full((3,), v, "float32")) for v in (1.5, 0.25, 0.1, 2.0)]
    with bb.function("main", [x]):
        with bb.dataflow():
            bn = bb.emit(R.nn.batch_norm(x, *c, axis=axis, training=training))
            out = bb.emit_output(bn[0])
        bb.emit_func_output(out)
    return bb.get()


def _run(mod, x):  # noqa: ANN001, ANN202
    import tvm
    from tvm import relax

    return relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())["main"](x).numpy()


def test_inference_batch_norm_is_still_decomposed_as_training() -> None:
    from tvm import relax

    x = np.random.default_rng(0).uniform(-1, 1, (2, 3, 4)).astype("float32")
    mod = _module(1, training=False)
    moving = (x - 0.1) / np.sqrt(2.0 + 1e-5) * 1.5 + 0.25  # what training=False means
    np.testing.assert_allclose(_run(mod, x), moving, rtol=1e-5, atol=1e-6)
    decomposed = _run(relax.transform.DecomposeOpsForTraining()(mod), x)
    assert np.abs(decomposed - moving).max() > 0.5
    training = _module(1, training=True)  # in training mode the decomposition is right
    np.testing.assert_allclose(_run(relax.transform.DecomposeOpsForTraining()(training), x), _run(training, x),
                               rtol=1e-5, atol=1e-5)


def test_negative_axis_still_raises() -> None:
    from tvm import relax

    with pytest.raises(ValueError, match="moving_mean to have as many dimensions"):
        relax.transform.DecomposeOpsForTraining()(_module(-2, training=False))


def test_passcheck_reports_them() -> None:
    assert recheck("DecomposeOpsForTraining", "semantics_preserved", INFERENCE) == 1
    assert recheck("DecomposeOpsForTraining", "pass_does_not_raise", NEGATIVE_AXIS) == 1
    assert recheck("sequence", "every_step_preserves_semantics",
                   PassSequence(INFERENCE, (Step("DecomposeOpsForTraining"),))) == 1


def test_decompose_for_training_ignores_inference_mode() -> None:
    assert_recognised("DecomposeOpsForTraining", "semantics_preserved", INFERENCE,
                      "test_decompose_for_training_ignores_inference_mode")


def test_decompose_for_training_ignores_inference_mode_in_sequences() -> None:
    assert_recognised("sequence", "every_step_preserves_semantics",
                      PassSequence(INFERENCE, (Step("FoldConstant"), Step("DecomposeOpsForTraining"))),
                      "test_decompose_for_training_ignores_inference_mode_in_sequences")


def test_decompose_for_training_negative_axis() -> None:
    assert_recognised("DecomposeOpsForTraining", "pass_does_not_raise", NEGATIVE_AXIS,
                      "test_decompose_for_training_negative_axis")
    assert_recognised("sequence", "pass_does_not_raise", PassSequence(NEGATIVE_AXIS, (Step("DecomposeOpsForTraining"),)),
                      "test_decompose_for_training_negative_axis")
