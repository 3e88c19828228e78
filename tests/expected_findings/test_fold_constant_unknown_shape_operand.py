"""TVM 0.27 bug: FoldConstant raises on an op whose operand has an unknown shape, in a dataflow block.

``R.cos(a)`` with ``a: R.Tensor(ndim=2, dtype="float32")`` (what a closure returning a tensor of a
symbolic shape is typed as at its call: its result by rank only) is valid Relax, and FoldConstant
has nothing to fold in it. Inside a dataflow block FoldConstant still legalizes the call to see
whether it folds, and the legalization's ``emit_te`` asserts: ``AssertionError: emit_te now only
supports Tensor that has ShapeExpr shape``. Outside a dataflow block the same call is left alone.
Found by ``passcheck AttachAttrLayoutFreeBuffers`` (seed 4242, 1 of 2,000), whose prerequisites
(the static-shape tuning pipeline) run FoldConstant on a program with a closure.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

PROGRAM = ProgramSpec(
    graph=GraphSpec(
        inputs=(TensorDecl("p0", ("n", 1), "float32", False),),
        nodes=(Node("abs", (0,), (), ("n", 1), "float32"), Node("cos", (1,), (), ("n", 1), "float32")),
        outputs=(2,), sym_sizes=(("n", 1),),
    ),
    regions=(Region(0, 1, "closure", "helper", options=(("capture", True),)),),
)


def _module(dataflow: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    a = relax.Var("a", relax.TensorType(ndim=2, dtype="float32"))
    with bb.function("main", [a]):
        if dataflow:
            with bb.dataflow():
                out = bb.emit_output(R.cos(a))
        else:
            out = bb.emit(R.cos(a))
        bb.emit_func_output(out)
    return bb.get()


def test_fold_constant_still_raises_in_a_dataflow_block() -> None:
    from tvm import relax

    for dataflow in (False, True):
        assert relax.analysis.check_well_formed(_module(dataflow))
    relax.transform.FoldConstant()(_module(False))  # (left alone outside a dataflow block)
    with pytest.raises(AssertionError, match="emit_te now only supports Tensor that has ShapeExpr shape"):
        relax.transform.FoldConstant()(_module(True))


def test_passcheck_reports_it() -> None:
    assert recheck("AttachAttrLayoutFreeBuffers", "pass_does_not_raise", PROGRAM) == 1


def test_fold_constant_unknown_shape_operand() -> None:
    assert_recognised("AttachAttrLayoutFreeBuffers", "pass_does_not_raise", PROGRAM,
                      "test_fold_constant_unknown_shape_operand")
