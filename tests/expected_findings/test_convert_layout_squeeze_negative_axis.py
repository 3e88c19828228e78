"""TVM 0.27 bug: ConvertLayout dies with ``std::bad_alloc`` on ``squeeze`` with a negative axis.

``R.squeeze(x, axis=[-3])`` on a (1, 1, 2, 2) tensor is valid Relax (well-formed; LegalizeOps
and the VM accept it). ConvertLayout, for any desired layout and without any conv2d in the
graph, fails with ``InternalError: std::bad_alloc``; the same squeeze spelled ``axis=[1]``
converts fine. (Like ``test_convert_layout_negative_axes``: the layout inference does not
normalise negative axes.) Found by ``passcheck AlterOpLayout`` (``pass_does_not_raise``) once
the vocabulary had squeeze.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1, 1, 2, 2), dtype="float32", const=False),),
    nodes=(Node(op="squeeze", args=(0,), attrs=(("axis", (-3,)),), shape=(1, 2, 2), dtype="float32"),),
    outputs=(1,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NCHW", "OIHW")),)),),
)


def _module(axis: int):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 1, 2, 2), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.squeeze(x, [axis]))
        bb.emit_func_output(out)
    return bb.get()


def test_convert_layout_squeeze_still_dies() -> None:
    import tvm
    from tvm import relax

    assert relax.analysis.check_well_formed(_module(-3))
    with pytest.raises(tvm.error.InternalError, match="bad_alloc"):
        relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_module(-3))
    relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_module(1))


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "pass_does_not_raise", EXAMPLE) == 1


def test_convert_layout_squeeze_negative_axis() -> None:
    assert_recognised("AlterOpLayout", "pass_does_not_raise", EXAMPLE, "test_convert_layout_squeeze_negative_axis")
