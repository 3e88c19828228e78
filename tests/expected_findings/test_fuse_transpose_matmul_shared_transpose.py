"""TVM 0.27 bug: FuseTransposeMatmul raises when the transposed value is also used elsewhere.

``t = permute_dims(w); y = matmul(x, t)`` fuses into ``NT_matmul(x, w)``. When ``t`` is read
elsewhere too (returned, here), FuseOpsByPattern's composite function returns both ``t`` and ``y``
(a tuple) and the pass's rewrite reads ``function.ret_ty.dtype`` as if it were one tensor:
``AttributeError: 'TupleType' object has no attribute 'dtype'``. Found by ``passcheck
FuseTransposeMatmul`` (the graphs' extra outputs return such a value).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (2, 3), "float32", False), TensorDecl("p1", (4, 3), "float32", False)),
    nodes=(Node("permute_dims", (1,), (("axes", (1, 0)),), (3, 4), "float32"),
           Node("matmul", (0, 2), (), (2, 4), "float32")),
    outputs=(2, 3))


def test_fuse_transpose_matmul_raises_on_a_shared_transpose() -> None:
    from tvm import relax

    from passcheck.relax.build import build_module

    with pytest.raises(AttributeError, match="'TupleType' object has no attribute 'dtype'"):
        relax.transform.FuseTransposeMatmul()(build_module(GRAPH))
    relax.transform.FuseTransposeMatmul()(build_module(GraphSpec(GRAPH.inputs, GRAPH.nodes, (3,))))


def test_passcheck_recognises_it() -> None:
    assert_recognised("FuseTransposeMatmul", "pass_does_not_raise", GRAPH, "test_fuse_transpose_matmul_shared_transpose")
