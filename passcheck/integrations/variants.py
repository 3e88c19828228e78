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
    from passcheck.core.subject import MUTATE, SEED_MODELS

    if ns.mutate < 0:
        raise UsageError("--mutate K: K is a number of rounds, 0 or more")
    out: list[tuple[str, Any]] = [(MUTATE, ns.mutate)] if ns.mutate else []
    if ns.seed_model:
        out.append((SEED_MODELS, tuple(ns.seed_model)))
    return tuple(out)
