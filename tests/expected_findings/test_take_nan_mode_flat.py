"""TVM 0.27 bug: ``take(..., axis=None, mode="nan")`` fails to lower.

``R.take(x, i, axis=None, mode="nan")`` (x 1-D, as axis=None requires) is well-typed: ``x[i]``,
NaN where ``i`` is out of range. TOPI's take for axis=None in "nan" mode builds
``if_then_else(i < 0 or i >= n, nan, cast("float32", i))`` -- the index itself, cast, instead of
``x[i]`` -- and lowering fails on a type check (``MatchesCode(kDLInt, kDLUInt)``). The same
take with ``axis=0``, or with mode "clip", works. Found by the vocabulary's take
(``passcheck pipeline``: ``every_build_runs``).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(13,), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(), dtype="int64", const=False, lo=0.0, hi=12.0)),
    nodes=(Node(op="take", args=(0, 1), attrs=(("axis", None), ("mode", "nan")), shape=(), dtype="float32"),),
    outputs=(2,),
)
EXAMPLE = PipelineBuilds(GRAPH, (Build("default", 0, "generic"),))


def _run(mode: str, index: np.ndarray, axis: int | None = None) -> np.ndarray:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((13,), "float32"))
    i = relax.Var("i", relax.TensorType(index.shape, "int64"))
    with bb.function("main", [x, i]):
        with bb.dataflow():
            out = bb.emit_output(R.take(x, i, axis=axis, mode=mode))
        bb.emit_func_output(out)
    return run_relax(bb.get(), [np.arange(13, dtype="float32"), index])[0]


def test_take_nan_mode_flat_still_fails() -> None:
    import tvm

    for index in (np.array(3, dtype="int64"), np.array([3, 14], dtype="int64")):
        with pytest.raises(tvm.error.InternalError, match="MatchesCode"):
            _run("nan", index)
    assert float(_run("clip", np.array(3, dtype="int64"))) == 3.0
    np.testing.assert_array_equal(_run("nan", np.array([3, 14], dtype="int64"), axis=0), [3.0, np.nan])


def test_passcheck_reports_it() -> None:
    assert recheck("pipeline", "every_build_runs", EXAMPLE) == 1


def test_take_nan_mode_flat() -> None:
    assert_recognised("pipeline", "every_build_runs", EXAMPLE, "test_take_nan_mode_flat")
