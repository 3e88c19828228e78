"""What a Relax subject draws, given the run's options: its own graphs, or seed models
(``--seed-model``), either of them mutated over k rounds (``--mutate K``)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.core.subject import Options, Subject
from passcheck.relax.models.seed import SeedModel
from passcheck.relax.mutate.strategy import mutants

MUTATE = "mutate"  # Options.extra key: rounds of metamorphic mutation (0: none)
SEEDS = "seed_models"  # Options.extra key: seed model sources (corpus ids, .onnx paths)

Extras = tuple[tuple[str, st.SearchStrategy[Any]], ...]


def mutation_rounds(options: Options) -> int:
    return int(dict(options.extra).get(MUTATE, 0))


def seed_sources(options: Options) -> tuple[str, ...]:
    return tuple(dict(options.extra).get(SEEDS, ()))


def seeds(sources: tuple[str, ...], extras: Extras) -> st.SearchStrategy[SeedModel]:
    """Seed models drawn from ``sources``, with fresh inputs (where the model has no test data)
    and the pass's extras."""
    extra = st.tuples(*(s for _, s in extras)).map(lambda vals: tuple(zip((k for k, _ in extras), vals)))
    return st.builds(SeedModel, st.sampled_from(sources), st.integers(0, 2**16), extra)


def example_strategy(graphs: st.SearchStrategy[Any], options: Options, extras: Extras = ()) -> st.SearchStrategy[Any]:
    sources = seed_sources(options)
    bases = seeds(sources, extras) if sources else graphs
    rounds = mutation_rounds(options)
    return mutants(bases, rounds) if rounds else bases


def seed_examples(subject: Subject, options: Options) -> tuple[Any, ...]:
    """Every seed model once, as it is, for a subject that checks graphs directly (a pass); a
    sequence or the pipeline draws seeds as the graphs it wraps instead."""
    if not getattr(subject, "seeds_as_examples", True):
        return ()
    extra = tuple(getattr(subject, "sample_extras", ()))
    return tuple(SeedModel(s, 0, extra) for s in seed_sources(options))
