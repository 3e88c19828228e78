"""TVM 0.27 bug: OptimizeLayoutTransform removes two layout_transforms that do not undo each other.

The pass matches ``layout_transform(layout_transform(x, A), B)`` and replaces it by ``x`` whenever
the result's shape equals ``x``'s: it never compares the index maps. A transpose of a square
tensor after an identity map (or after any map keeping the shape) is removed, and the program
returns ``x`` untransposed: wrong numbers. (The pass is meant for the pairs AlterOpImpl inserts,
which do undo each other; applied to a module that holds other pairs it changes what it computes.)
Found by OptimizeLayoutTransform's campaign (seed 20670: 16 of 500 examples).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _layout(arg: int, perm: tuple[int, ...]) -> Node:
    return Node(op="layout_transform", args=(arg,), attrs=(("factor", 0), ("pad_value", None), ("perm", perm)),
                shape=(2, 2), dtype="float32")


GRAPH = GraphSpec(inputs=(TensorDecl(name="p0", shape=(2, 2), dtype="float32", const=False),),
                  nodes=(_layout(0, (0, 1)), _layout(1, (1, 0))), outputs=(2,))


def test_optimize_layout_transform_drops_a_transpose() -> None:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 2), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            same = bb.emit(R.layout_transform(x, index_map=lambda a, b: (a, b)))
            out = bb.emit_output(R.layout_transform(same, index_map=lambda a, b: (b, a)))
        bb.emit_func_output(out)
    mod = bb.get()
    data = np.arange(4, dtype="float32").reshape(2, 2)
    np.testing.assert_array_equal(run_relax(mod, [data])[0], data.T)
    after = relax.transform.OptimizeLayoutTransform()(mod)
    np.testing.assert_array_equal(run_relax(after, [data])[0], data)  # the transpose is gone


def test_passcheck_reports_it() -> None:
    assert recheck("OptimizeLayoutTransform", "semantics_preserved", GRAPH) == 1


def test_optimize_layout_transform_not_inverse() -> None:
    assert_recognised("OptimizeLayoutTransform", "semantics_preserved", GRAPH, "test_optimize_layout_transform_not_inverse")
