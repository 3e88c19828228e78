"""``passcheck sequence``: sequences of 2-8 Relax passes on one graph, checked after every step.

The generic properties compare the graph with the module after the last step; the sequence's
own (``properties/sequence.py``) check every step and blame the first that breaks one. A
sequence shrinks by delta debugging over its drawn passes, then by the graph's own
simplifications.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from passcheck.core.reduce import without_chunks
from passcheck.core.subject import Options, Subject, register_subject
from passcheck.relax.case import RelaxCase
from passcheck.relax.examples import kind_of
from passcheck.relax.graphs import GraphBias, relax_graphs
from passcheck.relax.sequence.apply import PassSequence, Ran, Step, expand, run_sequence
from passcheck.relax.sequence.execute import pipeline_after
from passcheck.relax.sequence.steps import graph_passes, kind, lowering_passes
from passcheck.relax.variants import example_strategy

# a bit of everything the passes are about: fusion, folding, layouts, inference decompositions
_BIAS = GraphBias(op_weights=(("conv2d", 2.0), ("matmul", 2.0), ("batch_norm", 1.0), ("add", 2.0),
                              ("multiply", 1.5), ("relu", 1.5), ("reshape", 1.0), ("permute_dims", 1.0)),
                  const_bias=0.4, max_nodes=6, symbolic=0.15, float16=0.05)


def _step(name: str) -> st.SearchStrategy[Step]:
    k = kind(name)
    return st.just(Step(name)) if k.draw_args is None else k.draw_args().map(lambda a: Step(name, a))


@st.composite
def pass_steps(draw: Any) -> tuple[Step, ...]:
    """2-8 passes: graph passes, then (one time in four) one pass of tvm.compile's lowering
    (with the lowering before it as prerequisites)."""
    lowering = lowering_passes()
    tail = draw(st.sampled_from(lowering).map(Step)) if lowering and draw(st.integers(0, 3)) == 0 else None
    body = draw(st.lists(st.sampled_from(graph_passes()).flatmap(_step), min_size=1 if tail else 2,
                         max_size=7 if tail else 8))
    return tuple(body) + ((tail,) if tail else ())


@dataclass
class SequenceSubject(Subject):
    name: str = "sequence"
    summary: str = "sequences of 2-8 Relax passes (with their prerequisites), checked after every step"
    ir: str = "relax"
    groups: tuple[str, ...] = ("sequences",)

    def strategy(self, options: Options) -> st.SearchStrategy[PassSequence]:
        graphs = example_strategy(relax_graphs(replace(_BIAS, allow_special=options.allow_special_values)), options)
        return st.builds(PassSequence, graphs, pass_steps())

    def make_case(self, example: PassSequence, impl: Any | None, options: Options) -> RelaxCase:
        case = kind_of(example.graph).new_case(self.name, example.graph)
        case.example = example
        applied = expand(example.steps)
        case.before = case.built
        case.prepare = lambda mod: mod

        def apply(mod: Any) -> Any:
            ran = run_sequence(mod, applied)
            if ran.error is not None:
                raise ran.error
            return ran.final

        case.apply = apply
        ran: Ran = run_sequence(case.built, applied)
        case.ran = ran
        for i, m in enumerate(ran.modules):
            case.stages[f"step{i + 1}"] = m
        case.after = ran.final
        finish = pipeline_after(applied)
        if finish != "default":  # a lowering tail ran: compile with the rest of the lowering only
            case.pipeline_for.update({"after": finish, "base_after": finish})
            case.pipeline_for.update({f"step{i + 1}": pipeline_after(applied[:i + 1]) for i in range(len(ran.modules))})
        if ran.error is not None:
            case.raised, case.raised_traceback = ran.error, ran.error_text
        lowered = next((a for a in applied[:len(ran.modules)] if not kind(a.name).exact_numbers), None)
        if lowered is not None:
            case.no_reference = f"the numbers are float16's after {lowered.name} (by design): not compared"
        case.notes = {**getattr(case, "notes", {}),
                      "steps": " -> ".join(a.name + ("" if a.role == "drawn" else "*") for a in applied)}
        return case

    def describe_example(self, example: PassSequence) -> str:
        steps = " -> ".join(s.name for s in example.steps)
        return f"{steps} on {kind_of(example.graph).describe(example.graph)}"

    def save_inputs(self, example: PassSequence, directory: Path) -> None:
        kind_of(example.graph).save_inputs(example.graph, directory)

    def simplifications(self, example: PassSequence) -> Iterator[PassSequence]:
        for fewer in without_chunks(example.steps, keep_at_least=1):
            yield replace(example, steps=fewer)
        for graph in kind_of(example.graph).simplifications(example.graph):
            yield replace(example, graph=graph)


register_subject(SequenceSubject())
