"""TVM 0.27 bug: ReorderTakeAfterMatmul reads a matmul's operand past its match_cast.

``lv = R.match_cast(x, R.Tensor((4, 1)))`` then ``R.matmul(lv, R.take(w, i, axis=1))``: the pass
rewrites the matmul as ``R.take(R.matmul(x, w), i, axis=1)`` -- with ``x``, the value before the cast,
typed ``R.Tensor(ndim=2)``. The cast's shape check no longer guards the matmul, and the new take is
typed by rank only while the var it is bound to keeps ``R.Tensor((4, 2))``: the module is not
well-formed (passcheck's check of it raises "Expression of type R.Tensor(dtype="float16", ndim=2)
cannot be assigned to a variable of type R.Tensor((4, 2), ...)"). Found by its campaign (seed 1207:
1 of 2,000; a dynamic_strided_slice, matched to its (4, 1), read by the matmul).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (8, 3), "float16", False, lo=-0.01, hi=0.01, style="wide", seed=238),
            TensorDecl("c1", (2,), "int64", True, lo=-9.0, hi=9.0, style="narrow", seed=49612),
            TensorDecl("c2", (2,), "int64", True, lo=-9.0, hi=9.0, style="uniform", seed=219),
            TensorDecl("c3", (2,), "int64", True, lo=-2.0, hi=-1.0, style="wide", seed=7664),
            TensorDecl("c4", (1, 8), "float16", True), TensorDecl("p5", (2,), "int64", False, lo=0.0, hi=7.0)),
    nodes=(Node("dynamic_strided_slice", (0, 1, 2, 3), (), (4, 1), "float16"),
           Node("take", (4, 5), (("axis", 1), ("mode", "fast")), (1, 2), "float16"),
           Node("matmul", (6, 7), (), (4, 2), "float16")),
    outputs=(8,), input_seed=120)


def test_the_rewrite_reads_past_the_match_cast() -> None:
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(dtype="float32", ndim=2))
    w = relax.Var("w", relax.TensorType((1, 3), "float32"))
    i = relax.Var("i", relax.TensorType((2,), "int64"))
    with bb.function("main", [x, w, i]):
        with bb.dataflow():
            cast = bb.match_cast(x, relax.TensorType((4, 1), "float32"))
            out = bb.emit_output(R.matmul(cast, bb.emit(R.take(w, i, axis=1))))
        bb.emit_func_output(out)
    mod = bb.get()
    assert relax.analysis.check_well_formed(mod)
    after = relax.transform.ReorderTakeAfterMatmul()(mod)
    assert "R.matmul(x, w" in after.script()
    assert not relax.analysis.check_well_formed(after)


def test_reorder_take_after_matmul_match_cast() -> None:
    assert_recognised("ReorderTakeAfterMatmul", "well_formed", EXAMPLE, "test_reorder_take_after_matmul_match_cast")
