"""TVM 0.27 bug: LegalizeOps fails on ``strided_slice`` with a negative axis of a tensor with a
symbolic shape.

``R.strided_slice(x, axes=[-1], ...)`` on ``x: R.Tensor((n, 5))`` is valid Relax (type inference
normalises the axis and gives ``(n, 3)``; the same slice of a static tensor legalizes and runs).
With a symbolic dim the legalization takes another path (TOPI's dynamic strided_slice) that
uses the axis unnormalised and fails ``Check failed: axis < src_tensor_dim (-1 vs. 2)``.
passcheck used to spell such axes non-negative; they are drawn now and found by ``passcheck
FuseOps`` (kind ``prerequisite-raised``: LegalizeOps runs first) and by every subject's
``semantics_preserved`` (tvm.compile legalizes).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", ("n", 5), "float32", False),),
    nodes=(Node("strided_slice", (0,), (("axes", (-1,)), ("begin", (1,)), ("end", (4,)), ("strides", (1,))),
                ("n", 3), "float32"),),
    outputs=(1,),
    sym_sizes=(("n", 2),),
)


def _module(axis: int, symbolic: bool):  # noqa: ANN202
    from tvm import relax, tirx
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((tirx.Var("n", "int64") if symbolic else 2, 5), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.strided_slice(x, axes=[axis], begin=[1], end=[4]))
        bb.emit_func_output(out)
    return bb.get()


def test_valid_relax_and_fine_when_static() -> None:
    from tvm import relax

    mod = _module(-1, symbolic=True)
    assert relax.analysis.check_well_formed(mod)
    assert str(mod["main"].ret_ty.shape[0]) == "n" and int(mod["main"].ret_ty.shape[1]) == 3
    relax.transform.LegalizeOps()(_module(-1, symbolic=False))
    relax.transform.LegalizeOps()(_module(1, symbolic=True))


def test_legalize_ops_still_raises() -> None:
    import tvm
    from tvm import relax

    with pytest.raises(tvm.error.InternalError, match="axis < src_tensor_dim"):
        relax.transform.LegalizeOps()(_module(-1, symbolic=True))


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "pass_does_not_raise", EXAMPLE) == 1
    assert recheck("SimplifyInference", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    name = "test_strided_slice_negative_axis_symbolic"
    assert_recognised("FuseOps", "pass_does_not_raise", EXAMPLE, name)
    assert_recognised("SimplifyInference", "semantics_preserved", EXAMPLE, name)
