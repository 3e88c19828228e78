"""Metamorphic relations as Relax mutators (MT-DLCOMP): obscure conditions (``conditions.py``)
gating garbage subgraphs (``garbage.py``), applied over k rounds to drawn graphs and seed
models. A ``Mutant`` is an example kind of its own: the pass's properties check it, and
``mutant_agrees`` compares it with its base through the same pass.

Importing the package declares the relations and the ``Mutant`` example kind.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from passcheck.core.registry import Registry
from passcheck.relax.case import RelaxCase
from passcheck.relax.examples import ExampleKind, kind_of, register_example_kind
from passcheck.relax.mutate import conditions, garbage  # noqa: F401  (declarations)
from passcheck.relax.mutate.graph import graph_mutant_case
from passcheck.relax.mutate.reduce import mutant_simplifications
from passcheck.relax.mutate.relations import Mutant, Mutation
from passcheck.relax.spec import GraphSpec

MutantCaseFactory = Callable[[str, Mutant], RelaxCase]

# base example type -> how a mutant of it becomes a case (a drawn graph here, a seed model in
# ``models/``)
MUTABLE: Registry[MutantCaseFactory] = Registry("mutable example kind")


def register_mutable(base_type: type, factory: MutantCaseFactory) -> None:
    MUTABLE.add(f"{base_type.__module__}.{base_type.__qualname__}", factory)


def _mutant_case(subject: str, m: Mutant) -> RelaxCase:
    for cls in type(m.base).__mro__:
        factory = MUTABLE.find(f"{cls.__module__}.{cls.__qualname__}")
        if factory is not None:
            return factory(subject, m)
    raise TypeError(f"a {type(m.base).__name__} cannot be mutated")


def _describe(m: Mutant) -> str:
    rels = ", ".join(f"{x.condition}*{x.garbage}" for x in m.mutations) or "none"
    return f"{kind_of(m.base).describe(m.base)}; {len(m.mutations)} mutation(s): {rels}"


def _save_inputs(m: Mutant, directory: Path) -> None:
    kind_of(m.base).save_inputs(m.base, directory)


register_mutable(GraphSpec, graph_mutant_case)
register_example_kind(Mutant, ExampleKind(new_case=_mutant_case, describe=_describe, save_inputs=_save_inputs,
                                          simplifications=mutant_simplifications))

__all__ = ["Mutant", "Mutation", "register_mutable"]


