"""TVM 0.27 bug: ConvertLayout raises on ``split`` into one section.

Relax types ``R.split(x, 1, axis=1)`` as the tensor itself (not a 1-tuple); the module is
well-formed and runs. ConvertLayout's rewrite of split assumes a tuple result and fails with
``InternalError: Check failed: (out_tuple != nullptr) is false: Invalid Call``, for any
desired layout and without a conv2d in the graph; two sections convert fine. Found by
``passcheck AlterOpLayout`` (``pass_does_not_raise``) once the vocabulary had split.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1, 2, 3, 4), dtype="float32", const=False),),
    nodes=(Node(op="split", args=(0,), attrs=(("axis", 1), ("sections", 1)), shape=(1, 2, 3, 4), dtype="float32"),),
    outputs=(1,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NHWC", "OHWI")),)),),
)


def _module(sections: int):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 2, 3, 4), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.split(x, sections, axis=1))
        bb.emit_func_output(out)
    return bb.get()


def test_convert_layout_still_raises_on_one_section() -> None:
    import tvm
    from tvm import relax

    assert relax.analysis.check_well_formed(_module(1))
    with pytest.raises(tvm.error.InternalError, match="Invalid Call"):
        relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_module(1))
    relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_module(2))


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "pass_does_not_raise", EXAMPLE) == 1


def test_convert_layout_split_one_section() -> None:
    assert_recognised("AlterOpLayout", "pass_does_not_raise", EXAMPLE, "test_convert_layout_split_one_section")
