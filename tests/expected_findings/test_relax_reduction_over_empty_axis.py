"""TVM 0.27 bug: a Relax reduction over a symbolic axis bound to 0 returns uninitialised memory.

``R.sum(x, axis=[1])`` with ``x: R.Tensor((2, "n"))`` legalizes to a TOPI reduction whose init
runs at the first reduction iteration; at ``n = 0`` there is none, so the output is never
written: the VM returns whatever the allocator's memory held (seen: -1502.53, 3e-41) instead of
0 (-inf for max, ...). With a static extent 0 the result is right. The TIR side keeps the same
root cause (tests/tir: the unscheduled TE/TOPI kernel at n = 0). passcheck reaches it on the Relax
side since zero-size inputs are executed (passed as TVM tensor copies): found by the 100-example
FuseOps campaign (relax-bias). The garbage of a fresh allocation is sometimes 0 by chance, so
the test lays the sum over a dead intermediate (see ``_outputs``).
"""

from __future__ import annotations

import numpy as np

from passcheck.core.known import recognise_example
from passcheck.core.subject import resolve
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", ("k", "n"), "float32", False, -1.0, 1.0, "wide", 5528),),
    nodes=(Node("sum", (0,), (("axis", (0, -1)), ("keepdims", False)), (), "float32"),),
    outputs=(1,),
    sym_sizes=(("k", 2), ("n", 0)),
    input_seed=290,
    tensor_inputs=True,
)
# what semantics_preserved says about it (the campaign's message)
MESSAGE = ("wrong numbers: output 0[]: got 2.04618501663208, reference 0.0 (|diff| 2.05 > allowed 1e-30); "
           "1 of 1 elements differ")


def _outputs(static: bool, runs: int = 30) -> list[list[float]]:
    """The sums, as ``main`` sees them. The sum is an intermediate the VM's memory plan lays over
    exp's dead one, so an unwritten output holds exp(y) every run (the garbage of a fresh
    allocation is sometimes 0 by chance); ``main`` returns sum + |exp(y)|, and the sums are that
    minus |exp(y)|."""
    import tvm
    from tvm import relax, tirx
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 0) if static else (2, tirx.Var("n", "int64")), "float32"))
    y = relax.Var("y", relax.TensorType((2,), "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            e = bb.emit(R.abs(R.exp(y)))
            s = bb.emit(R.sum(x, axis=[1]))
            out = bb.emit_output(R.add(s, e))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(tvm.compile(bb.get(), target="llvm"), tvm.cpu())
    yv = np.array([1.0, 2.0], "float32")
    got = []
    for _ in range(runs):
        filler = tvm.runtime.tensor(np.full((2,), 7.5, "float32"))  # leaves non-zero memory behind
        del filler
        out = vm["main"](tvm.runtime.tensor(np.zeros((2, 0), "float32")), tvm.runtime.tensor(yv)).numpy()
        got.append((out - np.abs(np.exp(yv))).tolist())
    return got


def test_a_static_empty_axis_sums_to_zero() -> None:
    # (0 up to TVM's exp against NumPy's: a few float32 ulps of |exp(y)| <= 7.4)
    assert all(abs(x) < 1e-5 for v in _outputs(static=True, runs=5) for x in v)


def test_a_symbolic_empty_axis_still_returns_uninitialised_memory() -> None:
    assert any(abs(x) > 1e-3 for v in _outputs(static=False) for x in v)


def test_registered_as_a_known_bug() -> None:
    for subject in ("FuseOps", "FoldConstant", "SimplifyInference"):
        found = recognise_example(resolve(subject), "semantics_preserved", EXAMPLE, MESSAGE)
        assert found is not None and found.name == "test_relax_reduction_over_empty_axis", (subject, found)


def test_two_builds_meet_it_where_the_reference_is_not_finite() -> None:
    """`passcheck pipeline` (12 examples, seed 2) met it as builds_agree: max over a symbolic axis
    bound to 0 (-inf by NumPy's rule for an empty max with an initial value; not finite, so only
    the builds are compared) gave 1e-44 in one build and 0.0 in another. That run's words and
    example are checked against the registry."""
    from passcheck.relax.pipeline import Build, PipelineBuilds

    example = PipelineBuilds(
        graph=GraphSpec(inputs=(TensorDecl("p0", ("n",), "float32", False),),
                        nodes=(Node("max", (0,), (("axis", None), ("keepdims", False)), (), "float32"),),
                        outputs=(1,), sym_sizes=(("n", 0),), tensor_inputs=True),
        builds=(Build(pipeline="default", opt_level=0, cpu="host"),))
    message = ("output 0[]: default pipeline, opt level 0, generic CPU np.float32(1e-44), default pipeline, opt level 0, "
               "host CPU np.float32(0.0) where the reference is not finite")
    found = recognise_example(resolve("pipeline"), "builds_agree", example, message)
    assert found is not None and found.name == "test_relax_reduction_over_empty_axis", found


def test_a_poisoned_memory_plan_meets_it_every_run() -> None:
    """StaticPlanBlockMemory's planned_storage_poisoned fills each planned storage with NaN before
    the program runs: the sum that is never written reads NaN every time, not memory that may be 0
    by chance (its campaign, seed 20670: 33 of 500 examples)."""
    from passcheck.core.engine.repro import recheck
    from passcheck.relax.program.spec import ProgramSpec

    example = ProgramSpec(GraphSpec(
        inputs=(TensorDecl("p0", ("n",), "float32", False),),
        nodes=(Node("sum", (0,), (("axis", None), ("keepdims", False)), (), "float32"),
               Node("abs", (1,), (), (), "float32")),
        outputs=(2,), sym_sizes=(("n", 0),), tensor_inputs=True))
    assert recheck("StaticPlanBlockMemory", "planned_storage_poisoned", example) == 1
    message = ("with its 1 planned storage(s) poisoned before use: output 0[]: got nan, reference 0.0 "
               "(|diff| nan > allowed 1e-30); 1 of 1 elements differ")
    found = recognise_example(resolve("StaticPlanBlockMemory"), "planned_storage_poisoned", example, message)
    assert found is not None and found.name == "test_relax_reduction_over_empty_axis", found
