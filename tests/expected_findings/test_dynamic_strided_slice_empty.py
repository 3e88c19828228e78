"""TVM 0.27 bug: ``dynamic_strided_slice`` dies with ``std::bad_alloc`` on an empty slice.

``R.dynamic_strided_slice(x, begin=[6], end=[0], strides=[1])`` on a (6,) tensor selects
nothing (NumPy: ``x[6:0:1]`` is empty; ``strided_slice`` with the same constants gives a
(0,) tensor). The run-time shape function computes a negative extent instead of 0 and the VM
tries to allocate it: ``InternalError: std::bad_alloc``. A non-empty slice (``[5:-7:-1]``)
works. Found by the vocabulary's dynamic_strided_slice (its operands are constants, its
result match_cast to the shape they give); ``passcheck FuseOps`` reports it as
``semantics_preserved`` (checking raised).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(6,), dtype="float32", const=False),
            TensorDecl(name="c1", shape=(1,), dtype="int64", const=True, lo=6.0, hi=6.0),
            TensorDecl(name="c2", shape=(1,), dtype="int64", const=True, lo=0.0, hi=0.0),
            TensorDecl(name="c3", shape=(1,), dtype="int64", const=True, lo=1.0, hi=1.0)),
    nodes=(Node(op="dynamic_strided_slice", args=(0, 1, 2, 3), attrs=(), shape=(0,), dtype="float32"),),
    outputs=(4,),
)


def _run(begin: int, end: int, stride: int) -> np.ndarray:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    def const(v: int):  # noqa: ANN202
        return relax.const(np.array([v], dtype="int64"), "int64")

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((6,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.dynamic_strided_slice(x, const(begin), const(end), const(stride)))
        bb.emit_func_output(out)
    return run_relax(bb.get(), [np.arange(6, dtype="float32")])[0]


def test_empty_dynamic_slice_still_dies() -> None:
    import tvm

    with pytest.raises(tvm.error.InternalError, match="bad_alloc"):
        _run(6, 0, 1)
    np.testing.assert_array_equal(_run(5, -7, -1), np.arange(6)[::-1])


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "semantics_preserved", GRAPH) == 1


def test_dynamic_strided_slice_empty() -> None:
    assert_recognised("FuseOps", "semantics_preserved", GRAPH, "test_dynamic_strided_slice_empty")
