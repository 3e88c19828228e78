"""The four recipes of docs/architecture.md, each followed on a toy example exactly as the page
writes it: add an op, add a pass, add a schedule primitive, add a property.

Toys are declared in this module and taken back out at the end of each test, so the default
vocabulary, passes and primitives (and therefore every seed's examples) stay as shipped."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

import passcheck
from passcheck.core.engine.plan import plan
from passcheck.core.engine.results import RunConfig
from passcheck.core.engine.session import Session
from passcheck.core.known import recognise_example
from passcheck.core.outcome import Verdict
from passcheck.relax.spec import GraphSpec  # a field type of the plain-data recipe's toy class


def _examples(strategy: Any, n: int) -> list[Any]:
    """``n`` examples of ``strategy``, the same ones every run."""
    out: list[Any] = []

    @seed(0)
    @settings(max_examples=n, phases=[Phase.generate], deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example: Any) -> None:
        out.append(example)

    collect()
    return out[:n]


KNOWN = "a registered TVM bug"


def _verdicts(subject: str, ir: str, property_files: tuple[str, ...], n: int) -> dict[str, set[Verdict | str]]:
    """The apply and check stages, in this process (where the toys are declared), on ``n``
    drawn examples: each property's verdicts, a finding the known-bug registry recognises (the
    drawn graphs meet TVM's kept bugs too) counted as ``KNOWN``."""
    p = plan(RunConfig(subject=subject, ir=ir, property_files=property_files))
    session = Session(p.worker_config())
    seen: dict[str, set[Verdict | str]] = {name: set() for name in p.properties}
    for example in _examples(p.strategy(), n):
        res = session.run(example)
        for name, outcome in res.outcomes.items():
            known = outcome.verdict.finding and recognise_example(
                p.subject, name, example, outcome.message, res.input_script, res.output_script)
            seen[name].add(KNOWN if known else outcome.verdict)
    return seen


# --- Recipe 1: add an op ------------------------------------------------------------------------

def _draw_negative(ctx: Any, first: Any) -> Any:
    from passcheck.relax.ops.base import Drawn

    return Drawn((first.vid,), {}, first.shape, -first.hi, -first.lo)


def _build_negative(args: list[Any], attrs: dict[str, Any]) -> Any:
    from tvm.relax import op as R

    return R.negative(args[0])


def _reference_negative(args: list[Any], attrs: dict[str, Any], u: float) -> Any:
    from passcheck.core.rounding import Approx

    (a,) = args
    return Approx(-a.v, a.e)  # negation is exact: the input's error bound carries over


@pytest.fixture
def toy_op() -> Iterator[str]:
    from passcheck.relax.ops.base import OPS, OpSpec, register_op

    register_op(OpSpec("toy_negative", "relax.negative", "elemwise", _draw_negative, _build_negative,
                       _reference_negative, symbolic=True))
    yield "toy_negative"
    OPS.remove("toy_negative")


def test_recipe_add_an_op(toy_op: str) -> None:
    """A declared op is drawn, built into Relax, compiled, and agrees with its reference."""
    from passcheck.relax.build import build_module
    from passcheck.relax.execution import run_relax
    from passcheck.relax.graphs import GraphBias, relax_graphs
    from passcheck.relax.ops import op_registry
    from passcheck.relax.reference import evaluate
    from passcheck.relax.spec import input_arrays
    from passcheck.relax.tolerance import compare

    only_toy = GraphBias(op_weights=tuple((n, 0.0 if n != toy_op else 1.0) for n in op_registry()), max_nodes=3)
    specs = [s for s in _examples(relax_graphs(only_toy), 12) if toy_op in s.ops()]
    assert specs, "the toy op is never drawn"
    for spec in specs[:4]:
        mod = build_module(spec)
        assert "R.negative" in mod.script()
        params = input_arrays(spec)
        got, want = run_relax(mod, params), evaluate(spec, params)
        for g, w in zip(got, want):
            assert compare(g, w, spec.value_dtype(spec.outputs[0])) is None


