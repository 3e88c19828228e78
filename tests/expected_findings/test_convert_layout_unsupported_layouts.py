"""TVM 0.27 bugs: ConvertLayout converts to layouts the rest of TVM cannot take.

1. conv2d to a packed data layout (NCHW2c) whose factor does not divide the *output* channels
   (1 here): instead of leaving the call alone, ConvertLayout raises from its own rewriter,
   ``DataflowBlock Pass should not rewrite or delete any global-scope Var``.
   The same mechanism when a grouped conv2d reads the converted one's padded channels: the pass
   raises from conv2d's type check, ``The channel size of the data should equal to the product
   of input channel size of the weight and the number of groups`` (4 padded channels, 3 groups).
   And when a concat joins the padded channels and unconverted ones: ``Concat expects the input
   tensors to have the same shape on every dimension`` (seed 1207: 7 of 2,000).
2. A ``resize2d`` after a conv2d converted to CHNW is given ``layout="CHNW"`` too, which TOPI's
   resize refuses when the module is built: ``CHNW layout is not supported`` (ConvertLayout
   should keep resize2d in a layout it supports and transform around it).
3. A ``conv2d_transpose`` after a converted conv2d is given the conv's data layout (NHWC, HWNC,
   CHNW, ...), though LegalizeOps lowers conv2d_transpose in NCHW only: the call is left as it is
   and building fails in VM codegen (``CodeGenVM cannot emit this Relax operator directly``). No
   desired layout was asked for conv2d_transpose. A ``conv1d_transpose`` after a conv1d converted to
   NWC likewise (LegalizeOps lowers it in NCW only; the AlterOpLayout soak, seed 0: 1 of 5,000).

Found by the 2,000-example AlterOpLayout campaign (seed 2026); shrunk to these graphs.
"""

from __future__ import annotations

from dataclasses import replace

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


GROUPED = GraphSpec(
    inputs=(TensorDecl("p0", (1, 4, 6, 6), "float32", False), TensorDecl("p1", (3, 4, 1, 1), "float32", False),
            TensorDecl("p2", (3, 1, 1, 1), "float32", False)),
    nodes=(Node("conv2d", (0, 1), _CONV, (1, 3, 6, 6), "float32"),
           Node("conv2d", (3, 2), (("dilation", (1, 1)), ("groups", 3), ("padding", (0, 0, 0, 0)), ("strides", (1, 1))),
                (1, 3, 6, 6), "float32")),
    outputs=(4,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NHWC4c", "OIHW")),)),),
)

TRANSPOSE = GraphSpec(
    inputs=(TensorDecl("p0", (1, 2, 3, 3), "float32", False), TensorDecl("p1", (2, 2, 1, 1), "float32", False),
            TensorDecl("p2", (2, 2, 1, 1), "float32", False)),
    nodes=(Node("conv2d", (0, 1), _CONV, (1, 2, 3, 3), "float32"),
           Node("conv2d_transpose", (3, 2), (("dilation", (1, 1)), ("groups", 1), ("output_padding", (0, 0)),
                                             ("padding", (0, 0, 0, 0)), ("strides", (1, 1))), (1, 2, 3, 3), "float32")),
    outputs=(4,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NHWC", "OHWI")),)),),
)


def test_grouped_conv_reading_padded_channels_raises() -> None:
    assert recheck("AlterOpLayout", "pass_does_not_raise", GROUPED) == 1
    assert_recognised("AlterOpLayout", "pass_does_not_raise", GROUPED, "test_convert_layout_packed_indivisible")


def test_conv2d_transpose_given_the_converted_layout() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", TRANSPOSE) == 1
    assert_recognised("AlterOpLayout", "semantics_preserved", TRANSPOSE, "test_convert_layout_conv2d_transpose_layout")


def test_conv2d_transpose_alone_is_left_in_nchw() -> None:
    """The control: without a converted conv2d before it, conv2d_transpose keeps NCHW and builds."""
    alone = GraphSpec(inputs=TRANSPOSE.inputs[:2], nodes=(replace(TRANSPOSE.nodes[1], args=(0, 1)),), outputs=(2,),
                      extra=TRANSPOSE.extra)
    assert recheck("AlterOpLayout", "semantics_preserved", alone) == 0


TRANSPOSE_1D = GraphSpec(
    inputs=(TensorDecl("p0", (1, 2, 3), "float32", False), TensorDecl("p1", (2, 2, 1), "float32", False),
            TensorDecl("p2", (2, 2, 1), "float32", False)),
    nodes=(Node("conv1d", (0, 1), (("data_layout", "NCW"), ("dilation", (1,)), ("groups", 1), ("kernel_layout", "OIW"),
                                   ("padding", (0, 0)), ("strides", (1,))), (1, 2, 3), "float32"),
           Node("conv1d_transpose", (3, 2), (("dilation", (1,)), ("groups", 1), ("output_padding", (0,)),
                                             ("padding", (0, 0)), ("strides", (1,))), (1, 2, 3), "float32")),
    outputs=(4,),
    extra=(("desired_layouts", (("relax.nn.conv1d", ("NWC", "OIW")),)),),
)


def test_conv1d_transpose_given_the_converted_layout() -> None:
    import pytest
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 2, 3), "float32"))
    w = relax.Var("w", relax.TensorType((2, 2, 1), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(R.nn.conv1d_transpose(bb.emit(R.nn.conv1d(x, w)), w)))
        bb.emit_func_output(out)
    after = relax.transform.ConvertLayout({"relax.nn.conv1d": ["NWC", "OIW"]})(bb.get())
    assert 'conv1d_transpose(lv' in after.script() and 'data_layout="NWC"' in after.script()
    assert "R.nn.conv1d_transpose(" in relax.transform.LegalizeOps()(after).script()  # left unlowered
    with pytest.raises(tvm.error.InternalError, match=r'R\.nn\.conv1d_transpose\([^\n]*data_layout="NWC"'):
        tvm.compile(after, target="llvm")
    assert_recognised("AlterOpLayout", "semantics_preserved", TRANSPOSE_1D, "test_convert_layout_conv2d_transpose_layout")


CONCAT = GraphSpec(
    inputs=(TensorDecl("p0", (2, 8, 8, 5), "float32", False), TensorDecl("p1", (4, 8, 1, 1), "float32", False),
            TensorDecl("p2", (2, 4, 2, 1), "float32", False),
            TensorDecl("p3", (2, 2, 5, 4), "float32", False, lo=1.0, hi=10.0)),
    nodes=(Node("conv2d", (0, 1), (("dilation", (1, 1)), ("groups", 1), ("padding", (1, 1, 1, 1)), ("strides", (1, 1))),
                (2, 4, 10, 7), "float32"),
           Node("conv2d", (4, 2), (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)), ("strides", (2, 2))),
                (2, 2, 5, 4), "float32"),
           Node("acosh", (3,), (), (2, 2, 5, 4), "float32"),
           Node("concat", (6, 5), (("axis", 2),), (2, 2, 10, 4), "float32")),
    outputs=(7,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NHWC4c", "HOWI")),)),),
)


def test_a_concat_of_padded_and_unconverted_channels_raises() -> None:
    message = assert_recognised("AlterOpLayout", "pass_does_not_raise", CONCAT, "test_convert_layout_packed_indivisible")
    assert "Concat expects the input tensors to have the same shape" in message
