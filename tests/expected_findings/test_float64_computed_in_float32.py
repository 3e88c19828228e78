"""TVM 0.27 bug: float64 rms_norm, resize2d/resize3d and affine_grid compute in float32.

Relax types these ops on float64 tensors as float64, and the legalized kernels return float64,
but TOPI computes them through float32 (a cast of the data, or float32 constants and
coordinates): the results carry float32 rounding, ~1e-8 relative, a hundred million times
the float64 bound. A nearest-neighbour resize shows it plainly: it should copy input elements,
and returns them rounded to float32. grid_sample, drawn the same way, is accurate. Found by
the vocabulary once these ops were drawn in float64 (issue 9).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

RMS_NORM = GraphSpec(
    inputs=(TensorDecl("p0", (2, 2), "float64", False, -0.01, 0.01, "wide", 2),
            TensorDecl("p1", (2,), "float64", False, 0.5, 1.5, "wide", 48583)),
    nodes=(Node("rms_norm", (0, 1), (("axes", (-1,)), ("epsilon", 1e-05)), (2, 2), "float64"),),
    outputs=(2,),
)
RESIZE = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 2, 3), "float64", False, -10.0, 10.0, "wide", 900),),
    nodes=(Node("resize2d", (0,), (("coordinate_transformation_mode", "asymmetric"), ("method", "nearest_neighbor"),
                                   ("rounding_method", "floor"), ("size", (4, 3))), (1, 1, 4, 3), "float64"),),
    outputs=(1,),
)
AFFINE_GRID = GraphSpec(
    inputs=(TensorDecl("p0", (4, 2, 3), "float64", False, -2.0, 2.0, "wide", 671),),
    nodes=(Node("affine_grid", (0,), (("align_corners", True), ("size", (2, 3))), (4, 2, 2, 3), "float64"),),
    outputs=(1,),
)


def test_nearest_resize_rounds_float64_to_float32_still() -> None:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    x = np.array([[[[0.1, 1 / 3, np.pi], [np.e, 1e-3 / 7, -2 / 3]]]])  # none is a float32 value
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorType(x.shape, "float64"))
    with bb.function("main", [xv]):
        with bb.dataflow():
            out = bb.emit_output(R.image.resize2d(xv, (2, 3), method="nearest_neighbor",
                                                  coordinate_transformation_mode="asymmetric"))
        bb.emit_func_output(out)
    got = run_relax(bb.get(), [x])[0]
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x.astype(np.float32).astype(np.float64))  # exact: x itself
    assert not np.array_equal(got, x)


@pytest.mark.parametrize("graph", [RMS_NORM, RESIZE, AFFINE_GRID], ids=["rms_norm", "resize2d", "affine_grid"])
def test_passcheck_reports_it(graph: GraphSpec) -> None:
    assert recheck("FoldConstant", "semantics_preserved", graph) == 1


@pytest.mark.parametrize("graph", [RMS_NORM, RESIZE, AFFINE_GRID], ids=["rms_norm", "resize2d", "affine_grid"])
def test_float64_computed_in_float32(graph: GraphSpec) -> None:
    assert_recognised("FoldConstant", "semantics_preserved", graph, "test_float64_computed_in_float32")