# --- Recipe 2: add a pass -----------------------------------------------------------------------

TOY_PASS_PROPERTY = '''
from passcheck import prop, require


@prop("ToyCanonicalizeBindings")
def keeps_main(case) -> None:
    "The pass keeps the function it was given."
    require(case.after is None or "main" in [g.name_hint for g in case.after.get_global_vars()],
            "main disappeared")
'''


@pytest.fixture
def toy_pass(tmp_path: Path) -> Iterator[tuple[str, str]]:
    from passcheck.core.subject import register_subject, unregister_subject
    from passcheck.relax.graphs import GraphBias
    from passcheck.relax.passes import RelaxPassSubject

    def make_pass(extras: dict[str, Any]) -> Any:
        from tvm import relax

        return relax.transform.CanonicalizeBindings()

    register_subject(RelaxPassSubject(name="ToyCanonicalizeBindings", summary="CanonicalizeBindings (toy)",
                                      bias=GraphBias(max_nodes=4), make_pass=make_pass,
                                      stage="CanonicalizeBindings"))
    props = tmp_path / "toy_pass_properties.py"
    props.write_text(TOY_PASS_PROPERTY)
    yield "ToyCanonicalizeBindings", str(props)
    unregister_subject("ToyCanonicalizeBindings")


def test_recipe_add_a_pass(toy_pass: tuple[str, str]) -> None:
    """A declared pass gets the generic Relax properties and its own; all hold on TVM's pass."""
    name, props = toy_pass
    seen = _verdicts(name, "relax", (props,), 8)
    assert {"pass_does_not_raise", "semantics_preserved", "keeps_main"} <= set(seen)
    assert seen["keeps_main"] == {Verdict.HELD}
    assert seen["semantics_preserved"] - {KNOWN} == {Verdict.HELD}, seen


# --- Recipe 3: add a schedule primitive ---------------------------------------------------------

def _draw_unit_split(draw: Any, view: Any) -> Any:
    from hypothesis import strategies as st

    from passcheck.tir.schedule import Step

    stage = draw(st.sampled_from(list(view.stages)))
    return Step("toy_unit_split", stage.name, (draw(st.integers(0, len(stage.iters) - 1)),))


def _apply_unit_split(sch: Any, step: Any) -> str:
    from passcheck.tir.schedule import get_block, loop_at

    sch.split(loop_at(sch, get_block(sch, step.block), step.loops[0]), [None, 1])
    return f"sch.split(<loop {step.loops[0]} of {step.block!r}>, [None, 1])"


@pytest.fixture
def toy_primitive() -> Iterator[str]:
    from passcheck.core.subject import register_subject, unregister_subject
    from passcheck.tir.schedule import Primitive, register_primitive, unregister_primitive
    from passcheck.tir.schedule.registry import param
    from passcheck.tir.subjects import PrimitiveSubject

    register_primitive(Primitive("toy_unit_split", _draw_unit_split, _apply_unit_split, "split a loop by 1",
                                 params=(param("split", "factors", "[None, 1]"),)))
    register_subject(PrimitiveSubject("toy_unit_split"))
    yield "toy_unit_split"
    unregister_subject("toy_unit_split")
    unregister_primitive("toy_unit_split")


def test_recipe_add_a_schedule_primitive(toy_primitive: str) -> None:
    """A declared primitive is drawn, applied and checked by every TIR property; none fails
    (but for TVM's kept bugs, which the drawn kernels meet too: the unscheduled kernel of a
    reduction over an empty axis, say)."""
    seen = _verdicts(toy_primitive, "tir", (), 10)
    assert {"bounds_safe_z3", "equivalent_by_execution", "block_instances_exactly_once"} <= set(seen)
    assert not any(v != KNOWN and v.finding for verdicts in seen.values() for v in verdicts), seen
    assert Verdict.HELD in seen["equivalent_by_execution"], seen


