"""TVM 0.27 bug: AdjustMatmulOrder builds an invalid matmul from ``(A @ B) @ v`` when ``B`` is
batched and ``v`` a vector.

``A (3, 2) @ B (3, 2, 1)`` broadcasts ``A`` over ``B``'s batch: ``(3, 3, 1)``; ``@ v (1,)``
contracts the last axis and drops it: ``(3, 3)``. AdjustMatmulOrder reassociates to
``A @ (B @ v)`` -- but ``B @ v`` is ``(3, 2)``, a matrix, not a batch of vectors, and the new
``A (3, 2) @ (3, 2)`` does not type-check: ``ValueError: Matmul requires the reduction length
of the operands to be equal``. Reassociation is only valid when no operand is a 1-D vector
that NumPy semantics promote and squeeze (or when the batch dims line up). Found by the
survey of relax.transform passes for ``passcheck sequence`` (``pass_does_not_raise``).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(3, 2), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(3, 2, 1), dtype="float32", const=False),
            TensorDecl(name="p2", shape=(1,), dtype="float32", const=False)),
    nodes=(Node(op="matmul", args=(0, 1), attrs=(), shape=(3, 3, 1), dtype="float32"),
           Node(op="matmul", args=(3, 2), attrs=(), shape=(3, 3), dtype="float32")),
    outputs=(4,),
)
EXAMPLE = PassSequence(graph=GRAPH, steps=(Step(name="AdjustMatmulOrder"),))


def test_adjust_matmul_order_still_raises() -> None:
    import numpy as np
    import tvm
    from tvm import relax

    from passcheck.relax.build import build_module

    mod = build_module(GRAPH)
    assert relax.analysis.check_well_formed(mod)
    a, b, v = np.ones((3, 2), "float32"), np.ones((3, 2, 1), "float32"), np.ones(1, "float32")
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](a, b, v).numpy(), (a @ b) @ v)
    with pytest.raises(ValueError, match="Matmul requires the reduction length"):
        relax.transform.AdjustMatmulOrder()(mod)


def test_passcheck_reports_it() -> None:
    assert recheck("AdjustMatmulOrder", "pass_does_not_raise", GRAPH) == 1


def test_adjust_matmul_order_vector_rhs() -> None:
    assert_recognised("AdjustMatmulOrder", "pass_does_not_raise", GRAPH, "test_adjust_matmul_order_vector_rhs")
    assert_recognised("sequence", "pass_does_not_raise", EXAMPLE, "test_adjust_matmul_order_vector_rhs")
