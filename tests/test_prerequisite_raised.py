"""A pass run before the one under test (LegalizeOps before FuseOps) that raises is a finding of
kind ``prerequisite-raised`` with the failing prerequisite's input as the repro, never a
rejected example; the known-bug registry marks it like any other finding."""

from __future__ import annotations

from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import plan
from passcheck.core.engine.results import RunConfig
from passcheck.core.known import recognise_example
from passcheck.core.outcome import Verdict
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# LegalizeOps raises on it (a kept TVM bug: tests/expected_findings/test_strided_slice_negative_axis_symbolic.py)
LEGALIZE_RAISES = GraphSpec(
    inputs=(TensorDecl("p0", ("n", 5), "float32", False),),
    nodes=(Node("strided_slice", (0,), (("axes", (-1,)), ("begin", (1,)), ("end", (4,)), ("strides", (1,))),
                ("n", 3), "float32"),
           Node("relu", (1,), (), ("n", 3), "float32")),
    outputs=(2,),
    sym_sizes=(("n", 3),),
)


def test_legalize_ops_raising_is_a_prerequisite_raised_finding() -> None:
    p = plan(RunConfig(subject="FuseOps", ir="relax", timeout=300))
    with Evaluator(p) as evaluate:
        res = evaluate(LEGALIZE_RAISES)
    assert res.rejected is None
    outcome = res.outcomes["pass_does_not_raise"]
    assert outcome.verdict == Verdict.PREREQUISITE_RAISED and outcome.verdict.finding
    assert outcome.message.startswith("LegalizeOps (run before FuseOps) raised")
    assert "axis < src_tensor_dim" in outcome.message
    # the repro's input is what LegalizeOps was given: the graph as built
    assert "R.strided_slice" in res.input_script and res.output_script == ""
    others = {k: o.verdict for k, o in res.outcomes.items() if k != "pass_does_not_raise"}
    assert set(others.values()) == {Verdict.DISCARDED}, others
    known = recognise_example(p.subject, "pass_does_not_raise", LEGALIZE_RAISES, outcome.message,
                              res.input_script, res.output_script)
    assert known is not None and known.name == "test_strided_slice_negative_axis_symbolic"


def test_a_graph_legalize_ops_accepts_is_not_affected() -> None:
    fine = GraphSpec(inputs=LEGALIZE_RAISES.inputs,
                     nodes=(Node("strided_slice", (0,), (("axes", (1,)), ("begin", (1,)), ("end", (4,)),
                                                         ("strides", (1,))), ("n", 3), "float32"),),
                     outputs=(1,), sym_sizes=LEGALIZE_RAISES.sym_sizes)
    p = plan(RunConfig(subject="FuseOps", ir="relax", properties=("pass_does_not_raise",), timeout=300))
    with Evaluator(p) as evaluate:
        assert evaluate(fine).outcomes["pass_does_not_raise"].verdict == Verdict.HELD
