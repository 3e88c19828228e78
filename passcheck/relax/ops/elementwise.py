"""Elementwise ops: broadcasting binary arithmetic and unary activations."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx, underflow
from passcheck.relax.ops.base import (
    DrawContext,
    Drawn,
    OpSpec,
    ValueInfo,
    broadcast_shapes,
    finite_interval,
    interval_mul,
    register_op,
)
from passcheck.relax.ops.numeric import (
    FLOATS,
    INTS,
    broadcast_like,
    divisor,
    int_interval,
    int_result,
    is_int,
)


def _R() -> Any:
    from tvm.relax import op as R

    return R


def _second_operand(ctx: DrawContext, first: ValueInfo, lo: float, hi: float, *,
                    positive_away_from_zero: bool = False) -> int | None:
    """Reuse a broadcast-compatible value (DAG fan-in) or create a fresh input."""
    if not positive_away_from_zero and ctx.draw(st.booleans()):
        other = ctx.pick(lambda v: v.vid != first.vid and v.dtype == first.dtype
                         and broadcast_shapes(first.shape, v.shape) is not None
                         and len(broadcast_shapes(first.shape, v.shape) or ()) == first.rank
                         and ctx.fits(broadcast_shapes(first.shape, v.shape) or ()))
        if other is not None:
            return other.vid
    shape = broadcast_like(ctx, first.shape)
    return ctx.fresh(shape, lo, hi, dtype=first.dtype)


def _binary(name: str, npfn: Any, interval: Any, err: Any, int_fn: Any, *, denominator: bool = False) -> OpSpec:
    """``int_fn``: the op on int64 operands, wrapped into the dtype afterwards (TVM's integer
    arithmetic wraps; its integer ``divide`` truncates towards zero)."""

    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        if is_int(first.dtype):
            return _int_draw(ctx, first)
        if denominator:
            # Denominators are fresh inputs bounded away from zero: division is still exercised
            # with a large dynamic range, but never produces Inf from the data alone.
            sign = ctx.draw(st.sampled_from((1.0, -1.0)))
            lo, hi = (0.5, 2.0) if sign > 0 else (-2.0, -0.5)
            b = ctx.fresh(broadcast_like(ctx, first.shape), lo, hi, style="uniform", dtype=first.dtype)
        else:
            b = _second_operand(ctx, first, -1.0, 1.0)
        if b is None:
            return None
        info = ctx.info(b)
        out = broadcast_shapes(first.shape, info.shape)
        if out is None or not ctx.fits(out):
            return None
        swap = (not denominator) and ctx.draw(st.booleans())
        args = (b, first.vid) if swap else (first.vid, b)
        # the interval follows the operand order actually emitted (b - first when swapped)
        x, y = (info, first) if swap else (first, info)
        lo, hi = interval((x.lo, x.hi), (y.lo, y.hi))
        if not finite_interval(lo, hi, 1e6):
            return None
        return Drawn(args, {}, out, lo, hi)

    def _int_draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        b = divisor(ctx, first) if denominator else _second_operand(ctx, first, -100.0, 100.0)
        info = ctx.info(b)
        out = broadcast_shapes(first.shape, info.shape)
        if out is None or not ctx.fits(out):
            return None
        if denominator:  # |a / b| <= |a| for |b| >= 1
            m = max(abs(first.lo), abs(first.hi))
            lo, hi = -m, m
        else:
            lo, hi = interval((first.lo, first.hi), (info.lo, info.hi))
        return Drawn((first.vid, b), {}, out, *int_interval(lo, hi, first.dtype))

    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        return getattr(_R(), name)(args[0], args[1])

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        a, b = args
        if is_int(a.dtype):
            return int_result(int_fn(np.asarray(a.v, np.int64), np.asarray(b.v, np.int64)), a.dtype, a, b)
        v = npfn(a.v, b.v)
        # one rounding of the result: relative u, and absolute into the subnormal range
        return Approx(v, err(a, b, v) + u * np.abs(v) + underflow(u))

    return register_op(OpSpec(name, f"relax.{name}", "broadcast", draw, build, reference, symbolic=True,
                              dtypes=FLOATS | INTS, tags=frozenset({"binary"})))


_binary("add", np.add, lambda a, b: (a[0] + b[0], a[1] + b[1]), lambda a, b, v: a.e + b.e, np.add)
_binary("subtract", np.subtract, lambda a, b: (a[0] - b[1], a[1] - b[0]),
        lambda a, b, v: a.e + b.e, np.subtract)
_binary("multiply", np.multiply, interval_mul,
        lambda a, b, v: np.abs(a.v) * b.e + np.abs(b.v) * a.e + a.e * b.e, np.multiply)


def _div_interval(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return interval_mul(a, (1.0 / b[1], 1.0 / b[0]))


def _div_err(a: Approx, b: Approx, v: np.ndarray) -> np.ndarray:
    # first order: |d(a/b)| <= |da|/|b| + |a| |db| / b^2 (b bounded away from 0 by construction)
    den = np.maximum(np.abs(b.v) - b.e, 1e-300)
    return a.e / den + np.abs(a.v) * b.e / den**2


def _trunc_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # a - fmod(a, b) is a multiple of b, nearer to 0 than a: no overflow, exact floor division
    return (a - np.fmod(a, b)) // b


_binary("divide", np.divide, _div_interval, _div_err, _trunc_divide, denominator=True)


def _unary(name: str, npfn: Any, interval: Any, slope: Any, *, ulps: float = 1.0, floor: float = 0.0,
           pattern: str = "elemwise", max_in: float = 1e6, peak_at_zero: bool = False,
           dtypes: frozenset[str] = FLOATS) -> OpSpec:
    """``slope(x)`` bounds |f'| near x (propagates input error); the op's own error is
    ``ulps * u * (|f(x)| + floor)``: ``floor`` > 0 for implementations whose error is absolute
    rather than relative (TVM's tanh is a polynomial: ~1.5 u absolute error even at x ~ 1e-8)."""

    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        if first.bound > max_in:
            return None
        lo, hi = interval(first.lo, first.hi)
        return Drawn((first.vid,), {}, first.shape, lo, hi)

    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        fn = getattr(_R(), name, None) or getattr(_R().nn, name)
        return fn(args[0])

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        (a,) = args
        if is_int(a.dtype):  # relu: exact
            return int_result(npfn(np.asarray(a.v, np.int64)), a.dtype, a)
        v = npfn(a.v)
        # The largest |f'| over [v - e, v + e]: for these ops |f'| peaks at 0 and falls away from
        # it, so it is at 0 when the interval contains 0, else at the end nearer to 0.
        lo, hi = a.v - a.e, a.v + a.e
        nearest = np.where((lo <= 0) & (hi >= 0), 0.0, np.where(np.abs(lo) < np.abs(hi), lo, hi))
        s = np.maximum(np.maximum(slope(lo), slope(hi)), slope(nearest) if peak_at_zero else 0.0)
        return Approx(v, s * a.e + ulps * u * (np.abs(v) + floor))

    return register_op(OpSpec(name, f"relax.{name}" if name != "relu" else "relax.nn.relu", pattern,
                              draw, build, reference, symbolic=True, dtypes=dtypes, tags=frozenset({"unary"})))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


_unary("relu", lambda x: np.maximum(x, 0), lambda lo, hi: (max(lo, 0.0), max(hi, 0.0)),
       lambda x: np.ones_like(x), dtypes=FLOATS | INTS, max_in=math.inf)  # exact at any magnitude
_unary("sigmoid", _sigmoid, lambda lo, hi: (0.0, 1.0),
       lambda x: _sigmoid(x) * (1 - _sigmoid(x)) + 1e-300, ulps=8.0, floor=1.0, peak_at_zero=True)
_unary("tanh", np.tanh, lambda lo, hi: (-1.0, 1.0), lambda x: 1 - np.tanh(x) ** 2, ulps=8.0, floor=1.0, peak_at_zero=True)
# exp's slope is exp itself; its interval keeps inputs small enough that no float16/32 overflow.
_unary("exp", np.exp, lambda lo, hi: (math.exp(lo), math.exp(hi)), np.exp, ulps=8.0, max_in=8.0)