def test_recipe_a_primitive_declares_its_signature(toy_primitive: str) -> None:
    """The forms a primitive declares are listed by `list --signatures`; the whole signature of
    tvm.s_tir.Schedule stays covered."""
    import io
    from contextlib import redirect_stdout

    from passcheck.integrations.cli import main
    from passcheck.tir.schedule.signatures import uncovered

    assert uncovered() == []
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["list", "--signatures"]) == 0
    assert "toy_unit_split" in out.getvalue() and "[None, 1]" in out.getvalue()


# --- Recipe 4: add a property -------------------------------------------------------------------

PROPERTIES = '''
from passcheck import discard, prop, require


def bindings(mod) -> int:
    return sum(len(b.bindings) for b in mod["main"].body.blocks)


@prop("FoldConstant")
def never_adds_bindings(case) -> None:
    "FoldConstant never adds bindings to main."
    if case.after is None:
        discard("the pass raised")
    require(bindings(case.after) <= bindings(case.before), "main grew")


@prop("FoldConstant")
def toy_always_fails(case) -> None:
    "Deliberately false: proves a failing property becomes a finding with a repro."
    require(False, "toy property fails on purpose")
'''


def test_recipe_add_a_property(tmp_path: Path) -> None:
    props = tmp_path / "my_properties.py"
    props.write_text(textwrap.dedent(PROPERTIES))
    result = passcheck.check("FoldConstant", examples=10, property_files=[str(props)],
                             findings_dir=str(tmp_path / "findings"), shrink_seconds=10)
    # every example held, but those where the stock pass raised on a kept TVM bug (the property
    # discards them: nothing to compare)
    raised = sum(result.stats["pass_does_not_raise"].known_hits.values())
    assert result.stats["never_adds_bindings"].held == 10 - raised
    assert result.stats["never_adds_bindings"].discarded == raised
    assert result.stats["pass_does_not_raise"].violated == raised  # (known ones, not new)
    assert all(f.known_bug for f in result.findings if f.property == "pass_does_not_raise")
    (finding,) = [f for f in result.findings if f.property == "toy_always_fails"]
    assert finding.kind == Verdict.VIOLATION and Path(finding.repro).is_file()
    assert result.stats["toy_always_fails"].violated == 10
    assert np.isclose(result.examples, 10)


def test_recipe_make_a_new_example_class_plain_data(tmp_path: Path) -> None:
    from dataclasses import dataclass

    from passcheck.core.data import NotPlainData, dumps, forget_plain_data, loads, plain_data
    from passcheck.core.engine.database import FailureStore, SavedFailure, open_database
    from passcheck.relax.spec import Node, TensorDecl

    @plain_data("relax.ScaledGraph")
    @dataclass(frozen=True)
    class ScaledGraph:
        graph: GraphSpec
        scale: float = 1.0

    try:
        graph = GraphSpec((TensorDecl("x", (2,), "float32", False),), (Node("exp", (0,), (), (2,), "float32"),), (1,))
        example = ScaledGraph(graph, 0.5)
        assert loads(dumps(example)) == example and loads(dumps(ScaledGraph(graph))) == ScaledGraph(graph)
        with pytest.raises(NotPlainData, match="ScaledGraph.scale: 'half' is not float"):
            loads(dumps(example).replace("0.5", '"half"'))
        store = FailureStore(open_database(str(tmp_path / "db")))
        store.save(SavedFailure("FoldConstant", "relax", None, (), "p", "violation", "m", example))
        assert [s.example for _, s in store.everything()] == [example] and not store.refused
    finally:
        forget_plain_data("relax.ScaledGraph")

    class Undeclared:
        pass

    store.save(SavedFailure("FoldConstant", "relax", None, (), "p", "violation", "m", Undeclared()))
    assert "not saved" in store.refused[0] and "@plain_data" in store.refused[0]
