"""The tolerance model's building blocks, for every IR family: unit roundoff and range of each
float dtype, a value with an error bound, and first-order rounding-error terms.

Notation: ``u`` is the unit roundoff of a dtype. A correctly rounded operation in that dtype
returns ``x (1 + d) + t`` with ``|d| <= u`` and ``|t| <= underflow(u)``: the second term is the
gradual-underflow (subnormal) error, which matters for float16, whose subnormals start at 6e-5
(an epsilon of 1e-5 is already subnormal there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

UNIT_ROUNDOFF = {"float32": 2.0**-24, "float16": 2.0**-11, "float64": 2.0**-53}
DTYPE_MAX = {"float32": 3.4e38, "float16": 65504.0, "float64": 1.7e308}

# half the spacing of the subnormals, per unit roundoff
_UNDERFLOW = {UNIT_ROUNDOFF["float16"]: 2.0**-25, UNIT_ROUNDOFF["float32"]: 2.0**-150,
              UNIT_ROUNDOFF["float64"]: 2.0**-1075}


@dataclass
class Approx:
    """A float64 reference value ``v`` and a bound ``e`` on how far a correct lower-precision
    implementation may be from it (elementwise, same shape)."""

    v: np.ndarray
    e: np.ndarray

    @staticmethod
    def exact(a: np.ndarray) -> Approx:
        v = np.asarray(a, dtype=np.float64)
        return Approx(v, np.zeros_like(v))


def underflow(u: float) -> float:
    """Absolute error of one rounding into the subnormal range of the dtype with roundoff ``u``."""
    return _UNDERFLOW.get(u, 0.0)


def gamma(k: int | float, u: float) -> float:
    """Higham's gamma_k = k u / (1 - k u): relative error of ``k`` chained roundings (e.g. a sum of
    k + 1 terms, in any order)."""
    ku = float(k) * u
    return ku / (1.0 - ku) if ku < 0.5 else float("inf")
