"""Hypothesis draws of mutations: ``k`` rounds of one or two each, every field an index that
shrinks towards the simplest choice (the first relation, no garbage, the first value)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.relax.mutate.relations import Mutant, Mutation, relations

_PICK = st.integers(0, 2**16)


def mutations(rounds: int) -> st.SearchStrategy[tuple[Mutation, ...]]:
    conditions, garbage = relations()

    def one(r: int) -> st.SearchStrategy[Mutation]:
        return st.builds(Mutation, condition=st.sampled_from(conditions.names()),
                         garbage=st.sampled_from(garbage.names()), target=_PICK,
                         picks=st.tuples(_PICK, _PICK, _PICK, _PICK), seed=st.integers(0, 2**16), round=st.just(r))

    per_round = [st.lists(one(r), min_size=1, max_size=2) for r in range(rounds)]
    return st.tuples(*per_round).map(lambda lists: tuple(m for lst in lists for m in lst))


def mutants(bases: st.SearchStrategy[Any], rounds: int) -> st.SearchStrategy[Mutant]:
    """Mutants of the drawn ``bases`` after ``rounds`` rounds of mutation."""
    return st.builds(Mutant, bases, mutations(rounds))
