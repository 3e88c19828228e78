"""TVM 0.27 bug: a transposed convolution makes NaN where no input element reaches.

``conv1d_transpose(x, w, strides=2, output_padding=1)`` with a 1-wide kernel writes the inputs
to even output positions only; the odd ones (stride gaps and the output padding) are a sum of
no terms: exactly 0, whatever ``w`` holds (PyTorch's and ONNX's transposed convolutions give 0).
TOPI computes the op as a plain convolution over the input dilated with zeros, so those
positions are ``0 * w[k]`` summed: a NaN or Inf in the weight makes them NaN. Finite weights hide
it; constant folders meet such weights (a folded 0/0). Found by ``passcheck FoldConstant``
(``semantics_preserved``, seed 7): the conv is not folded (its input is a parameter), so the
finding is the legalized op's, under any pass. conv2d_transpose computes the same way.
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p2", shape=(1, 5, 1), dtype="float64", const=False, seed=62121),
            TensorDecl(name="c3", shape=(5, 1, 1), dtype="float64", const=True, style="special", seed=0)),
    nodes=(Node(op="conv1d_transpose", args=(0, 1),
                attrs=(("dilation", (1,)), ("groups", 1), ("output_padding", (1,)), ("padding", (0, 0)),
                       ("strides", (2,))),
                shape=(1, 1, 2), dtype="float64"),),
    outputs=(2,), input_seed=44352, tensor_inputs=True,
)


def _run(ndim: int) -> np.ndarray:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    spatial = (1,) * ndim
    x = np.ones((1, 2, *spatial), "float32")
    w = np.ones((2, 1, *spatial), "float32")
    w[1] = np.nan  # one NaN weight: reaches outputs only through input channel 1
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorType(x.shape, "float32"))
    with bb.function("main", [xv]):
        with bb.dataflow():
            conv = R.nn.conv1d_transpose if ndim == 1 else R.nn.conv2d_transpose
            out = bb.emit_output(conv(xv, relax.const(w), strides=[2] * ndim, output_padding=[1] * ndim))
        bb.emit_func_output(out)
    return run_relax(bb.get(), [x])[0]


def test_conv_transpose_nan_where_no_input_reaches_still_fails() -> None:
    out1 = _run(1)  # (1, 1, 2): position 0 = x0*w0 + x1*NaN = NaN (right), position 1 = no terms
    assert out1.shape == (1, 1, 2) and np.isnan(out1[0, 0, 0])
    assert np.isnan(out1[0, 0, 1])  # exact: 0 (a sum of no terms)
    out2 = _run(2)  # (1, 1, 2, 2): only [0, 0] is reached
    assert np.isnan(out2[0, 0]).all()  # exact: NaN at [0, 0], 0 at the three others


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "semantics_preserved", GRAPH) == 1


# Stride 1: output 1 = x * w[1], reached by the input, but its window also puts w[0] on the zero
# padding: 0 * NaN (FoldConstant, seed 103, 6 of 500 examples; the conv of two constants is not folded).
BORDER = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1, 1, 1), dtype="float32", const=False),
            TensorDecl(name="c1", shape=(1, 1, 1), dtype="float32", const=True),
            TensorDecl(name="c2", shape=(1, 1, 2), dtype="float32", const=True, style="special")),
    nodes=(Node(op="conv1d_transpose", args=(1, 2),
                attrs=(("dilation", (1,)), ("groups", 1), ("output_padding", (0,)), ("padding", (0, 0)),
                       ("strides", (1,))),
                shape=(1, 1, 2), dtype="float32"),),
    outputs=(3,),
)


def test_conv_transpose_nan_where_no_input_reaches() -> None:
    assert_recognised("FoldConstant", "semantics_preserved", GRAPH, "test_conv_transpose_nan_where_no_input_reaches")
    assert "got nan, reference 0.84" in assert_recognised("FoldConstant", "semantics_preserved", BORDER,
                                                          "test_conv_transpose_nan_where_no_input_reaches")
