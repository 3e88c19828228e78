"""The kinds of plain-data example a Relax subject checks, each declared once with how it turns
into a case: a drawn ``GraphSpec`` (declared here), a ``Mutant`` of one (``mutate/``), a seed
model (``models/``). Subjects dispatch through ``kind_of(example)``; nothing lists the kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passcheck.core.registry import Registry
from passcheck.relax.case import RelaxCase
from passcheck.relax.spec import GraphSpec


@dataclass(frozen=True)
class ExampleKind:
    """How one type of example becomes a case (IR built, oracles attached), is described in
    reports, saves its inputs beside a repro, and gets smaller after Hypothesis shrank it."""

    new_case: Callable[[str, Any], RelaxCase]  # (subject name, example) -> case with ``built`` set
    describe: Callable[[Any], str]
    save_inputs: Callable[[Any, Path], None]
    simplifications: Callable[[Any], Iterable[Any]] = lambda example: ()


KINDS: Registry[ExampleKind] = Registry("Relax example kind")


def _key(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def register_example_kind(cls: type, kind: ExampleKind) -> ExampleKind:
    return KINDS.add(_key(cls), kind)


def kind_of(example: Any) -> ExampleKind:
    for cls in type(example).__mro__:
        kind = KINDS.find(_key(cls))
        if kind is not None:
            return kind
    raise TypeError(f"no Relax example kind is declared for {type(example).__name__}")


def _graph_case(subject: str, spec: GraphSpec) -> RelaxCase:
    from passcheck.relax.build import build_module

    case = RelaxCase(subject, spec)
    case.built = build_module(spec)
    return case


def _save_graph_inputs(spec: GraphSpec, directory: Path) -> None:
    import numpy as np

    from passcheck.relax.spec import input_arrays

    np.savez(directory / "inputs.npz", *input_arrays(spec))


def _run_sizes(spec: GraphSpec) -> str:
    """The run-time values of the shape variables (what a known bug at n = 0 is recognised by)."""
    return "; run at " + ", ".join(f"{k}={v}" for k, v in spec.sym_sizes) if spec.sym_sizes else ""


def _pass_args(spec: GraphSpec) -> str:
    """The arguments drawn for the pass (AlterOpLayout's desired layouts): what a known bug of a pass
    that raised, leaving no output IR, is recognised by."""
    return "; pass arguments " + ", ".join(f"{k}={dict(v) if k == 'desired_layouts' else v!r}" for k, v in spec.extra) \
        if spec.extra else ""


def split_past_end(spec: GraphSpec) -> str:
    """Where a split's index lies past the end of its axis (Relax clamps it as NumPy does, LegalizeOps
    does not): what a kept bug is recognised by where no pass legalized the split and no IR shows it."""
    for n in spec.nodes:
        at = n.attr.get("sections") if n.op == "split" else None
        if isinstance(at, tuple) and at:
            extent = spec.value_shape(n.args[0])[int(n.attr["axis"])]
            if isinstance(extent, int) and max(at) > extent:
                return "; a split index past the end of its axis"
    return ""


def _graph_simplifications(spec: GraphSpec) -> Iterable[GraphSpec]:
    from passcheck.relax.shrink import simplifications

    return simplifications(spec)


register_example_kind(GraphSpec, ExampleKind(
    new_case=_graph_case,
    describe=lambda spec: (f"{len(spec.nodes)} ops: {', '.join(spec.ops())}" + _run_sizes(spec) + _pass_args(spec)
                           + split_past_end(spec)),
    save_inputs=_save_graph_inputs,
    simplifications=_graph_simplifications,
))
