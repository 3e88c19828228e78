"""What a Relax subject draws, given the run's options: its own graphs, or seed models
(``--seed-model``), either of them mutated over k rounds (``--mutate K``)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.core.subject import Options
from passcheck.relax.mutate.strategy import mutants

MUTATE = "mutate"  # Options.extra key: rounds of metamorphic mutation (0: none)


def mutation_rounds(options: Options) -> int:
    return int(dict(options.extra).get(MUTATE, 0))


def example_strategy(graphs: st.SearchStrategy[Any], options: Options) -> st.SearchStrategy[Any]:
    rounds = mutation_rounds(options)
    return mutants(graphs, rounds) if rounds else graphs
