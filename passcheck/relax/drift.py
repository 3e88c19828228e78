"""Drift or logic error: two computations of one function (a graph and its mutant through the
same pass; one module built two ways) that do not give the same numbers.

Each side has its own reference (float64 value and rounding bound, ``Approx``). Where the two
differ, each is held against its own reference with the tolerance model of ``tolerance.py``:

* both within their bounds: **drift**. The difference is rounding, which the computation is
  allowed (MT-DLCOMP found most of its "failures" were this, amplified by iterated mutation).
  Reported apart, with the error and the bound; never a finding by default.
* one beyond its bound, or the two structurally different (number of outputs, shape, dtype,
  an integer that differs, NaN where a finite number is due): a **logic** error, a finding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from passcheck.core.rounding import UNIT_ROUNDOFF, Approx
from passcheck.relax.tolerance import allowed, checkable, compare

EQUAL, DRIFT, LOGIC = "equal", "drift", "logic"


@dataclass(frozen=True)
class Difference:
    kind: str  # EQUAL | DRIFT | LOGIC
    message: str = ""
    error: float = 0.0  # the largest |a - b| seen (drift) or the failing element's error (logic)
    bound: float = 0.0  # what the tolerance model allowed there


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # numerically equal, +0 == -0, NaN where NaN
    both_nan = np.isnan(a) & np.isnan(b) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    return (a == b) | both_nan


def classify(first: list[np.ndarray], second: list[np.ndarray], ref_first: list[Approx],
             ref_second: list[Approx], names: tuple[str, str] = ("first", "second")) -> Difference:
    """Are ``first`` and ``second`` (outputs of two computations of one function) equal, apart
    by rounding only (drift), or apart by more (logic)?"""
    a_name, b_name = names
    if len(first) != len(second):
        return Difference(LOGIC, f"{a_name} returns {len(first)} tensors, {b_name} {len(second)}")
    worst: Difference | None = None
    for i, (a, b) in enumerate(zip(first, second)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return Difference(LOGIC, f"output {i}: {a_name} {a.dtype}{list(a.shape)}, {b_name} {b.dtype}{list(b.shape)}")
        same = _same(a, b)
        if same.all():
            continue
        dtype = str(a.dtype)
        if dtype not in UNIT_ROUNDOFF:
            idx = tuple(int(k) for k in np.argwhere(~same)[0])
            return Difference(LOGIC, f"output {i}{list(idx)}: {a_name} {a[idx]!r}, {b_name} {b[idx]!r} "
                                     f"({int((~same).sum())} {dtype} elements differ: no rounding allowed)")
        for got, ref, name in ((a, ref_first[i], a_name), (b, ref_second[i], b_name)):
            m = compare(got, ref, dtype)
            if m is not None:
                return Difference(LOGIC, f"{name} is wrong, not just rounded: " + m.describe(f"output {i}"),
                                  abs(m.got - m.want), m.allowed)
        # both within bound wherever their references are checkable; elsewhere (NaN/Inf
        # references) a difference is not numbers moving by rounding
        mask = checkable(ref_first[i], dtype) & checkable(ref_second[i], dtype)
        if (~same & ~mask).any():
            idx = tuple(int(k) for k in np.argwhere(~same & ~mask)[0])
            return Difference(LOGIC, f"output {i}{list(idx)}: {a_name} {a[idx]!r}, {b_name} {b[idx]!r} where the "
                                     "reference is not finite")
        diff = np.where(same, 0.0, np.abs(a.astype(np.float64) - b.astype(np.float64)))
        idx = tuple(int(k) for k in np.unravel_index(int(np.argmax(diff)), diff.shape)) if diff.ndim else ()
        bound = float(allowed(ref_first[i], dtype)[idx] + allowed(ref_second[i], dtype)[idx])
        d = Difference(DRIFT, f"output {i}{list(idx)}: {a_name} {a[idx]!r}, {b_name} {b[idx]!r}: |diff| "
                              f"{float(diff[idx]):.3g} within the rounding bound {bound:.3g} of both "
                              f"({int((~same).sum())} of {same.size} elements differ)", float(diff[idx]), bound)
        if worst is None or d.error > worst.error:
            worst = d
    return worst or Difference(EQUAL)
