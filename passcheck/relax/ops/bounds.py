"""Rounding-error bounds of whole ops (contractions, sums), built on ``core.rounding``'s model
(first-order forward analysis; ``u`` is the unit roundoff of the graph's dtype)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from passcheck.core.rounding import UNIT_ROUNDOFF, gamma, underflow

__all__ = ["SYM_MAX", "contraction_error", "gamma", "internal_u", "sum_error", "underflow"]

F32_U = UNIT_ROUNDOFF["float32"]
SYM_MAX = 8  # upper bound on a symbolic dim at run time (relax_graphs draws <= 7; DrawContext.fits uses 8)

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
