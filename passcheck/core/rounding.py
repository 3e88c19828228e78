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

# u = 2^-p for a p-bit significand (implicit bit included) rounded to nearest: bfloat16 has 8
UNIT_ROUNDOFF = {"float32": 2.0**-24, "float16": 2.0**-11, "float64": 2.0**-53, "bfloat16": 2.0**-8}
DTYPE_MAX = {"float32": 3.4e38, "float16": 65504.0, "float64": 1.7e308, "bfloat16": 3.38e38}

# Integer dtypes (and bool) are exact: every value in range is representable, and TVM's
# arithmetic on them wraps modulo 2^bits (LLVM's add/sub/mul/shl/trunc without nsw/nuw flags).
INT_RANGE = {"int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
             "int64": (-2**63, 2**63 - 1), "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1),
             "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1), "bool": (0, 1)}

# half the spacing of the subnormals, per unit roundoff (bfloat16 has float32's exponent range:
# its subnormals are spaced 2^-133)
_UNDERFLOW = {UNIT_ROUNDOFF["float16"]: 2.0**-25, UNIT_ROUNDOFF["float32"]: 2.0**-150,
              UNIT_ROUNDOFF["float64"]: 2.0**-1075, UNIT_ROUNDOFF["bfloat16"]: 2.0**-134}


def unit_roundoff(dtype: str) -> float:
    """``u`` of a float dtype; 0 for integers and bool, which round nothing (they wrap)."""
    return UNIT_ROUNDOFF.get(dtype, 0.0)


def wrap(v: np.ndarray, dtype: str) -> np.ndarray:
    """Integer values (an int64 array computed with int64's own wraparound) reduced modulo
    2^bits into ``dtype``'s range, as int64: the reference's representation of integer values
    (float64 cannot hold every int64 exactly). 2^bits divides 2^64, so wrapping int64 results
    again is exact; bool keeps the low bit, as LLVM's i1 arithmetic does."""
    a = np.asarray(v).astype(np.int64)
    if dtype == "bool":
        return a & 1
    return a.astype(dtype).astype(np.int64)


@dataclass
class Approx:
    """A reference value ``v`` (float64; int64 for integer and bool dtypes, which float64 cannot
    all hold) and a bound ``e`` on how far a correct lower-precision implementation may be from
    it (elementwise, same shape)."""

    v: np.ndarray
    e: np.ndarray
    # the dtype the value has in the graph (None: unknown, a float); integer and bool values
    # are exact (e == 0) or unknown (e == inf: an integer cast from an uncertain float)
    dtype: str | None = None

    @staticmethod
    def exact(a: np.ndarray) -> Approx:
        dtype = str(np.asarray(a).dtype)
        v = np.asarray(a, dtype=np.int64 if dtype in INT_RANGE else np.float64)
        return Approx(v, np.zeros(v.shape), dtype)


def underflow(u: float) -> float:
    """Absolute error of one rounding into the subnormal range of the dtype with roundoff ``u``."""
    return _UNDERFLOW.get(u, 0.0)


def gamma(k: int | float, u: float) -> float:
    """Higham's gamma_k = k u / (1 - k u): relative error of ``k`` chained roundings (e.g. a sum of
    k + 1 terms, in any order)."""
    ku = float(k) * u
    return ku / (1.0 - ku) if ku < 0.5 else float("inf")
