"""TVM 0.27 bugs: ConvertLayout converts to layouts the rest of TVM cannot take.

1. conv2d to a packed data layout (NCHW2c) whose factor does not divide the *output* channels
   (1 here): instead of leaving the call alone, ConvertLayout raises from its own rewriter,
   ``DataflowBlock Pass should not rewrite or delete any global-scope Var``.
2. A ``resize2d`` after a conv2d converted to CHNW is given ``layout="CHNW"`` too, which TOPI's
   resize refuses when the module is built: ``CHNW layout is not supported`` (ConvertLayout
   should keep resize2d in a layout it supports and transform around it).

Found by the 2,000-example AlterOpLayout campaign (seed 2026); both shrunk to these graphs.
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

_CONV = (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)), ("strides", (1, 1)))

PACKED = GraphSpec(
    inputs=(TensorDecl("p0", (1, 2, 1, 1), "float32", False), TensorDecl("p1", (1, 2, 1, 1), "float32", False)),
    nodes=(Node("conv2d", (0, 1), _CONV, (1, 1, 1, 1), "float32"),),
    outputs=(2,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NCHW2c", "OIHW")),)),),
)

RESIZE = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 1, 1), "float32", False), TensorDecl("p1", (1, 1, 1, 1), "float32", False)),
    nodes=(Node("conv2d", (0, 1), _CONV, (1, 1, 1, 1), "float32"),
           Node("resize2d", (2,), (("coordinate_transformation_mode", "align_corners"),
                                   ("method", "nearest_neighbor"), ("rounding_method", "floor"), ("size", (3, 7))),
                (1, 1, 3, 7), "float32")),
    outputs=(3,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("CHNW", "WOHI")),)),),
)


def test_packed_layout_indivisible_output_channels_raises() -> None:
    assert recheck("AlterOpLayout", "pass_does_not_raise", PACKED) == 1
    assert_recognised("AlterOpLayout", "pass_does_not_raise", PACKED, "test_convert_layout_packed_indivisible")


def test_resize2d_given_an_unsupported_layout() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", RESIZE) == 1
    assert_recognised("AlterOpLayout", "semantics_preserved", RESIZE, "test_convert_layout_resize2d_layout")
