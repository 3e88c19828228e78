"""TVM 0.27 bug: ConvertLayout raises on every ``stack``.

``R.stack([x, x], axis=a)`` is valid Relax for any rank and any axis in [-r-1, r] (well-formed,
it legalizes and runs). ConvertLayout's layout inference for stack fails on it for any desired
layout, without a conv2d in the graph: ``Index -1 out of bounds`` (an IndexError) for a non-negative axis and
``basic_string::replace: __pos (which is 18446744073709551615) ...`` (a negative axis used as a
string position) for a negative one. Found by ``passcheck AlterOpLayout``
(``pass_does_not_raise``) once the vocabulary had stack.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2, 3), dtype="float32", const=False),),
    nodes=(Node(op="stack", args=(0, 0), attrs=(("axis", -1),), shape=(2, 3, 2), dtype="float32"),),
    outputs=(1,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NHWC", "OHWI")),)),),
)


def _module(axis: int):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.stack([x, x], axis=axis))
        bb.emit_func_output(out)
    return bb.get()


@pytest.mark.parametrize(("axis", "message"), [(0, "out of bounds"), (2, "out of bounds"), (-1, "basic_string")])
def test_convert_layout_still_raises_on_stack(axis: int, message: str) -> None:
    import tvm
    from tvm import relax

    assert relax.analysis.check_well_formed(_module(axis))
    relax.transform.LegalizeOps()(_module(axis))  # the op itself lowers
    with pytest.raises((tvm.error.InternalError, IndexError), match=message):
        relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_module(axis))


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "pass_does_not_raise", EXAMPLE) == 1


def test_convert_layout_stack() -> None:
    assert_recognised("AlterOpLayout", "pass_does_not_raise", EXAMPLE, "test_convert_layout_stack")
