"""TVM 0.27 bug: CombineParallelMatmul raises on a matmul whose left operand is a constant.

``R.matmul(c, x)`` with ``c`` a constant tensor is valid Relax and what a frontend emits for a
weight on the left. CombineParallelMatmul's rewriter (python/tvm/relax/transform/
combine_parallel_matmul.py) treats every matched LHS as a ``relax.Var`` and fails with
``TypeError: Cannot treat type `ir.GenericConst` as type `ir.Var``` -- even with one matmul,
where there is nothing to combine. Found by its campaign (seed 36, 6 of 500 examples).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="c1", shape=(1, 2, 3), dtype="float32", const=True, lo=-2.0, hi=2.0),
            TensorDecl(name="p3", shape=(3, 1), dtype="float32", const=False)),
    nodes=(Node(op="matmul", args=(0, 1), attrs=(), shape=(1, 2, 1), dtype="float32"),),
    outputs=(2,),
)


def _module(const_lhs: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3, 1), "float32"))
    w = relax.Var("w", relax.TensorType((1, 2, 3), "float32"))
    c = relax.const(np.ones((1, 2, 3), "float32"))
    with bb.function("main", [x] if const_lhs else [x, w]):
        with bb.dataflow():
            out = bb.emit_output(R.matmul(c if const_lhs else w, x))
        bb.emit_func_output(out)
    return bb.get()


def test_combine_parallel_matmul_still_raises_on_a_constant_lhs() -> None:
    from tvm import relax

    assert relax.analysis.check_well_formed(_module(True))
    with pytest.raises(TypeError, match="Cannot treat type `ir.GenericConst` as type `ir.Var`"):
        relax.transform.CombineParallelMatmul()(_module(True))
    relax.transform.CombineParallelMatmul()(_module(False))  # a parameter on the left: fine


def test_passcheck_reports_it() -> None:
    assert recheck("CombineParallelMatmul", "pass_does_not_raise", GRAPH) == 1


def test_combine_parallel_matmul_constant_lhs() -> None:
    assert_recognised("CombineParallelMatmul", "pass_does_not_raise", GRAPH, "test_combine_parallel_matmul_constant_lhs")
