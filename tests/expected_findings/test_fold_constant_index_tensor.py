"""TVM 0.27 bug: FoldConstant leaves ``index_tensor`` of constants unfolded.

``R.index_tensor(c0, (c1,))`` reads only constants. FoldConstant folds such calls by legalizing
and evaluating them, and it folds ``take`` or ``concat`` of constants; but index_tensor's
legalization passes the index through a ``TupleGetItem`` of a tuple literal
(``lv = (c1,)[0]``), which FoldConstant does not fold, so the ``call_tir`` never sees all-constant
arguments and the whole computation stays in the module. Found by ``passcheck FoldConstant``
(``no_constant_only_calls``).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="c0", shape=(3, 2), dtype="float32", const=True),
            TensorDecl(name="c1", shape=(2,), dtype="int64", const=True, lo=0.0, hi=2.0, seed=1)),
    nodes=(Node(op="index_tensor", args=(0, 1), attrs=(), shape=(2, 2), dtype="float32"),),
    outputs=(2,),
)


def _calls_left(op: str) -> list[str]:
    from tvm import relax
    from tvm.relax import op as R

    d = relax.const(np.arange(6, dtype="float32").reshape(3, 2), "float32")
    i = relax.const(np.array([0, 2], dtype="int64"), "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 2), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            picked = R.index_tensor(d, [i]) if op == "index_tensor" else R.take(d, i, axis=0)
            out = bb.emit_output(R.add(bb.emit(picked), x))
        bb.emit_func_output(out)
    folded = relax.transform.FoldConstant()(bb.get())
    return [line for line in folded.script().splitlines() if f"R.{op}(" in line]


def test_fold_constant_still_leaves_index_tensor() -> None:
    assert _calls_left("index_tensor")
    assert not _calls_left("take")  # the same gather as take is folded


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "no_constant_only_calls", GRAPH) == 1


def test_fold_constant_index_tensor() -> None:
    assert_recognised("FoldConstant", "no_constant_only_calls", GRAPH, "test_fold_constant_index_tensor")
