"""Dtype sets and the reference's numeric helpers shared by the elementwise op families.

Integer and bool values are exact in the reference (int64 arrays, TVM's wraparound modelled
by ``rounding.wrap``); an integer is *unknown* (``e == inf``) when it was cast or rounded from a
float that a correct implementation may have computed on the other side of a step (a cast
truncates, a comparison flips). ``margin`` is how far such a float may be from its reference:
exactly the tolerance the final comparison grants, so a decision that comparison would let
either way is never held against TVM.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import INT_RANGE, Approx, wrap
from passcheck.relax.ops.base import DrawContext, ValueInfo, broadcast_shapes
from passcheck.relax.tolerance import allowed

FLOATS = frozenset({"float32", "float16", "bfloat16", "float64"})
INTS = frozenset({"int8", "int16", "int32", "int64", "uint8"})
BOOL = frozenset({"bool"})
ALL = FLOATS | INTS | BOOL
# TVM 0.27's LLVM codegen has no float16 lowering for these intrinsics: a float16 call fails to
# compile ("unknown intrinsic tirx.acos", ...) although type inference accepts it. They are drawn
# in float16 all the same (the kept bug test_float16_math_intrinsics recognises the failure);
# tests/test_op_vocabulary_elementwise.py checks that it still fails
NO_FLOAT16 = frozenset({"acos", "acosh", "asin", "asinh", "atan", "cosh", "sinh", "atan2"})


def is_int(dtype: str | None) -> bool:
    return dtype in INT_RANGE


def unknown(*args: Approx) -> np.ndarray:
    """Elements (broadcast) where some operand is not known exactly."""
    out = np.zeros((), dtype=bool)
    for a in args:
        out = out | (np.asarray(a.e) != 0)
    return out


def int_result(v: np.ndarray, dtype: str, *args: Approx) -> Approx:
    """An integer op's exact result, wrapped into ``dtype``; unknown where an operand is."""
    w = wrap(v, dtype)
    bad = np.broadcast_to(unknown(*args), w.shape)
    return Approx(w, np.where(bad, np.inf, 0.0), dtype)


def margin(a: Approx) -> np.ndarray:
    """How far a correct implementation's value of ``a`` may be from ``a.v`` (the comparison's
    own tolerance); 0 where ``a`` is exact (a parameter, a constant, an exact op of them)."""
    e = np.asarray(a.e, dtype=np.float64)
    if is_int(a.dtype):
        return np.where(e != 0, np.inf, 0.0)
    tol = allowed(Approx(np.asarray(a.v, dtype=np.float64), e), a.dtype or "float32")
    return np.where(e != 0, tol, 0.0)


def decided(values: list[np.ndarray], dtype: str, undecided: np.ndarray, *args: Approx) -> Approx:
    """A result that a rounding step or a comparison decides: exact where the decision is sure,
    unknown where an operand's margin straddles the step (or an operand is NaN)."""
    v = np.asarray(values, dtype=np.int64 if is_int(dtype) else np.float64)
    bad = np.broadcast_to(np.asarray(undecided) | unknown_int(*args), v.shape)
    return Approx(v, np.where(bad, np.inf, 0.0), dtype)


def unknown_int(*args: Approx) -> np.ndarray:
    """Integer operands that are unknown (their margin is infinite)."""
    out = np.zeros((), dtype=bool)
    for a in args:
        if is_int(a.dtype):
            out = out | (np.asarray(a.e) != 0)
    return out


def as_float(a: Approx) -> np.ndarray:
    return np.asarray(a.v, dtype=np.float64)


def int_interval(lo: float, hi: float, dtype: str) -> tuple[float, float]:
    """``[lo, hi]`` if the exact results fit ``dtype``; else they may wrap anywhere in it."""
    rlo, rhi = INT_RANGE[dtype]
    if lo >= rlo and hi <= rhi:
        return float(lo), float(hi)
    return float(rlo), float(rhi)


def full_interval(dtype: str) -> tuple[float, float]:
    lo, hi = INT_RANGE[dtype]
    return float(lo), float(hi)


def same_dtype_operand(ctx: DrawContext, first: ValueInfo, lo: float, hi: float, *,
                       fresh: tuple[float, float] | None = None, style: str | None = None) -> int:
    """A second operand of ``first``'s dtype: an existing broadcast-compatible value within
    ``[lo, hi]`` (DAG fan-in) or a fresh input of a broadcast-compatible shape, in ``fresh``
    (default ``[lo, hi]``)."""
    if ctx.draw(st.booleans()):
        def fits(v: ValueInfo) -> bool:
            out = broadcast_shapes(first.shape, v.shape)
            return (v.vid != first.vid and v.dtype == first.dtype and out is not None and len(out) == first.rank
                    and ctx.fits(out) and v.lo >= lo and v.hi <= hi)

        other = ctx.pick(fits)
        if other is not None:
            return other.vid
    return ctx.fresh(broadcast_like(ctx, first.shape), *(fresh or (lo, hi)), dtype=first.dtype, style=style)


def broadcast_like(ctx: DrawContext, shape: tuple) -> tuple:
    """A shape that broadcasts against ``shape``: same, trailing suffix, with 1s, or scalar."""
    kind = ctx.draw(st.sampled_from(("same", "suffix", "ones", "scalar")))
    if kind == "same" or not shape:
        return tuple(shape)
    if kind == "scalar":
        return ()
    if kind == "suffix":
        k = ctx.draw(st.integers(1, len(shape)))
        return tuple(shape[len(shape) - k:])
    mask = ctx.draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
    return tuple(1 if m else d for m, d in zip(mask, shape))


def divisor(ctx: DrawContext, first: ValueInfo) -> int:
    """A fresh divisor bounded away from 0 (floats: [0.5, 2] in magnitude, integers: [1, 7]),
    and not -1 when the dividend may be the dtype's minimum (INT_MIN / -1 traps)."""
    neg = first.dtype != "uint8" and ctx.draw(st.booleans())
    if is_int(first.dtype):
        may_trap = first.lo <= INT_RANGE[first.dtype][0]
        lo, hi = (-7.0, -2.0 if may_trap else -1.0) if neg else (1.0, 7.0)
    else:
        lo, hi = (-2.0, -0.5) if neg else (0.5, 2.0)
    return ctx.fresh(broadcast_like(ctx, first.shape), lo, hi, dtype=first.dtype, style="uniform")


def typical_interval(dtype: str) -> tuple[float, float]:
    """A fresh operand's interval when the op puts no constraint on it."""
    if dtype == "bool":
        return 0.0, 1.0
    if is_int(dtype):
        lo, hi = INT_RANGE[dtype]
        return float(max(lo, -100)), float(min(hi, 100))
    return -1.0, 1.0


def relax_op(name: str) -> Any:
    from tvm.relax import op as R

    return getattr(R, name)
