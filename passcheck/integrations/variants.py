"""The CLI options that change what a Relax subject checks: ``--mutate K`` (metamorphic
mutants), ``--seed-model PATH`` (real models as seeds), ``--drift-findings``."""

from __future__ import annotations

import argparse
from typing import Any

from passcheck.core.errors import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mutate", type=int, default=0, metavar="K",
                   help="check mutants: each example gets K rounds of metamorphic mutation (obscure conditions "
                        "gating garbage subgraphs); mutant_agrees compares pass(m) with pass(T(m))")
    p.add_argument("--seed-model", action="append", default=[], metavar="PATH",
                   help="real models as seeds: an .onnx file, a directory of them, or the built-in corpus "
                        "(builtin, builtin:node, builtin:zoo); each is checked once as it is, and drawn "
                        "mutants of them with --mutate (needs pip install \"passcheck[onnx]\"; repeatable)")
    p.add_argument("--drift-findings", action="store_true",
                   help="count numeric drift (outputs apart within the rounding bound) as findings")


def extra(ns: argparse.Namespace) -> tuple[tuple[str, Any], ...]:
    """``Options.extra`` for the parsed options (plain data: it travels to the worker)."""
    from passcheck.relax.variants import MUTATE, SEEDS

    if ns.mutate < 0:
        raise UsageError("--mutate K: K is a number of rounds, 0 or more")
    out: list[tuple[str, Any]] = [(MUTATE, ns.mutate)] if ns.mutate else []
    if ns.seed_model:
        from passcheck.relax.models.corpus import resolve_seed_args

        out.append((SEEDS, tuple(resolve_seed_args(ns.seed_model))))
    return tuple(out)


def attach(config: Any) -> None:
    """Seed models are checked once each, as they are, before the drawn examples; without
    --mutate a pass draws nothing else (a sequence or the pipeline draws the seeds it wraps)."""
    from passcheck.core.subject import resolve
    from passcheck.relax.variants import mutation_rounds, seed_examples, seed_sources

    if not seed_sources(config.options):
        return
    found = seed_examples(resolve(config.subject, config.ir), config.options)
    config.explicit_examples = tuple(config.explicit_examples) + found
    if found and not mutation_rounds(config.options):
        config.examples = 0
