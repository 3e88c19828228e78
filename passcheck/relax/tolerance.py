"""Compare an output against a float64 reference with the reference's own error bound.

The bound (``Approx.e``) already accounts for dtype and accumulation length; ``SAFETY``
absorbs the first-order analysis' looseness (second-order terms, libm differences), and the
absolute floor covers results that are exactly zero in float64 but denormal in the dtype.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from passcheck.core.rounding import DTYPE_MAX, INT_RANGE, UNIT_ROUNDOFF, Approx

SAFETY = 8.0
# bfloat16 shares float32's exponent range (its smallest normal is 2^-126 too)
TINY = {"float32": 1e-30, "float16": 1e-6, "float64": 1e-300, "bfloat16": 1e-30}


@dataclass
class Mismatch:
    index: tuple[int, ...]
    got: float
    want: float
    allowed: float
    count: int
    total: int

    shape_note: str = ""

    def describe(self, name: str = "output") -> str:
        if self.shape_note:
            return f"{name}: {self.shape_note}"
        return (f"{name}{list(self.index)}: got {self.got!r}, reference {self.want!r} "
                f"(|diff| {abs(self.got - self.want):.3g} > allowed {self.allowed:.3g}); "
                f"{self.count} of {self.total} elements differ")


def checkable(ref: Approx, dtype: str) -> np.ndarray:
    """Elements where the reference is meaningful: finite and representable in ``dtype``.
    An integer or bool element is known exactly or not at all (e == inf: cast from a float
    within its error bound of a rounding boundary)."""
    if dtype in INT_RANGE:
        return ref.e == 0
    lim = DTYPE_MAX[dtype]
    return np.isfinite(ref.v) & np.isfinite(ref.e) & (np.abs(ref.v) + ref.e < lim * 0.5)


def allowed(ref: Approx, dtype: str, safety: float = SAFETY) -> np.ndarray:
    """How far from ``ref.v`` a correct result in ``dtype`` may be, elementwise (integers and
    bool: not at all, TVM's integer semantics are exact)."""
    if dtype in INT_RANGE:
        return np.zeros(np.shape(ref.v))
    return safety * ref.e + 4 * UNIT_ROUNDOFF[dtype] * np.abs(ref.v) + TINY[dtype]


def compare(got: np.ndarray, ref: Approx, dtype: str, safety: float = SAFETY) -> Mismatch | None:
    """None when ``got`` is within tolerance of ``ref`` wherever the reference is checkable."""
    if tuple(got.shape) != tuple(ref.v.shape):
        return Mismatch((), float("nan"), float("nan"), 0.0, got.size, ref.v.size,
                        shape_note=f"shape {list(got.shape)}, the reference has shape {list(ref.v.shape)}")
    integer = dtype in INT_RANGE
    # integers compare in int64: float64 cannot hold every int64
    g = got.astype(np.int64) if integer else got.astype(np.float64)
    mask = checkable(ref, dtype)
    bound = allowed(ref, dtype, safety)
    # NaN in got counts as bad. Where the reference is NaN or Inf (NaN/Inf inputs, only when
    # asked) nothing is checked: how NaN propagates through max/min differs between NumPy and
    # LLVM (maxnum) without either being wrong; before/after comparisons cover those elements.
    bad = mask & (g != ref.v) if integer else mask & ~(np.abs(g - ref.v) <= bound)
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return Mismatch(idx, g[idx].item(), ref.v[idx].item(), float(bound[idx]), int(bad.sum()), int(bad.size))
