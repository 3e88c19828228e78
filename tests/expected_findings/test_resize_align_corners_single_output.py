"""TVM 0.27 bug: ``resize2d``/``resize3d`` with ``align_corners`` and an output size of 1 on
some axis does not compile.

The align_corners coordinate is ``o * (in - 1) / (out - 1)``; for ``out == 1`` TOPI divides by
zero while building the kernel (``InternalError: Check failed: fb->value != 0: Divide by zero``)
instead of sampling position 0 as PyTorch and ONNX runtimes do. The other coordinate modes, and
align_corners with larger outputs, work. Found by passcheck's op vocabulary.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (1, 2, 3, 3), "float32", False),),
    nodes=(Node("resize2d", (0,), (("coordinate_transformation_mode", "align_corners"), ("method", "linear"),
                                   ("rounding_method", ""), ("size", (1, 2))), (1, 2, 1, 2), "float32"),),
    outputs=(1,),
)


def test_resize_align_corners_single_output_still_fails() -> None:
    from tvm.relax import op as R

    x = np.arange(9, dtype="float32").reshape(1, 1, 3, 3)
    with pytest.raises(Exception, match="Divide by zero"):
        compile_and_run(lambda a: R.image.resize2d(a, (1, 2), coordinate_transformation_mode="align_corners"), [x])
    got = compile_and_run(lambda a: R.image.resize2d(a, (2, 2), coordinate_transformation_mode="align_corners"), [x])
    np.testing.assert_allclose(got.ravel(), [0.0, 2.0, 6.0, 8.0])


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", GRAPH) == 1


def test_resize_align_corners_single_output() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", GRAPH, "test_resize_align_corners_single_output")
