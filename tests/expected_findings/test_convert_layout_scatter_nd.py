"""TVM 0.27 bug: ConvertLayout (AlterOpLayout) raises on scatter_nd after a converted conv2d.

``scatter_nd(data, indices, updates)`` writes ``updates`` at the leading axes of ``data`` that
``indices`` address (``updates.shape = indices.shape[:-1] + data.shape[K:]``). ConvertLayout
hands it the conv's new layout for ``data`` and ``updates`` alike, though the indices still
address the leading axes: NHWC keeps N in front and comes out right, but a layout that moves N
(CWNH, HWCN, ...) makes a scatter_nd whose updates no longer fit, and the pass raises
``ValueError: ScatterND op requires the updates tensor to have the shape ...`` instead of leaving
scatter_nd in the layout it was written in. Found by ``passcheck AlterOpLayout``
(``pass_does_not_raise``, seeds 101 and 102: 13 and 6 of 500 examples).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (1, 8, 3, 8), "float32", False), TensorDecl("p1", (8, 8, 3, 3), "float32", False),
            TensorDecl("p2", (1, 1), "int64", False, lo=0.0, hi=0.0), TensorDecl("p3", (1, 8, 3, 8), "float32", False)),
    nodes=(Node("conv2d", (0, 1), (("dilation", (1, 1)), ("groups", 1), ("padding", (1, 1, 1, 1)), ("strides", (1, 1))),
                (1, 8, 3, 8), "float32"),
           Node("scatter_nd", (4, 3, 2), (("m", 1), ("reduction", "update")), (1, 8, 3, 8), "float32")),
    outputs=(5,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("CWNH", "OIHW")),)),),
)


def _module() -> object:
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x, w = relax.Var("x", relax.TensorType((1, 8, 3, 8), "float32")), relax.Var("w", relax.TensorType((8, 8, 3, 3), "float32"))
    i, u = relax.Var("i", relax.TensorType((1, 1), "int64")), relax.Var("u", relax.TensorType((1, 8, 3, 8), "float32"))
    with bb.function("main", [x, w, i, u]):
        with bb.dataflow():
            out = bb.emit_output(R.scatter_nd(bb.emit(R.nn.conv2d(x, w, padding=(1, 1))), i, u))
        bb.emit_func_output(out)
    return bb.get()


def test_convert_layout_scatter_nd_still_raises() -> None:
    from tvm import relax

    relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_module())  # N stays in front: fine
    with pytest.raises(ValueError, match="ScatterND op requires the updates tensor to have the shape"):
        relax.transform.ConvertLayout({"relax.nn.conv2d": ["CWNH", "OIHW"]})(_module())


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "pass_does_not_raise", EXAMPLE) == 1


def test_convert_layout_scatter_nd() -> None:
    assert_recognised("AlterOpLayout", "pass_does_not_raise", EXAMPLE, "test_convert_layout_scatter_nd")
