"""TVM 0.27 bug: ToMixedPrecision raises on an op with PrimValue arguments that reads a value it
computes in float16.

``slice_scatter(m, y, 0, 1, 1, axis=0)`` with ``m = matmul(x, x)`` (float32, which the pass computes
in float16): the pass rewrites the slice_scatter's arguments to the dtype it chose and treats each
as a tensor, PrimValues (start, end, step) too: ``InternalError: Expected TensorType, but got
T.int64``. Without the matmul nothing is converted and the pass returns. Found by its campaign
once its graphs drew float32 matmuls (seed 20670: 6 of 300 examples).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1, 1), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(1,), dtype="float32", const=False)),
    nodes=(Node(op="matmul", args=(0, 0), attrs=(), shape=(1, 1), dtype="float32"),
           Node(op="reshape", args=(2,), attrs=(("shape", (1,)),), shape=(1,), dtype="float32"),
           Node(op="slice_scatter", args=(3, 1), attrs=(("axis", 0), ("end", 1), ("start", 0), ("step", 1)),
                shape=(1,), dtype="float32")),
    outputs=(4,),
)


def test_to_mixed_precision_still_raises() -> None:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    x = relax.Var("x", relax.TensorType((2, 2), "float32"))
    y = relax.Var("y", relax.TensorType((1, 2), "float32"))

    def module(matmul: bool):  # noqa: ANN202
        bb = relax.BlockBuilder()
        with bb.function("main", [x, y]):
            with bb.dataflow():
                m = bb.emit(R.matmul(x, x)) if matmul else x
                out = bb.emit_output(R.slice_scatter(m, y, 0, 1, 1, axis=0))
            bb.emit_func_output(out)
        return bb.get()

    with pytest.raises(tvm.error.InternalError, match="Expected TensorType, but got T.int64"):
        relax.transform.ToMixedPrecision()(module(True))
    relax.transform.ToMixedPrecision()(module(False))


def test_passcheck_reports_it() -> None:
    assert recheck("ToMixedPrecision", "pass_does_not_raise", GRAPH) == 1


def test_to_mixed_precision_prim_value_argument() -> None:
    assert_recognised("ToMixedPrecision", "pass_does_not_raise", GRAPH, "test_to_mixed_precision_prim_value_argument")


def test_float_bounds_and_shapes_too() -> None:
    """clip(x, 2.25, 2.25) after a float16 value, collapse_sum_to(x, R.shape([1])) after a matmul (seed
    1207: 1 and 7 of 2,000): the same cast of every argument. Those runs' words against the registry."""
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((8, 8), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.collapse_sum_to(bb.emit(R.matmul(x, x)), relax.ShapeExpr([1])))
        bb.emit_func_output(out)
    with pytest.raises(tvm.error.InternalError, match=r"Expected TensorType, but got R\.Shape\(\[1\]\)"):
        relax.transform.ToMixedPrecision()(bb.get())
    for got in ("T.float64", "R.Shape([1])"):
        message = f"the pass raised tvm.error.InternalError: Check failed: (tensor) is false: Expected TensorType, but got {got}"
        bug = recognise(resolve("ToMixedPrecision"), "pass_does_not_raise", message)
        assert bug is not None and bug.name == "test_to_mixed_precision_prim_value_argument", got
