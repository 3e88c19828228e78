"""TVM 0.27 bug: ConvertLayout raises on ``permute_dims`` with negative axes.

``R.permute_dims(x, axes=[-4, -3, -2, -1])`` is valid Relax: type inference, LegalizeOps and
the VM all accept negative axes (the module is well-formed and runs). ConvertLayout's layout
inference for permute_dims turns each axis into a layout letter as ``'A' + axis`` without
normalising negatives, producing the layout "=>?@" and failing with
``InternalError: Invalid layout =>?@`` — for any desired layout, even when the graph has no
conv2d at all. Found by ``passcheck AlterOpLayout`` (property ``pass_does_not_raise``),
shrunk to the single-op graph below.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1, 1, 1, 1), dtype="float32", const=False),),
    nodes=(Node(op="permute_dims", args=(0,), attrs=(("axes", (-4, -3, -2, -1)),), shape=(1, 1, 1, 1),
                dtype="float32"),),
    outputs=(1,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NCHW", "OIHW")),)),),
)


def _module(axes: list[int]):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 2, 3, 4), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.permute_dims(x, axes))
        bb.emit_func_output(out)
    return bb.get()


def test_negative_axes_are_valid_relax() -> None:
    import numpy as np
    import tvm
    from tvm import relax

    mod = _module([-4, -1, -2, -3])
    assert relax.analysis.check_well_formed(mod)
    x = np.arange(24, dtype="float32").reshape(1, 2, 3, 4)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](x).numpy(), x.transpose(0, 3, 2, 1))


@pytest.mark.parametrize("axes", [[-4, -3, -2, -1], [0, -1, 2, 1]])
def test_convert_layout_still_raises(axes: list[int]) -> None:
    import tvm
    from tvm import relax

    with pytest.raises(tvm.error.InternalError, match="Invalid layout"):
        relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_module(axes))
    # the same permutation with non-negative axes converts fine
    relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_module([a % 4 for a in axes]))


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "pass_does_not_raise", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    from passcheck.relax.sequence.apply import PassSequence, Step

    assert_recognised("AlterOpLayout", "pass_does_not_raise", EXAMPLE, "test_convert_layout_negative_axes")
    in_a_sequence = PassSequence(EXAMPLE, (Step("ConvertLayout", (("relax.nn.conv2d", ("NHWC", "OHWI")),)),))
    assert_recognised("sequence", "pass_does_not_raise", in_a_sequence, "test_convert_layout_negative_axes")
