"""A drawn program as an example kind: its case calls ``main`` once per combination of its
conditions (so that every branch runs) and compares every call with the float64 reference of
that run."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from passcheck.core.errors import Unknown
from passcheck.relax.case import RelaxCase
from passcheck.relax.examples import ExampleKind, register_example_kind, split_past_end
from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import input_arrays


class ProgramCase(RelaxCase):
    """A ``RelaxCase`` of a ``ProgramSpec`` (``example``); ``spec`` is its graph."""

    def __init__(self, subject: str, prog: ProgramSpec) -> None:
        super().__init__(subject, prog.graph)
        self.example = prog
        self.program = prog
        self.helper_inputs: dict[str, tuple[int, tuple[int, ...]]] = {}

    def calls(self) -> list[list[Any]]:
        from passcheck.relax.program.forms import cond_value

        prog, graph_params = self.program, self.params()
        params = [i for i, d in enumerate(prog.graph.inputs) if not d.const]
        by_input = dict(zip(params, graph_params))
        inputs = [by_input[i] for i in params if i not in prog.weights]
        weights = [by_input[i] for i in params if i in prog.weights]
        return [inputs + [cond_value(c, t) for c, t in zip(prog.conds, truths)] + weights
                for truths in prog.runs()]

    def helper_arguments(self, symbol: str) -> list[list[Any]]:
        """The arguments ``main`` hands its public helper ``symbol``, one list per run of the
        conditions, from the float64 reference cast to their dtypes ([] for a function no region
        made): a helper may be defined only where its caller calls it (gather_nd's indices)."""
        from passcheck.relax.program.forms import cond_value
        from passcheck.relax.program.reference import values_at
        from passcheck.relax.spec import np_dtype

        if symbol not in self.helper_inputs:
            return []
        start, vids = self.helper_inputs[symbol]
        prog, out = self.program, []
        # an input is handed as it is (the reference holds it in float64: an int64 past 2^53 is not)
        given = dict(zip([i for i, d in enumerate(prog.graph.inputs) if not d.const], self.params()))
        starts = {s for s, _ in self.helper_inputs.values()}
        for truths in prog.runs():
            # (one reference run per run of the conditions gives every helper's arguments)
            vals = self.memo(("helper values", truths), lambda t=truths: values_at(prog, self.params(), t, starts))[start]
            out.append([cond_value(prog.conds[-1 - v], truths[-1 - v]) if v < 0 else given[v] if v in given
                        else np.asarray(vals[v].v).astype(np_dtype(prog.graph.value_dtype(v))) for v in vids])
        return out

    def output_dtypes(self) -> list[str]:
        return super().output_dtypes() * len(self.program.runs())

    def output_label(self, i: int) -> str:
        n = len(self.spec.outputs)
        truths = self.program.runs()[i // n] if self.program.conds else ()
        where = ", ".join(f"cond{k}={'true' if t else 'false'}" for k, t in enumerate(truths))
        return f"output {i % n}" + (f" (run with {where})" if where else "")

    def reference(self) -> list[Any]:
        if self.no_reference:
            raise Unknown(self.no_reference)
        return self.memo("reference", self._reference)

    def _reference(self) -> list[Any]:
        from passcheck.relax import reference
        from passcheck.relax.program.reference import evaluate

        refs = [r for truths in self.program.runs() for r in evaluate(self.program, self.params(), truths, self.computed_in)]
        if self.program.conds:
            return refs  # (a rewrite by design of a graph with branches: not widened)
        return reference.allowing(refs, self.equivalent, self.program.graph, self.params(), self.computed_in)


def _program_case(subject: str, prog: ProgramSpec) -> ProgramCase:
    from passcheck.relax.program.emit import build_program

    case = ProgramCase(subject, prog)
    case.built = build_program(prog, case.helper_inputs)
    return case


def describe(prog: ProgramSpec) -> str:
    g = prog.graph
    parts = [f"{len(g.nodes)} ops: {', '.join(g.ops())}"]
    # (a function's name too: a kept bug is recognised by a name a pass takes for its own)
    regions = [f"{r.form}{' ' + r.name if r.name else ''}[{r.start}:{r.stop}]" for r in prog.all_regions()]
    if regions:
        parts.append("regions " + " ".join(regions))
    if prog.conds:
        parts.append("conditions " + ", ".join(c.kind for c in prog.conds))
    if prog.num_input is not None:
        parts.append(f"{len(prog.weights)} weights after num_input")
    if prog.options:
        parts.append("extras " + ", ".join(k for k, _ in prog.options))
    if g.sym_sizes:
        parts.append("run at " + ", ".join(f"{k}={v}" for k, v in g.sym_sizes))
    calls = _tir_calls(prog)
    if calls:
        parts.append("tir regions of " + "; ".join(calls))
    return "; ".join(parts) + split_past_end(g)


def _tir_calls(prog: ProgramSpec) -> list[str]:
    """The Relax calls the ``tir`` regions stand for, as TVMScript prints them: a kept bug of an
    op's legalization is recognised by the op's attributes, which the region's call_tir to the
    legalized kernel no longer shows."""
    from passcheck.relax.ops.base import op_registry

    ops = {prog.graph.nodes[i].op for r in prog.all_regions() if r.form == "tir" for i in range(r.start, r.stop)}
    if not ops:
        return []
    from passcheck.relax.build import build_module

    try:
        text = build_module(prog.graph).script()
    except Exception:  # noqa: BLE001 - a graph that does not build: no calls to name
        return []
    heads = tuple(op_registry()[op].relax_op.replace("relax.", "R.", 1) + "(" for op in ops if op in op_registry())
    return [line.split(" = ", 1)[1].strip() for line in text.splitlines()
            if " = " in line and line.split(" = ", 1)[1].lstrip().startswith(heads)]


def _save_inputs(prog: ProgramSpec, directory: Path) -> None:
    np.savez(directory / "inputs.npz", *input_arrays(prog.graph))


def _simplifications(prog: ProgramSpec) -> Iterable[ProgramSpec]:
    from passcheck.relax.program.shrink import simplifications

    return simplifications(prog)


register_example_kind(ProgramSpec, ExampleKind(
    new_case=_program_case, describe=describe, save_inputs=_save_inputs, simplifications=_simplifications))
