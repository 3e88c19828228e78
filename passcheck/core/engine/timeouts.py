"""The per-example time limit: the one ``--timeout`` sets, or one adapted to the run itself.

A fixed limit (the old 60 s) makes every hanging example wait a minute, twice (once in its
batch, once alone): a pass that hangs on one input in ten needs hours for 200 examples. What
a hang is depends on the run: the examples of a FoldConstant run take tenths of a second, those
of a seed model seconds. So, unless ``--timeout`` is given, the limit is ``FACTOR`` times the
95th percentile of the example times measured so far in this run (every worker's, the shrinking
stage's too), at least ``FLOOR`` and at most ``CAP``; until ``MIN_SAMPLES`` examples are measured
it is ``START``.

An adaptive limit is a guess from the run so far, and a slow example on a loaded machine is no
bug: an example cut by it is run again alone with ``CONFIRM`` times the limit, and only a second
hang is a finding (a true hang costs three limits, a few seconds each, instead of two minutes).
Shrinking a hang tries its candidates once each, under the limit alone, and confirms the smallest.
"""

from __future__ import annotations

import bisect
import threading

FACTOR = 20.0
FLOOR = 5.0
CAP = 300.0
START = 30.0
MIN_SAMPLES = 5
CONFIRM = 2.0


class TimeLimit:
    """``limit.seconds``: the limit now; ``limit.observe(s)`` after each example that finished.
    Shared by the threads that drive the workers (a lock guards the samples)."""

    def __init__(self, fixed: float | None = None) -> None:
        self.fixed = fixed
        # an example cut by an adapted limit is run again alone with CONFIRM times the limit before
        # its hang counts; shrinking turns it off (each hanging candidate would cost three limits)
        # and confirms only the example it ends with
        self.confirm = True
        self._samples: list[float] = []
        self._lock = threading.Lock()

    @property
    def adaptive(self) -> bool:
        return self.fixed is None

    def observe(self, seconds: float) -> None:
        if self.fixed is None and seconds >= 0:
            with self._lock:
                bisect.insort(self._samples, seconds)

    def p95(self) -> float | None:
        with self._lock:
            n = len(self._samples)
            if n < MIN_SAMPLES:
                return None
            return self._samples[min(n - 1, int(0.95 * n))]

    @property
    def seconds(self) -> float:
        if self.fixed is not None:
            return self.fixed
        p95 = self.p95()
        return START if p95 is None else min(CAP, max(FLOOR, FACTOR * p95))

    def describe(self) -> str:
        """How the limit was set, for a timeout finding's message."""
        if self.fixed is not None:
            return "--timeout"
        p95 = self.p95()
        if p95 is None:
            return f"the run's first examples: {START:g} s until {MIN_SAMPLES} are measured; --timeout S sets it"
        return (f"{FACTOR:g}x the run's p95 example time {p95:.3g} s, at least {FLOOR:g} s; "
                "--timeout S sets it")
