"""What a Relax subject draws, given the run's options: its own graphs, or seed models
(``--seed-model``), either of them mutated over k rounds (``--mutate K``)."""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import strategies as st

from passcheck.core.subject import MUTATE, SEED_MODELS, Options
from passcheck.relax.models.seed import SeedModel
from passcheck.relax.mutate.strategy import mutants

Extras = tuple[tuple[str, st.SearchStrategy[Any]], ...]


def mutation_rounds(options: Options) -> int:
    return int(dict(options.extra).get(MUTATE, 0))


def seed_sources(options: Options) -> tuple[str, ...]:
    """The seed models the options name, resolved (the built-in corpus materialized on first use)."""
    args = tuple(dict(options.extra).get(SEED_MODELS, ()))
    if not args:
        return ()
    return _resolved(args)


@functools.cache
def _resolved(args: tuple[str, ...]) -> tuple[str, ...]:
    from passcheck.relax.models.corpus import resolve_seed_args

    return tuple(resolve_seed_args(list(args)))


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


def seed_examples(options: Options, extras: tuple[tuple[str, Any], ...]) -> tuple[tuple[Any, ...], bool]:
    """``Subject.explicit_examples`` of a pass: every seed model once, as it is (with the pass's
    sample extras), then drawn mutants of them with --mutate, else nothing more."""
    sources = seed_sources(options)
    if not sources:
        return (), True
    return tuple(SeedModel(s, 0, extras) for s in sources), mutation_rounds(options) > 0
