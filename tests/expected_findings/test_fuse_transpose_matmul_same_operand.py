"""TVM 0.27 bug: FuseTransposeMatmul raises on ``matmul(x, permute_dims(x))``.

``x @ x.T`` (a Gram matrix: the same value on both sides) is valid Relax. FuseTransposeMatmul's
pattern matches the matmul and its transposed operand, and its rewrite then indexes the
matched inputs as if they were two distinct values: ``IndexError: Index out of range. size: 1,
got index 1``. With a different right-hand value (``x @ w.T``) it works. Found while surveying
every relax.transform pass for ``passcheck sequence``; checked by ``passcheck
FuseTransposeMatmul`` (``pass_does_not_raise``).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2, 3), dtype="float32", const=False),),
    nodes=(Node(op="permute_dims", args=(0,), attrs=(("axes", (1, 0)),), shape=(3, 2), dtype="float32"),
           Node(op="matmul", args=(0, 1), attrs=(), shape=(2, 2), dtype="float32")),
    outputs=(2,),
)
EXAMPLE = PassSequence(graph=GRAPH, steps=(Step(name="FuseTransposeMatmul"),))


def _module(same: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    w = relax.Var("w", relax.TensorType((4, 3), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            out = bb.emit_output(R.matmul(x, bb.emit(R.permute_dims(x if same else w))))
        bb.emit_func_output(out)
    return bb.get()


def test_fuse_transpose_matmul_still_raises() -> None:
    from tvm import relax

    assert relax.analysis.check_well_formed(_module(same=True))
    with pytest.raises(IndexError, match="Index out of range"):
        relax.transform.FuseTransposeMatmul()(_module(same=True))
    relax.transform.FuseTransposeMatmul()(_module(same=False))


def test_passcheck_reports_it() -> None:
    assert recheck("FuseTransposeMatmul", "pass_does_not_raise", GRAPH) == 1
    assert recheck("sequence", "pass_does_not_raise", EXAMPLE) == 1


def test_fuse_transpose_matmul_same_operand() -> None:
    assert_recognised("FuseTransposeMatmul", "pass_does_not_raise", GRAPH, "test_fuse_transpose_matmul_same_operand")
    assert_recognised("sequence", "pass_does_not_raise", EXAMPLE, "test_fuse_transpose_matmul_same_operand")
