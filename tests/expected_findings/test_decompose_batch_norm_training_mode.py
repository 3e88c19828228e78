"""TVM 0.27 bug: DecomposeOpsForInference changes a training-mode batch_norm.

``R.nn.batch_norm`` defaults to ``training=True`` (normalise with the batch's mean and
variance). DecomposeOpsForInference ignores the flag and rewrites it with the moving
statistics: a different function (here |diff| up to ~2 on unit inputs), where it should leave
a training-mode batch_norm alone. TVM's own decompose tests (test_batch_norm_inference,
test_batch_norm_multiple_functions) feed it training-mode inputs. Found by ``passcheck
SimplifyInference --corpus`` on the Before modules of TVM's pass tests (tests/fixtures/tvm_corpus);
with ``training=False`` (what passcheck's generator draws) the decomposition is right.
"""

from __future__ import annotations

from pathlib import Path

from known_bug_check import assert_recognised

from passcheck.core.corpus import load_corpus
from passcheck.core.engine.repro import recheck

MODULE = Path(__file__).resolve().parents[1] / "fixtures/tvm_corpus/relax/SimplifyInference/batch_norm_inference.py"


def _example():  # noqa: ANN202
    return load_corpus([str(MODULE)], "relax").examples[0]


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", _example()) == 1


def test_inference_mode_is_decomposed_correctly(tmp_path: Path) -> None:
    inference = tmp_path / "inference.py"
    inference.write_text(MODULE.read_text().replace("scale=True,", "scale=True, training=False,"))
    assert "training=False" in inference.read_text()
    assert recheck("SimplifyInference", "semantics_preserved", load_corpus([str(inference)], "relax").examples[0]) == 0


def test_registered_as_a_known_bug() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", _example(), "test_decompose_batch_norm_training_mode")


# a drawn training-mode batch_norm under a pass the tuning pipeline runs after DecomposeOpsForInference
# (AnnotateTIROpPattern, seed 2612): the prerequisite decomposed it with the moving statistics
def test_under_a_pass_run_after_it() -> None:
    from passcheck.relax.program.spec import ProgramSpec
    from passcheck.relax.spec import GraphSpec, Node, TensorDecl

    F = "float32"
    example = ProgramSpec(GraphSpec(
        inputs=(TensorDecl("p0", (1, 1), F, False), TensorDecl("p1", (1,), F, False, lo=-2.0, hi=2.0),
                TensorDecl("p2", (1,), F, False), TensorDecl("p3", (1,), F, False),
                TensorDecl("p4", (1,), F, False, lo=0.5, hi=2.0)),
        nodes=(Node("batch_norm_training", (0, 1, 2, 3, 4), (("axis", 0), ("epsilon", 1e-05)), (1, 1), F),),
        outputs=(5,)))
    assert recheck("AnnotateTIROpPattern", "semantics_preserved", example) == 1
    assert_recognised("AnnotateTIROpPattern", "semantics_preserved", example, "test_decompose_batch_norm_training_mode")
