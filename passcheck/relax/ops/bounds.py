"""Rounding-error building blocks shared by the op references (first-order forward analysis).

Notation: ``u`` is the unit roundoff of the graph's dtype. A correctly rounded operation in that
dtype returns ``x (1 + d) + t`` with ``|d| <= u`` and ``|t| <= underflow(u)``: the second term is
the gradual-underflow (subnormal) error, which matters for float16, whose subnormals start at
6e-5 (an epsilon of 1e-5 is already subnormal there).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from passcheck.relax.ops.base import UNIT_ROUNDOFF

F32_U = UNIT_ROUNDOFF["float32"]
SYM_MAX = 8  # upper bound on a symbolic dim at run time (relax_graphs draws <= 7; DrawContext.fits uses 8)

# half the spacing of the subnormals, per unit roundoff
_UNDERFLOW = {UNIT_ROUNDOFF["float16"]: 2.0**-25, UNIT_ROUNDOFF["float32"]: 2.0**-150,
              UNIT_ROUNDOFF["float64"]: 2.0**-1075}


def underflow(u: float) -> float:
    """Absolute error of one rounding into the subnormal range of the dtype with roundoff ``u``."""
    return _UNDERFLOW.get(u, 0.0)


def gamma(k: int | float, u: float) -> float:
    """Higham's gamma_k = k u / (1 - k u): relative error of ``k`` chained roundings (e.g. a sum of
    k + 1 terms, in any order)."""
    ku = float(k) * u
    return ku / (1.0 - ku) if ku < 0.5 else float("inf")


def internal_u(u: float) -> float:
    """Roundoff of ops that TOPI computes in float32 even for float16 tensors (layer_norm)."""
    return min(u, F32_U)


def contraction_error(contract: Callable[[np.ndarray, np.ndarray], np.ndarray],
                      av: np.ndarray, ae: np.ndarray, bv: np.ndarray, be: np.ndarray,
                      k: int, u: float) -> np.ndarray:
    """Error bound of ``contract(a, b)`` (a sum of ``k`` products per output, e.g. matmul, conv):
    propagated input error plus gamma_k times the sum of absolute products (any summation
    order, with or without FMA), plus one underflow per product and per addition."""
    aa, ab = np.abs(av), np.abs(bv)
    propagated = contract(aa, be) + contract(ae, ab) + contract(ae, be)
    own = gamma(k, u) * contract(aa + ae, ab + be)
    return propagated + own + 2 * k * underflow(u)


def sum_error(x_abs: np.ndarray, x_e: np.ndarray, axes: tuple[int, ...], k: int, u: float,
              keepdims: bool) -> np.ndarray:
    """Error bound of summing ``k`` terms along ``axes``: propagated errors add up, and
    recursive (or any other order of) summation adds gamma_{k-1} times the sum of |terms|."""
    sabs = np.sum(x_abs + x_e, axis=axes, keepdims=keepdims)
    se = np.sum(x_e, axis=axes, keepdims=keepdims)
    return se + gamma(max(k - 1, 0), u) * sabs + k * underflow(u)
