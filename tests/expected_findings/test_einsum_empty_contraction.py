"""TVM 0.27 bug: ``einsum`` summing over an axis of extent 0 returns uninitialized memory.

``einsum("ij->i", x)`` with ``x`` of shape (7, 0) sums no terms: the result is 0. The legalized
kernel puts the reduction's ``T.init()`` inside the loop over the summed axis (as collapse_sum's
does, kept in test_collapse_sum_empty_axis); with extent 0 neither the init nor the update runs,
and the output keeps whatever the allocator left there (NaN, 1.96, 3e-41, ... measured). Found
by the vocabulary tests (an empty strided_slice feeding einsum, then atan2).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# The einsum's output is an intermediate the VM's memory plan lays over exp's dead one: what it
# "returns" is then exp(p1), every run (a fresh allocation may happen to hold zeros)
GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(64, 0), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(64,), dtype="float32", const=False, lo=1.0, hi=2.0)),
    nodes=(Node(op="exp", args=(1,), attrs=(), shape=(64,), dtype="float32"),
           Node(op="abs", args=(2,), attrs=(), shape=(64,), dtype="float32"),
           Node(op="einsum", args=(0,), attrs=(("equation", "ij->i"),), shape=(64,), dtype="float32"),
           Node(op="add", args=(4, 3), attrs=(), shape=(64,), dtype="float32")),
    outputs=(5,),
    tensor_inputs=True,  # zero-size NumPy inputs are refused by the VM (another kept bug)
)


def _kernel_text() -> str:
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((7, 0), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.einsum([x], "ij->i"))
        bb.emit_func_output(out)
    return relax.transform.LegalizeOps()(bb.get()).script()


def test_einsum_of_nothing_is_still_not_initialised() -> None:
    text = _kernel_text()
    # the only write of the output is under the loop over the empty axis
    assert "T.grid(T.int64(7), T.int64(0))" in text and "T.init()" in text
    assert "T.float32(0.0)" in text.split("T.init()")[1].splitlines()[1]


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "semantics_preserved", GRAPH) == 1


def test_einsum_empty_contraction() -> None:
    assert_recognised("FoldConstant", "semantics_preserved", GRAPH, "test_einsum_empty_contraction")


# StaticPlanBlockMemory's planned_storage_poisoned: the never-written sum reads the poison, every
# run (seed 2612 met it 7 times in 2,000 examples, once in a branch program)
POISONED = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(8, 0), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(8,), dtype="float32", const=False)),
    nodes=(Node(op="einsum", args=(0,), attrs=(("equation", "ij->i"),), shape=(8,), dtype="float32"),
           Node(op="less_equal", args=(2, 1), attrs=(), shape=(8,), dtype="bool")),
    outputs=(3,),
    tensor_inputs=True,
)


def test_a_poisoned_memory_plan_meets_it() -> None:
    message = assert_recognised("StaticPlanBlockMemory", "planned_storage_poisoned", POISONED,
                                "test_einsum_empty_contraction")
    assert "poisoned before use" in message
