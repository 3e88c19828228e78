"""TVM 0.27 bug: DecomposeOpsForTraining computes a float16 layer_norm's statistics in float16.

``R.nn.layer_norm(x, g, b, axes=[0])`` on float16 ``x = [1.0, 1.001]``: TVM's own layer_norm
kernel keeps the mean and variance in float32 and gives the float64 answer (±0.1526) to float16
precision. DecomposeOpsForTraining rewrites it into ``R.mean``, ``R.subtract``, ``R.variance``,
``R.sqrt`` and ``R.divide``, all in float16: the mean rounds to one of the two values (the spacing
of float16 near 1 is 0.001) and the result is [0, 0.3015]. A pass that decomposes an op must keep
its accuracy (the op's kernel is what the user chose); kept because on data whose spread is small
against its mean the decomposed program's numbers are rounding noise. Found by
DecomposeOpsForTraining's campaign once its examples stopped being decided by the inference-mode
batch_norm bug (issue 19).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("c5", (2,), "float16", True, lo=0.5, hi=2.0, style="narrow"),
            TensorDecl("p6", (2,), "float16", False, lo=-2.0, hi=2.0),
            TensorDecl("p7", (2,), "float16", False, lo=-1.0, hi=1.0)),
    nodes=(Node("layer_norm", (0, 1, 2), (("axes", (0,)), ("epsilon", 1e-05)), (2,), "float16"),),
    outputs=(3,), tensor_inputs=True,
)


def _run(mod, args):  # noqa: ANN001, ANN202
    import tvm
    from tvm import relax

    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    return vm["main"](*[tvm.runtime.tensor(a) for a in args]).numpy()


def test_decomposed_float16_layer_norm_loses_its_statistics() -> None:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2,), "float16"), g: R.Tensor((2,), "float16"), b: R.Tensor((2,), "float16")):
            with R.dataflow():
                y = R.nn.layer_norm(x, g, b, axes=[0], epsilon=1e-5)
                R.output(y)
            return y

    args = [np.array([1.0, 1.001], "float16"), np.ones(2, "float16"), np.zeros(2, "float16")]
    x = args[0].astype(np.float64)
    want = (x - x.mean()) / np.sqrt(x.var() + 1e-5)
    np.testing.assert_allclose(_run(Module, args), want, atol=2e-3)  # TVM's own kernel: accurate
    decomposed = relax.transform.DecomposeOpsForTraining()(Module)
    assert "R.variance(" in decomposed.script()
    assert np.abs(_run(decomposed, args) - want).max() > 0.1  # rounding noise


def test_passcheck_reports_it() -> None:
    assert recheck("DecomposeOpsForTraining", "semantics_preserved", EXAMPLE) == 1


def test_decompose_for_training_layer_norm_float16() -> None:
    assert_recognised("DecomposeOpsForTraining", "semantics_preserved", EXAMPLE,
                      "test_decompose_for_training_layer_norm_float16")
