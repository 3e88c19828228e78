"""Pass sequences (relax/sequence/): which passes are drawn and with what before them, every step
checked, the first breaking step blamed, and sequences reduced by delta debugging."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from passcheck.properties.sequence import every_step_preserves_semantics, every_step_well_formed

import passcheck
from passcheck.core.subject import Options, resolve
from passcheck.relax.sequence.apply import PassSequence, Step, expand, remaining_lowering
from passcheck.relax.sequence.steps import (
    STEPS,
    StepKind,
    graph_passes,
    kind,
    lowering_order,
    lowering_passes,
    register_step,
    runnable_passes,
)
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

BUGGY = Path(__file__).resolve().with_name("model_buggy_passes.py")

# x + x, then * a constant, then relu: FoldConstant has nothing to fold, the buggy add step fires
GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (2, 3), "float32", False), TensorDecl("c1", (2, 3), "float32", True, seed=4)),
    nodes=(Node("add", (0, 0), (), (2, 3), "float32"), Node("multiply", (2, 1), (), (2, 3), "float32"),
           Node("relu", (3,), (), (2, 3), "float32")),
    outputs=(4,),
)


def test_every_no_argument_pass_is_drawn_unless_declared_otherwise() -> None:
    names = runnable_passes()
    assert {"FoldConstant", "FuseOps", "DeadCodeElimination", "ConvertLayout", "ToMixedPrecision"} <= set(names)
    assert "LazyGetInput" in names and "LazyGetInput" not in graph_passes()  # changes main's signature
    assert set(lowering_passes()) == set(lowering_order()[1:]) & set(names)
    assert all(kind(n).reason for n in STEPS.names())  # every declaration says why it exists


def test_prerequisites_are_added_once_in_order() -> None:
    applied = expand((Step("FoldConstant"), Step("FuseTIR"), Step("FuseOps")))
    assert [a.name for a in applied] == ["FoldConstant", "LegalizeOps", "AnnotateTIROpPattern", "FuseOps",
                                         "FuseTIR", "FuseOps"]
    assert applied[1].role == "prerequisite of FuseTIR" and applied[-1].role == "drawn"
    tail = expand((Step("DeadCodeElimination"), Step("StaticPlanBlockMemory")))
    lowering = lowering_order()
    assert lowering[:2] == ("LegalizeOps", "RewriteDataflowReshape") and "VMShapeLower" in lowering  # read from TVM
    assert [a.name for a in tail] == ["DeadCodeElimination", *lowering[:lowering.index("StaticPlanBlockMemory") + 1]]
    assert remaining_lowering(tail) == lowering[lowering.index("StaticPlanBlockMemory") + 1:]
    assert remaining_lowering(expand((Step("FoldConstant"),))) == lowering


@pytest.fixture
def buggy_step():  # noqa: ANN201
    """A step whose pass is tests/model_buggy_passes.py:add_off_by_a_thousandth (in this process)."""
    from passcheck.core.loading import load_impl

    make = load_impl(f"{BUGGY}:add_off_by_a_thousandth")
    register_step(StepKind("AddOffByAThousandth", drawn=False, make=lambda args: make(), reason="a test's bug"))
    yield "AddOffByAThousandth"
    STEPS.remove("AddOffByAThousandth")


def test_the_first_step_that_breaks_the_numbers_is_blamed(buggy_step: str) -> None:
    subject = resolve("sequence")
    steps = (Step("FoldConstant"), Step(buggy_step), Step("FuseOps"))
    case = subject.make_case(PassSequence(GRAPH, steps), None, Options())
    every_step_well_formed(case)
    with pytest.raises(passcheck.Violation, match=r"step 2/5 AddOffByAThousandth broke the numbers"):
        every_step_preserves_semantics(case)
    # without the bug the same sequence holds
    fine = subject.make_case(PassSequence(GRAPH, (Step("FoldConstant"), Step("FuseOps"))), None, Options())
    every_step_preserves_semantics(fine)


def test_a_step_that_raises_is_blamed_with_its_position() -> None:
    subject = resolve("sequence")
    # DataflowUseInplaceCalls raises on a scalar constant plus a tensor (a kept TVM bug)
    g = GraphSpec(inputs=(TensorDecl("p0", (1,), "float32", False), TensorDecl("c1", (), "float32", True)),
                  nodes=(Node("add", (0, 0), (), (1,), "float32"), Node("add", (1, 2), (), (1,), "float32")),
                  outputs=(3,))
    case = subject.make_case(PassSequence(g, (Step("FoldConstant"), Step("DataflowUseInplaceCalls"))), None, Options())
    assert case.after is None and case.raised_traceback.startswith("step 2/2 DataflowUseInplaceCalls raised")
    assert len(case.ran.modules) == 1


def test_a_sequence_reduces_to_the_steps_that_matter() -> None:
    subject = resolve("sequence")
    ex = PassSequence(GRAPH, (Step("FoldConstant"), Step("DeadCodeElimination"), Step("FuseOps")))
    cands = list(subject.simplifications(ex))
    assert cands[0].steps == (Step("FuseOps"),) or cands[0].steps == ex.steps[1:] or len(cands[0].steps) < 3
    assert all(len(c.steps) >= 1 for c in cands)
    assert any(c.graph != GRAPH and c.steps == ex.steps for c in cands)


def test_float16_compute_by_design_is_not_compared_with_the_float32_reference() -> None:
    subject = resolve("sequence")
    case = subject.make_case(PassSequence(GRAPH, (Step("ToMixedPrecision"), Step("FoldConstant"))), None,
                             Options())
    with pytest.raises(passcheck.Unknown, match="float16"):
        case.reference()
    every_step_preserves_semantics(case)  # the steps before ToMixedPrecision (none) hold


def test_sequence_campaign_finds_only_kept_tvm_bugs(tmp_path: Path) -> None:
    """A short real campaign: whatever it finds must be a known (kept) TVM bug."""
    result = passcheck.check("sequence", examples=25, seed=5, findings_dir=str(tmp_path), shrink_seconds=30)
    assert result.examples >= 20
    assert not result.new_findings, [(f.property, f.message) for f in result.new_findings]
    for name in ("every_step_well_formed", "every_step_keeps_signature", "every_step_preserves_semantics"):
        assert result.stats[name].held > 0


def test_sequence_examples_stay_plain_data() -> None:
    import pickle

    from passcheck.core.data import dumps, loads

    ex = PassSequence(replace(GRAPH), (Step("ConvertLayout", (("relax.nn.conv2d", ("NHWC", "OHWI")),)),))
    assert loads(dumps(ex)) == ex  # as saved and written into repros
    # (and pickled only on the pipe to this run's own worker processes)
    assert pickle.loads(pickle.dumps(ex)) == ex and eval(repr(ex), {"PassSequence": PassSequence, "Step": Step,  # noqa: S307
                                                                    "GraphSpec": GraphSpec, "Node": Node,
                                                                    "TensorDecl": TensorDecl}) == ex
