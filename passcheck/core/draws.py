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


def examples_of(strategy: Any, n: int, seed: int = 0) -> list[Any]:
    """``n`` examples of ``strategy`` at ``seed``, drawn only (Hypothesis's generate phase, no
    database): what `passcheck list --forms`, the planted-bug tests and the benchmarks look at.
    Pinned like a run's draws (``seed_only``), so `list --forms --seed N` shows what a run at N
    draws whatever the process imported before."""
    from hypothesis import HealthCheck, given, settings

    out: list[Any] = []

    @settings(max_examples=n, database=None, deadline=None, suppress_health_check=list(HealthCheck),
              phases=["generate"])
    @given(strategy)
    def draw(example: Any) -> None:
        out.append(example)

    setattr(draw, "_hypothesis_internal_use_seed", seed)  # noqa: B010 - Hypothesis reads it
    with seed_only():
        draw()
    return out
