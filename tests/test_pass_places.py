"""Every pass runs at its place in TVM's own pipelines (issue 19, item 2): the order is read from
TVM by running its pipelines with a pass instrument, and a pass of tvm.compile's lowering gets IR
lowered as TVM lowers it before it, and its output is finished by the rest of that lowering."""

from __future__ import annotations

from passcheck.core.subject import Options, resolve
from passcheck.relax.pipelines import lowering_order, pipeline_order, place
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(inputs=(TensorDecl("x", (2, 3), "float32", False),),
                  nodes=(Node("relu", (0,), (), (2, 3), "float32"), Node("exp", (1,), (), (2, 3), "float32")),
                  outputs=(2,))


def test_the_order_is_tvms() -> None:
    compile_order = pipeline_order("tvm.compile")
    assert compile_order[:3] == ("backend.DispatchSampling", "backend.DispatchSortScan", "LegalizeOps")
    for earlier, later in (("CallTIRRewrite", "StaticPlanBlockMemory"), ("StaticPlanBlockMemory", "KillAfterLastUse"),
                           ("LowerRuntimeBuiltin", "VMShapeLower")):
        assert compile_order.index(earlier) < compile_order.index(later)
    assert lowering_order()[0] == "LegalizeOps"
    assert "AttachAttrLayoutFreeBuffers" in pipeline_order("static_shape_tuning")
    # a deprecated alias runs where the pass it names runs; a pass no pipeline runs has no place
    assert place("VMBuiltinLower") == place("LowerRuntimeBuiltin")
    assert place("DeadCodeElimination") is None


def test_a_lowering_pass_gets_lowered_ir_and_the_rest_of_the_lowering() -> None:
    subject = resolve("StaticPlanBlockMemory")
    assert subject.prerequisites[-2:] == ("RemovePurityChecking", "CallTIRRewrite")
    assert subject.finish[0] == "RewriteCUDAGraph" and subject.finish[-1] == "AttachGlobalSymbol"
    case = subject.make_case(GRAPH, None, Options())
    assert "R.builtin.alloc_tensor" in case.before.script()  # what CallTIRRewrite left
    assert "R.memory.alloc_storage" in case.after.script()  # what the pass plans
    assert subject.changed(case)
    assert set(case.pipeline_for) == {"before", "after"}
    import numpy as np

    x = case.params()[0]
    assert np.allclose(case.run("after")[0], np.exp(np.maximum(x, 0)))


def test_a_pass_may_be_declared_to_run_on_the_drawn_program() -> None:
    """LiftTransformParams's one place in TVM's pipelines (static_shape_tuning, after FuseOps) leaves
    it nothing to lift: it is declared to run on the drawn program, and says why."""
    from passcheck.relax.needs import needs_of

    assert place("LiftTransformParams").pipeline == "static_shape_tuning"
    assert "FuseOps" in needs_of("LiftTransformParams").unplaced
    assert resolve("LiftTransformParams").prerequisites == ()
    # (then what its docstring asks for: no dataflow blocks, purity checks removed)
    assert resolve("LazyTransformParams").prerequisites == ("LiftTransformParams", "ToNonDataflow",
                                                            "RemovePurityChecking")


def test_a_pass_tvm_compile_runs_after_legalize_gets_closures_lifted() -> None:
    """tvm.compile lowers no local function (passcheck's compile lifts them first, as a user must):
    a pass of its lowering is given the module LambdaLift made. Lifting them after CallTIRRewrite
    instead left an R.invoke_pure_closure the VM could not build (a false alarm, CallTIRRewrite's
    campaign, seed 36)."""
    from passcheck.relax.program.spec import ProgramSpec, Region

    assert resolve("CallTIRRewrite").prerequisites[0] == "LambdaLift"
    assert "LambdaLift" not in resolve("LegalizeOps").prerequisites
    closure = ProgramSpec(GraphSpec(inputs=(TensorDecl("p0", (1,), "float32", False),),
                                    nodes=(Node("abs", (0,), (), (1,), "float32"),), outputs=(1,)),
                          regions=(Region(0, 1, "closure", "helper", options=(("capture", True),)),))
    case = resolve("CallTIRRewrite").make_case(closure, None, Options())
    assert case.compare_with_reference(case.run("after")) is None
