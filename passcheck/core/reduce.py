"""Delta debugging's candidates for a sequence of independent parts (applied mutations, the
passes of a sequence): the sequence with one chunk removed, coarse chunks first, down to
single elements. The engine keeps the first candidate that still fails the same way and asks
again, which makes this ddmin's "reduce to complement" loop."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")


def without_chunks(seq: Sequence[T], keep_at_least: int = 0) -> Iterator[tuple[T, ...]]:
    """``seq`` minus one chunk, for chunks of len/2, len/4, ..., 1 elements (no duplicates); never
    shorter than ``keep_at_least``."""
    n = len(seq)
    seen: set[tuple[int, int]] = set()
    parts = 2
    while n:
        size = max(1, -(-n // parts))
        for start in range(0, n, size):
            span = (start, min(n, start + size))
            if span in seen or n - (span[1] - span[0]) < keep_at_least:
                continue
            seen.add(span)
            yield tuple(seq[:span[0]]) + tuple(seq[span[1]:])
        if size == 1:
            break
        parts *= 2
