"""Draws that depend on the seed alone.

Hypothesis (6.131 and later) mixes literals read from the source of every *local* module loaded
so far (not the standard library, not site-packages; an editable install of passcheck, a
user's property file, a test's temporary file are local) into about one draw in twenty. Which
constant comes out, and how much of the random stream picking it consumes, depends on how many
such modules the process has imported: a seeded stream changes as soon as one more is loaded.
A passcheck run draws its examples once to explore and again, from the same seed, to shrink —
with the modules the evaluation imported in between — and a saved seed must replay on another
machine, in a worker, in a test run that imported other things first. So while passcheck
draws, Hypothesis's local pool is empty: its global constants (0, -1, NaN, the int and float
limits) still come, the same on every machine.

Hypothesis has no setting for this; the hook is a private name, looked up at run time, and a
Hypothesis without it (older than 6.131) has no local pool to pin.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:  # pragma: no cover - the import path is Hypothesis's own
    from hypothesis.internal.conjecture import providers as _providers
except ImportError:  # pragma: no cover
    _providers = None  # type: ignore[assignment]

_depth = 0
_saved: Any = None

# Each example drawn afresh from the run's seeded random.
#
# Hypothesis's own generation (its "hypothesis" backend) follows each new example with up to five
# mutants of it (a span of choices copied over another of the same label, to make equal values
# meet) and begins a run with examples cut short at their simplest continuation. For a campaign
# that concentrates the draws: of 2,000 LegalizeOps graphs drawn at seed 0, 1,501 were distinct
# and their first nodes 633 (FuseOps: 1,389 and 607), and 488 of the 565 attribute forms their
# ops declare came. The same provider under another name takes the engine's path for other
# backends -- each example drawn from the seeded random alone: 2,000 distinct, 1,957 first nodes,
# 568 of 572 forms -- while a failure is replayed, and shrunk, by Hypothesis's provider as before.
# An example then depends on the seed and its place in the stream only, not on the run's length.
BACKEND = "passcheck-fresh"
try:  # pragma: no cover - the provider API is Hypothesis's (6.1xx)
    from hypothesis.internal.conjecture.providers import AVAILABLE_PROVIDERS, HypothesisProvider

    class FreshProvider(HypothesisProvider):
        """Hypothesis's provider, drawn through the engine's path for backends: no mutants."""

    AVAILABLE_PROVIDERS.setdefault(BACKEND, FreshProvider)
except ImportError:  # pragma: no cover
    BACKEND = "hypothesis"

# How a run draws (``--draws``): "hypothesis", Hypothesis's own generation (mutants included:
# faster where examples repeat, kernels and all); "independent", each example on its own.
DRAWS = ("hypothesis", "independent")


def backend(draws: str) -> str:
    """The Hypothesis backend for a run's ``draws``."""
    if draws not in DRAWS:
        raise ValueError(f"draws={draws!r}: one of {', '.join(DRAWS)}")
    return BACKEND if draws == "independent" else "hypothesis"


def _hookable() -> bool:
    return (_providers is not None and hasattr(_providers, "_get_local_constants")
            and hasattr(_providers, "Constants") and hasattr(_providers, "CONSTANTS_CACHE"))


@contextmanager
def seed_only() -> Iterator[None]:
    """Inside, a seeded Hypothesis run draws the same examples whatever the process imported."""
    global _depth, _saved
    if not _hookable():
        yield
        return
    if _depth == 0:
        empty = _providers.Constants()
        _saved = _providers._get_local_constants
        _providers._get_local_constants = lambda: empty
        _providers.CONSTANTS_CACHE.cache.clear()  # it holds the local pool filtered per draw kind
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            _providers._get_local_constants = _saved
            _providers.CONSTANTS_CACHE.cache.clear()


def examples_of(strategy: Any, n: int, seed: int = 0, draws: str = "hypothesis") -> list[Any]:
    """``n`` examples of ``strategy`` at ``seed``, drawn only (Hypothesis's generate phase, no
    database): what `passcheck list --forms`, the planted-bug tests and the benchmarks look at.
    Pinned like a run's draws (``seed_only``), so `list --forms --seed N` shows what a run at N
    draws whatever the process imported before."""
    from hypothesis import HealthCheck, given, settings

    out: list[Any] = []

    @settings(max_examples=n, database=None, deadline=None, suppress_health_check=list(HealthCheck),
              phases=["generate"], backend=backend(draws))
    @given(strategy)
    def draw(example: Any) -> None:
        out.append(example)

    setattr(draw, "_hypothesis_internal_use_seed", seed)  # noqa: B010 - Hypothesis reads it
    with seed_only():
        draw()
    return out
