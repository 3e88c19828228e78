"""TVM 0.27 bug: ConvertLayout accepts packed conv2d layouts that nothing can then lower.

``ConvertLayout({"relax.nn.conv2d": [data, kernel]})`` takes a packed data layout (``NCHW4c``,
``NCHW2c``, ``NHWC4c``) or a packed kernel layout (``OIHW4o``, ``OIHW2i2o``, ``OIHW4i4o``,
``HWIO4o``) and rewrites the conv2d to it. LegalizeOps has no rule for a conv2d in such a
layout and leaves the call as it is (it only logs), so building the converted module fails in
VM codegen ("CodeGenVM cannot emit this Relax operator directly"): a module that built and ran
before the pass no longer builds. Measured over the 5 x 6 combinations of the usual and packed
layouts: every one with a packed data or kernel layout fails, every unpacked one runs. Found by
``passcheck AlterOpLayout`` (seed 7), which draws every desired layout the pass accepts.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (1, 4, 1, 1), "float32", False), TensorDecl("p1", (4, 1, 1, 1), "float32", False)),
    nodes=(Node("conv2d", (0, 1), (("dilation", (1, 1)), ("groups", 4), ("padding", (0, 0, 0, 0)),
                                   ("strides", (1, 1))), (1, 4, 1, 1), "float32"),),
    outputs=(2,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NCHW", "OIHW4o")),)),),
)


def _convert_and_run(data_layout: str, kernel_layout: str) -> np.ndarray:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 8, 3, 3), "float32"))
    w = relax.Var("w", relax.TensorType((8, 8, 1, 1), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.conv2d(x, w))
        bb.emit_func_output(out)
    mod = relax.transform.ConvertLayout({"relax.nn.conv2d": [data_layout, kernel_layout]})(bb.get())
    return run_relax(mod, [np.ones((1, 8, 3, 3), "float32"), np.ones((8, 8, 1, 1), "float32")])[0]


def test_convert_layout_packed_conv2d_layouts_still_fail() -> None:
    import tvm

    for data_layout, kernel_layout in (("NCHW", "OIHW4o"), ("NCHW4c", "OIHW"), ("NHWC", "OIHW2i2o")):
        with pytest.raises(tvm.error.InternalError, match="CodeGenVM cannot emit"):
            _convert_and_run(data_layout, kernel_layout)
    np.testing.assert_array_equal(_convert_and_run("NHWC", "OHWI"), np.full((1, 8, 3, 3), 8.0, "float32"))


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", EXAMPLE) == 1


def test_convert_layout_packed_conv2d_layouts() -> None:
    assert_recognised("AlterOpLayout", "semantics_preserved", EXAMPLE, "test_convert_layout_packed_conv2d_layouts")
