"""Making a failing mutant smaller: delta debugging over its mutations first (the fewest that
still fail), then the base's own simplifications under the same mutations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from passcheck.core.reduce import without_chunks
from passcheck.relax.examples import kind_of
from passcheck.relax.mutate.relations import Mutant


def mutant_simplifications(m: Mutant) -> Iterator[Mutant]:
    for fewer in without_chunks(m.mutations):
        yield replace(m, mutations=fewer)
    # a mutation's picks are indices modulo what the graph has: they stay valid on a smaller base
    for base in kind_of(m.base).simplifications(m.base):
        yield replace(m, base=base)
