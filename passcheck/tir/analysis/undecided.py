"""When Z3 answers unknown: a budget, not a verdict.

An access Z3 gave up on (a timeout, typically over products of symbolic extents) may still be
out of bounds exactly where index arithmetic is most fragile: at the domain's extremes and where
it wraps or narrows. Two more tries come before it is *unknown*:

1. **Boundary points.** Every shape var at its limits and around the dtype limits -- its lower
   bound, 1, 2, 2^k - 1, 2^k, 2^k + 1 for k in ``BOUNDARY_BITS`` (where int8/int16/int32 wrap and
   an int64 index narrowed to int32 goes negative), its dtype's maximum -- all together at one
   kind of value, then one at a time with the others at 1. With the shape vars fixed, what is left
   is linear in the loop variables and Z3 answers at once; a model is confirmed concretely as any
   other (``bounds._confirm``).
2. **Bit-blasting.** The encoding is bit-vectors of each dtype already (machine semantics); the
   question goes again to a solver that bit-blasts it to SAT (the complete procedure for
   bit-vectors, which does not depend on the heuristics that gave up on nonlinear products), with
   a time budget of its own.

Only what neither decides is unknown. Points at the boundaries only ever find violations: that
none is found there proves nothing, so it is the second try that can prove an access safe.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import z3

from passcheck.tir.analysis.concrete import dtype_of, int_info, is_int

BOUNDARY_BITS = (7, 8, 15, 16, 31, 32, 63)
POINT_MS = 1000  # Z3 time per boundary point (linear once the shape vars are fixed: most take ~0.1 s)
POINTS_S = 6.0  # the whole boundary search, per access group
BITBLAST_MS = 4000  # the bit-blasting retry, per access group


def boundary_values(lo: int, hi: int) -> list[int]:
    """The values a shape var in ``[lo, hi]`` is tried at, smallest first."""
    values = {lo, lo + 1, 1, 2, hi, hi - 1}
    for k in BOUNDARY_BITS:
        values |= {2**k - 1, 2**k, 2**k + 1}
    return sorted(v for v in values if lo <= v <= hi)


def boundary_points(limits: list[tuple[Any, int, int]]) -> Iterator[list[tuple[Any, int]]]:
    """Assignments of the shape vars ``(term, lo, hi)``: every var at the i-th boundary value of
    its own range together, then each var alone at each of its values, the others at 1 (or their
    lower bound)."""
    values = [boundary_values(lo, hi) for _, lo, hi in limits]
    if not limits or not all(values):
        return
    for i in range(max(len(v) for v in values)):
        yield [(t, vs[min(i, len(vs) - 1)]) for (t, _, _), vs in zip(limits, values, strict=True)]
    if len(limits) == 1:
        return
    rest = [(t, max(lo, min(1, hi))) for t, lo, hi in limits]
    for j, vs in enumerate(values):
        for v in vs:
            point = list(rest)
            point[j] = (limits[j][0], v)
            yield point


def free_shape_vars(free: dict[int, tuple[Any, Any]], limits: dict[int, tuple[int, int]],
                    caps: dict[int, int]) -> list[tuple[Any, int, int]]:
    """``(term, lo, hi)`` of each integer variable free in the encoding (shape vars, scalar
    parameters): from its known lower limit (else 0) to the most its dtype or the domain allows."""
    out = []
    for k, (var, term) in free.items():
        dt = dtype_of(var)
        if not is_int(dt) or not isinstance(term, z3.BitVecRef):
            continue
        bits, signed = int_info(dt)
        top = 2 ** (bits - 1) - 1 if signed else 2**bits - 1
        lo = limits.get(k, (0, top))[0]
        out.append((term, lo, min(caps.get(k, top), top)))
    return out


def search_boundaries(solver: Any, limits: list[tuple[Any, int, int]], confirm: Callable[[Any], bool],
                      timeout_ms: int) -> bool:
    """Ask ``solver`` (its path and out-of-range condition asserted) at each boundary point, within
    ``POINTS_S``; True once ``confirm`` accepts a model (a violation it has recorded)."""
    deadline = time.perf_counter() + POINTS_S
    solver.set("timeout", POINT_MS)
    try:
        for point in boundary_points(limits):
            if time.perf_counter() > deadline:
                return False
            solver.push()
            try:
                solver.add(*[t == z3.BitVecVal(v, t.size(), ctx=t.ctx) for t, v in point])
                if solver.check() == z3.sat and confirm(solver.model()):
                    return True
            finally:
                solver.pop()
        return False
    finally:
        solver.set("timeout", timeout_ms)


def bitblast(assertions: list[Any], ctx: Any, ms: int = BITBLAST_MS) -> tuple[Any, Any]:
    """(answer, model or None) of ``assertions`` bit-blasted to SAT within ``ms``."""
    tactic = z3.Then(z3.Tactic("simplify", ctx=ctx), z3.Tactic("solve-eqs", ctx=ctx),
                     z3.Tactic("bit-blast", ctx=ctx), z3.Tactic("sat", ctx=ctx), ctx=ctx)
    s = tactic.solver()
    s.set("timeout", ms)
    s.add(*assertions)
    answer = s.check()
    return answer, (s.model() if answer == z3.sat else None)
