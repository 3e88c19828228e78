"""TVM 0.27 bug: ``collapse_sum_to`` / ``collapse_sum_like`` over a zero-size axis return
uninitialized memory.

Summing no terms gives 0 (``R.sum`` of a zero-size tensor legalizes to ``full(0)`` and returns
0). collapse_sum's legalized kernel puts the reduction's ``T.init()`` inside the loop over the
collapsed axis; with extent 0 neither the init nor the update runs, and the output keeps
whatever the allocator left there. Found by the vocabulary tests (``arange`` of 0 elements
collapsed to a scalar); ``passcheck FuseOps`` reported it as ``semantics_preserved``, and so does
any pass that leaves the op in place (FoldConstant here).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# collapse_sum's output is an intermediate the VM's memory plan lays over exp's dead one: what it
# "returns" is then exp(p1), every run (a fresh allocation may happen to hold zeros, and did)
GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(0, 3), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(3,), dtype="float32", const=False, lo=1.0, hi=2.0)),
    nodes=(Node(op="exp", args=(1,), attrs=(), shape=(3,), dtype="float32"),
           Node(op="abs", args=(2,), attrs=(), shape=(3,), dtype="float32"),
           Node(op="collapse_sum_to", args=(0,), attrs=(("shape", (3,)),), shape=(3,), dtype="float32"),
           Node(op="add", args=(4, 3), attrs=(), shape=(3,), dtype="float32")),
    outputs=(5,),
    tensor_inputs=True,  # zero-size NumPy inputs are refused by the VM (another kept bug)
)


def _kernel_text() -> str:
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((0, 3), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.collapse_sum_to(x, (3,)))
        bb.emit_func_output(out)
    return relax.transform.LegalizeOps()(bb.get()).script()


def test_collapse_sum_of_nothing_is_still_not_zero() -> None:
    text = _kernel_text()
    # the only write of the output is under the loop over the empty axis
    assert "T.grid(T.int64(3), T.int64(0))" in text and "T.init()" in text
    assert "T.float32(0.0)" in text.split("T.init()")[1].splitlines()[1]


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "semantics_preserved", GRAPH) == 1


def test_collapse_sum_empty_axis() -> None:
    assert_recognised("FoldConstant", "semantics_preserved", GRAPH, "test_collapse_sum_empty_axis")


def test_numpy_says_zero() -> None:
    assert np.array_equal(np.zeros((0, 3)).sum(axis=0), np.zeros(3))


def test_a_build_of_the_pipeline_meets_it_too() -> None:
    """`passcheck pipeline` (seed 2) met it as builds_agree: collapse_sum_like of a (0,) tensor to
    a scalar. Its message says the build is wrong, not "wrong numbers"; that run's words are
    checked against the registry (a run of the build reads whatever memory holds: 0.274 there,
    0 on another run)."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.build import build_module

    graph = GraphSpec(inputs=(TensorDecl(name="p0", shape=(0,), dtype="float32", const=False),
                              TensorDecl(name="p1", shape=(), dtype="float32", const=False)),
                      nodes=(Node(op="collapse_sum_like", args=(0, 1), attrs=(), shape=(), dtype="float32"),),
                      outputs=(2,), tensor_inputs=True)
    message = ("the default pipeline, opt level 0, generic CPU build is wrong: output 0[]: got 0.2739233672618866, "
               "reference 0.0 (|diff| 0.274 > allowed 1e-30); 1 of 1 elements differ")
    bug = recognise(resolve("pipeline"), "builds_agree", message, build_module(graph).script())
    assert bug is not None and bug.name == "test_collapse_sum_empty_axis"


def test_fusion_meets_it_too() -> None:
    """`passcheck FuseOps --examples 2000` (seed 0) met it as matches_unfused_bitwise: a (0, 1)
    product collapsed to (1,) and added to p2 * p3; the fused and the unfused module each read
    their own leftover memory (0.6071822 against 0.60718524 there). That run's words are
    checked against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.build import build_module

    graph = GraphSpec(
        inputs=(TensorDecl(name="p0", shape=(0, 1), dtype="float32", const=False),
                TensorDecl(name="p1", shape=(1,), dtype="float32", const=False),
                TensorDecl(name="p2", shape=(1,), dtype="float32", const=False)),
        nodes=(Node(op="collapse_sum_to", args=(0,), attrs=(("shape", (1,)),), shape=(1,), dtype="float32"),
               Node(op="multiply", args=(1, 2), attrs=(), shape=(1,), dtype="float32"),
               Node(op="add", args=(3, 4), attrs=(), shape=(1,), dtype="float32")),
        outputs=(5,), tensor_inputs=True)
    message = ("output 0 differs from the unfused module at [0]: fused np.float32(0.6071822) vs unfused "
               "np.float32(0.60718524) (1 elements)")
    bug = recognise(resolve("FuseOps"), "matches_unfused_bitwise", message, build_module(graph).script())
    assert bug is not None and bug.name == "test_collapse_sum_empty_axis"


def test_a_poisoned_memory_plan_meets_it_every_run() -> None:
    """StaticPlanBlockMemory's planned_storage_poisoned: the never-written sum reads the poison
    (seed 23497: 4 of 500 examples; the output itself is leftover memory, so it varies from run
    to run). That run's example and words are checked."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.build import build_module

    graph = GraphSpec(inputs=(TensorDecl("p0", (0, 1), "float32", False),),
                      nodes=(Node("collapse_sum_to", (0,), (("shape", (1,)),), (1,), "float32"),
                             Node("collapse_sum_to", (1,), (("shape", ()),), (), "float32"),
                             Node("isinf", (2,), (), (), "bool")),
                      outputs=(1, 3), tensor_inputs=True)
    message = ("with its 1 planned storage(s) poisoned before use: output 0[0]: got 2.88812255859375, reference 0.0 "
               "(|diff| 2.89 > allowed 1e-30); 1 of 1 elements differ")
    bug = recognise(resolve("StaticPlanBlockMemory"), "planned_storage_poisoned", message, build_module(graph).script())
    assert bug is not None and bug.name == "test_collapse_sum_empty_axis"


def test_lifted_params_meet_it() -> None:
    """LiftTransformParams' lifted_params_agree: main and main after the pass each read their own
    leftover memory for the empty sum (seed 4242, not shrunk; its example's words are checked)."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.program.emit import build_program
    from passcheck.relax.program.spec import ProgramSpec

    prog = ProgramSpec(GraphSpec(inputs=(TensorDecl("c1", (0, 11, 4), "float32", False), TensorDecl("c2", (1, 1), "float32", False),
                                         TensorDecl("p3", (1, 1), "float32", False)),
                                 nodes=(Node("collapse_sum_like", (0, 1), (), (1, 1), "float32"),
                                        Node("add", (3, 2), (), (1, 1), "float32")),
                                 outputs=(3, 4), tensor_inputs=True),
                       num_input=0, weights=(0, 1))
    message = ("main(inputs, main_transform_params(weights)) differs from main(inputs, weights): output 0[0, 0]: "
               "got 3.7859204537379573e+30, reference 0.0 (|diff| 3.79e+30 > allowed 1e-30); 1 of 1 elements differ")
    bug = recognise(resolve("LiftTransformParams"), "lifted_params_agree", message, build_program(prog).script())
    assert bug is not None and bug.name == "test_collapse_sum_empty_axis"
