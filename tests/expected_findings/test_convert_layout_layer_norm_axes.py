"""TVM 0.27 bug: ConvertLayout gives layer_norm wrong results when it normalises over the
channel axis and another axis.

After ``conv2d`` is converted to NHWC, ConvertLayout rewrites a following
``layer_norm(axes=[1, 2])`` (C and H in NCHW) to ``axes=[3, 1]`` but keeps gamma and beta in
their (C, H) shape. The legalized kernel indexes gamma/beta in the order of the (unsorted)
new axes, so it reads them transposed and past their end: the outputs are garbage (values
like 1e20 or NaN from uninitialised memory), while the unconverted module is correct. Axes
that stay in order under the permutation (``[1]``, ``[-1]``, ``[2, 3]``) are fine. Found by
``passcheck AlterOpLayout`` (``semantics_preserved``) in the 2,000-example campaign.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(
        TensorDecl(name="p0", shape=(2, 3, 5, 4), dtype="float32", const=False),
        TensorDecl(name="p1", shape=(3, 3, 1, 1), dtype="float32", const=False),
        TensorDecl(name="p2", shape=(3, 5), dtype="float32", const=False, lo=0.5, hi=1.5),
        TensorDecl(name="p3", shape=(3, 5), dtype="float32", const=False),
    ),
    nodes=(
        Node(op="conv2d", args=(0, 1), attrs=(("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)),
                                             ("strides", (1, 1))), shape=(2, 3, 5, 4), dtype="float32"),
        Node(op="layer_norm", args=(4, 2, 3), attrs=(("axes", (1, 2)), ("epsilon", 1e-05)), shape=(2, 3, 5, 4),
             dtype="float32"),
    ),
    outputs=(5,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NHWC", "OIHW")),)),),
)


def _results(axes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    rng = np.random.default_rng(0)
    norm_shape = tuple((2, 3, 5, 4)[a] for a in axes)
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3, 5, 4), "float32"))
    w = relax.Var("w", relax.TensorType((3, 3, 1, 1), "float32"))
    gamma = relax.const(rng.random(norm_shape, dtype="float32") + 0.5)
    beta = relax.const(rng.random(norm_shape, dtype="float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            c = bb.emit(R.nn.conv2d(x, w))
            out = bb.emit_output(R.nn.layer_norm(c, gamma, beta, axes=axes))
        bb.emit_func_output(out)
    mod = bb.get()
    converted = relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OIHW"]})(mod)
    args = (rng.random((2, 3, 5, 4), dtype="float32"), rng.random((3, 3, 1, 1), dtype="float32"))

    def run(m: object) -> np.ndarray:
        return relax.VirtualMachine(tvm.compile(m, target="llvm"), tvm.cpu())["main"](*args).numpy()

    return run(mod), run(converted)


@pytest.mark.parametrize("axes", [[1, 2], [1, 2, 3]])
def test_converted_layer_norm_is_still_wrong(axes: list[int]) -> None:
    want, got = _results(axes)
    assert not np.allclose(got, want, rtol=1e-3, atol=1e-3, equal_nan=False)


@pytest.mark.parametrize("axes", [[1], [-1], [2, 3]])
def test_axes_kept_in_order_convert_correctly(axes: list[int]) -> None:
    want, got = _results(axes)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("AlterOpLayout", "semantics_preserved", EXAMPLE, "test_convert_layout_layer_norm_axes")


# rms_norm over (C, H, W): rewritten to axes=[3, 1, 2] with its weight left (C, H, W) (seed 4242;
# in plain TVM the converted module's output differs by 1.27 from the original's)
RMS_NORM = GraphSpec(
    inputs=(TensorDecl(name="p1", shape=(1, 4, 2, 2), dtype="float32", const=False),
            TensorDecl(name="p2", shape=(4, 4, 1, 1), dtype="float32", const=False),
            TensorDecl(name="p3", shape=(4, 2, 2), dtype="float32", const=False, lo=-2.0, hi=2.0)),
    nodes=(Node(op="conv2d", args=(0, 1), attrs=(("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)),
                                                ("strides", (1, 1))), shape=(1, 4, 2, 2), dtype="float32"),
           Node(op="rms_norm", args=(3, 2), attrs=(("axes", (1, 2, 3)), ("epsilon", 1e-05)), shape=(1, 4, 2, 2),
                dtype="float32")),
    outputs=(4,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NHWC", "OHWI")),)),),
    tensor_inputs=True,
)


def test_rms_norm_meets_it_too() -> None:
    assert_recognised("AlterOpLayout", "semantics_preserved", RMS_NORM, "test_convert_layout_layer_norm_axes")
