"""Where an example's time goes: named stages timed where the work happens.

Code that does a known kind of work (building IR, running the pass, compiling, running the
compiled code, the float64 reference, Z3) wraps it in ``stage("name")``; the session collects
the stages of one example (``collect()``) and ships them with its result. Times are exclusive:
a stage nested in another (a compile inside a property check) is taken out of the outer one.

Times are CPU seconds of the process and of the programs it waited for (the linker): on a
machine shared with other work they still say what an example costs, where wall time would
say how busy the machine was.

Stage names in use: generate (drawing, in the runner), build, prerequisites, pass, lower
(Relax and TIR lowering, TVM's passes), codegen (LLVM machine code, linking, loading), run,
reference, z3, check (the rest of the properties' own work).

Beside the stages, ``count("name")`` tallies events of the example (the kernel cache's hits and
misses); a collection holds them in its ``counts``.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager


class Spent(dict[str, float]):
    """Stage -> CPU seconds, and ``counts``: event -> how many times."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}


# One collection at a time per process: the worker checks one example at a time.
_stack: list[list[float]] = []  # per open stage: [start, time taken by nested stages]
_totals: Spent | None = None


def cpu() -> float:
    """CPU seconds of this process (all its threads) and of its waited-for children."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time the block as ``name`` (outside a ``collect()``, it only runs the block)."""
    if _totals is None:
        yield
        return
    frame = [cpu(), 0.0]
    _stack.append(frame)
    try:
        yield
    finally:
        _stack.pop()
        spent = cpu() - frame[0]
        if _totals is not None:
            _totals[name] = _totals.get(name, 0.0) + spent - frame[1]
        if _stack:
            _stack[-1][1] += spent


def count(name: str, n: int = 1) -> None:
    """Tally ``n`` events ``name`` (outside a ``collect()``, nothing)."""
    if _totals is not None:
        _totals.counts[name] = _totals.counts.get(name, 0) + n


@contextmanager
def collect() -> Iterator[Spent]:
    """Collect the stages timed (and the events counted) inside the block into what it yields."""
    global _totals
    saved, saved_stack = _totals, list(_stack)
    _totals = Spent()
    _stack.clear()
    try:
        yield _totals
    finally:
        _totals = saved
        _stack[:] = saved_stack


def add(totals: dict[str, float], more: dict[str, float], scale: float = 1.0) -> None:
    for k, v in more.items():
        totals[k] = totals.get(k, 0.0) + v * scale


def add_counts(totals: dict[str, int], more: dict[str, int]) -> None:
    for k, v in more.items():
        totals[k] = totals.get(k, 0) + v
