"""TVM 0.27 bug: ConvertLayout to a conv2d data or kernel layout with W before H gets H and W wrong.

ConvertLayout accepts any order of the four axes as the desired conv2d data layout (measured:
all 24 orders, see passcheck/relax/passes.py). For a layout whose W comes before H (``NCWH``,
``CNWH``, ...), a conv2d with different padding (or sizes) along H and W comes out with H and W
exchanged at run time: ``x`` (1, 1, 1, 1) padded on the right by 1 gives (1, 1, 1, 2) in NCHW, as
Relax types ``main``, but the converted module returns (1, 1, 2, 1). The padding (top, left,
bottom, right) is kept as it is while the conv now runs on transposed data whose spatial order
Relax and TOPI read differently. Found by passcheck AlterOpLayout once every accepted desired
layout was drawn. The same for a kernel layout with W before H (``OIWH``, ...): a 1x3 kernel on a
3x5 image gives (1, 1, 1, 5) instead of (1, 1, 3, 3); measured over all 24 orders, exactly the 12
data and the 12 kernel layouts with W before H are wrong.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 1, 1), "float32", False), TensorDecl("p1", (1, 1, 1, 1), "float32", False)),
    nodes=(Node("conv2d", (0, 1), (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 1)),
                                   ("strides", (1, 1))), (1, 1, 1, 2), "float32"),),
    outputs=(2,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NCWH", "OIHW")),)),),
)


def _run(layout: str, kernel: str = "OIHW", ks: tuple[int, int] = (1, 1), pad: tuple[int, ...] = (0, 0, 0, 1),
         xs: tuple[int, ...] = (1, 1, 1, 1)) -> tuple[int, ...]:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(xs, "float32"))
    w = relax.Var("w", relax.TensorType((1, 1, *ks), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.conv2d(x, w, padding=pad))
        bb.emit_func_output(out)
    mod = relax.transform.ConvertLayout({"relax.nn.conv2d": [layout, kernel]})(bb.get())
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    args = (tvm.runtime.tensor(np.ones(xs, "float32")), tvm.runtime.tensor(np.ones((1, 1, *ks), "float32")))
    return tuple(vm["main"](*args).numpy().shape)


def test_h_before_w_layouts_keep_the_shape() -> None:
    assert _run("NHWC") == (1, 1, 1, 2)
    assert _run("NCHW") == (1, 1, 1, 2)


def test_w_before_h_layouts_still_swap_h_and_w() -> None:
    assert _run("NCWH") == (1, 1, 2, 1)  # typed (1, 1, 1, 2)
    assert _run("CNWH") == (1, 1, 2, 1)
    kernel = {"ks": (1, 3), "pad": (0, 0, 0, 0), "xs": (1, 1, 3, 5)}
    assert _run("NCHW", "OIHW", **kernel) == (1, 1, 3, 3)  # type: ignore[arg-type]
    assert _run("NCHW", "OIWH", **kernel) == (1, 1, 1, 5)  # type: ignore[arg-type]


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("AlterOpLayout", "semantics_preserved", EXAMPLE, "test_convert_layout_conv2d_w_before_h")


def _concat_after(layout: str) -> GraphSpec:
    """The swapped conv output meets a consumer's run-time shape check: concat with a (1, 1, 1, 2)
    tensor raises (dimension 2 is 2 on one side, 1 on the other) instead of giving wrong numbers."""
    p2 = TensorDecl("p2", (1, 1, 1, 2), "float32", False, 0.0, 1.0)
    return replace(EXAMPLE, inputs=(*EXAMPLE.inputs, p2),
                   nodes=(*EXAMPLE.nodes, Node("concat", (3, 2), (("axis", 0),), (2, 1, 1, 2), "float32")),
                   outputs=(4,), extra=(("desired_layouts", (("relax.nn.conv2d", (layout, "OIHW")),)),))


def test_a_consumer_refusing_the_swapped_shape_is_the_same_bug() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", _concat_after("NCHW")) == 0
    assert recheck("AlterOpLayout", "semantics_preserved", _concat_after("CNHW")) == 0
    assert recheck("AlterOpLayout", "semantics_preserved", _concat_after("CNWH")) == 1
    assert_recognised("AlterOpLayout", "semantics_preserved", _concat_after("CNWH"),
                      "test_convert_layout_conv2d_w_before_h")


def _add_after(kernel: str) -> GraphSpec:
    """A kernel layout with W before H, then a binary op: its broadcast check refuses the swapped
    (1, 1, 2, 3) conv output against the (1, 1, 3, 1) typed one at run time."""
    p2 = TensorDecl("p2", (1, 1, 3, 1), "float32", False)
    x, w = TensorDecl("p0", (1, 1, 3, 1), "float32", False), TensorDecl("p1", (1, 1, 1, 2), "float32", False)
    conv = replace(EXAMPLE.nodes[0], shape=(1, 1, 3, 1))
    return replace(EXAMPLE, inputs=(x, w, p2), nodes=(conv, Node("add", (3, 2), (), (1, 1, 3, 1), "float32")),
                   outputs=(4,), extra=(("desired_layouts", (("relax.nn.conv2d", ("NCHW", kernel)),)),))


def test_a_binary_op_refusing_the_swapped_shape_is_the_same_bug() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", _add_after("IOHW")) == 0
    assert recheck("AlterOpLayout", "semantics_preserved", _add_after("IOWH")) == 1
    assert_recognised("AlterOpLayout", "semantics_preserved", _add_after("IOWH"),
                      "test_convert_layout_conv2d_w_before_h")


def _consumer_after(kernel: str, consumer: str) -> GraphSpec:
    """Three more consumers whose shape checks refuse the swapped conv output at run time (the
    2,000-example AlterOpLayout campaign, seed 2026, met each after a W-before-H kernel layout)."""
    base = _add_after(kernel)
    x, w, _ = base.inputs
    conv = base.nodes[0]
    extra: dict[str, tuple[tuple[TensorDecl, ...], Node]] = {
        "layer_norm": ((TensorDecl("p2", (1, 3, 1), "float32", False), TensorDecl("p3", (1, 3, 1), "float32", False)),
                       Node("layer_norm", (), (("axes", (1, 2, 3)), ("epsilon", 1e-5)), (1, 1, 3, 1), "float32")),
        "nll_loss": ((TensorDecl("p2", (1, 3, 1), "int64", False, 0.0, 0.999999),
                      TensorDecl("p3", (1,), "float32", False, 0.5, 1.5)),
                     Node("nll_loss", (), (("ignore_index", -100), ("reduction", "mean")), (), "float32")),
        "collapse_sum_like": ((TensorDecl("p2", (1, 1, 3, 1), "float32", False),),
                              Node("collapse_sum_like", (), (), (1, 1, 3, 1), "float32")),
        # (seed 101 of a 500-example AlterOpLayout run: collapse_sum_to's rule refuses the swapped shape)
        "collapse_sum_to": ((), Node("collapse_sum_to", (), (("shape", (3, 1)),), (3, 1), "float32")),
        # (seed 6 of a 500-example AlterOpLayout run: a batch_norm over H after a W-before-H data layout)
        "batch_norm": (tuple(TensorDecl(f"p{i}", (3,), "float32", False, 0.5, 2.0) for i in range(2, 6)),
                       Node("batch_norm", (), (("axis", -2), ("epsilon", 1e-5)), (1, 1, 3, 1), "float32")),
    }
    more, node = extra[consumer]
    n_in = 2 + len(more)
    # value ids: the inputs first, then the conv (n_in); the consumer reads the conv and the extras
    node = replace(node, args=(n_in, *range(2, n_in)))
    return replace(base, inputs=(x, w, *more), nodes=(conv, node), outputs=(n_in + 1,))


@pytest.mark.parametrize("consumer", ["layer_norm", "nll_loss", "collapse_sum_like", "collapse_sum_to", "batch_norm"])
def test_more_consumers_refusing_the_swapped_shape_are_the_same_bug(consumer: str) -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", _consumer_after("IOHW", consumer)) == 0
    assert recheck("AlterOpLayout", "semantics_preserved", _consumer_after("IOWH", consumer)) == 1
    assert_recognised("AlterOpLayout", "semantics_preserved", _consumer_after("IOWH", consumer),
                      "test_convert_layout_conv2d_w_before_h")


def _reshape_after(data_layout: str) -> GraphSpec:
    """Two convs converted to NCWH, then a reshape of the second's output: its padding (0, 2, 0, 1)
    lands on the wrong axes, the output has 30 elements instead of 27 and the reshape refuses it at
    run time (a 500-example AlterOpLayout run at seed 6, 6 examples)."""
    return GraphSpec(
        inputs=(TensorDecl("p0", (2, 8, 7, 4), "float32", False), TensorDecl("p1", (4, 8, 1, 1), "float32", False),
                TensorDecl("p2", (3, 4, 3, 2), "float32", False)),
        nodes=(Node("conv2d", (0, 1), (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)),
                                       ("strides", (1, 1))), (2, 4, 7, 4), "float32"),
               Node("conv2d", (3, 2), (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 2, 0, 1)),
                                       ("strides", (2, 2))), (2, 3, 3, 3), "float32"),
               Node("reshape", (4,), (("shape", (3, 2, 9, 1)),), (3, 2, 9, 1), "float32")),
        outputs=(5,),
        extra=(("desired_layouts", (("relax.nn.conv2d", (data_layout, "OHWI")),)),),
    )


def test_a_reshape_refusing_the_wrong_sized_output_is_the_same_bug() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", _reshape_after("NCHW")) == 0
    assert "Reshape expects the new shape" in assert_recognised(
        "AlterOpLayout", "semantics_preserved", _reshape_after("NCWH"), "test_convert_layout_conv2d_w_before_h")
