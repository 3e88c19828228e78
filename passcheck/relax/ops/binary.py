"""Binary elementwise ops beyond add/subtract/multiply/divide: division variants, max/min,
float math (atan2, power, log_add_exp), bitwise and logical ops, shifts.

Integer semantics are TVM's (LLVM's): wraparound, floor/trunc division as named, arithmetic
right shift of signed values, logical of unsigned. Undefined behaviour is never drawn: a zero
divisor, ``INT_MIN / -1`` (SIGFPE on x86), and shift amounts outside ``[0, bits)`` (LLVM's shl,
ashr and lshr give poison there; TVM lowers shifts to them and documents nothing else).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from passcheck.core.rounding import Approx, underflow
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, broadcast_shapes, register_op
from passcheck.relax.ops.numeric import (
    BOOL,
    FLOATS,
    INTS,
    as_float,
    broadcast_like,
    decided,
    divisor,
    full_interval,
    int_interval,
    int_result,
    is_int,
    margin,
    relax_op,
    same_dtype_operand,
    typical_interval,
)

Interval = tuple[float, float]


def _build(name: str) -> Callable[[list[Any], dict[str, Any]], Any]:
    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        return relax_op(name)(args[0], args[1])

    return build


def _drawn(ctx: DrawContext, a: ValueInfo, b: int, lo: float, hi: float, dtype: str | None = None) -> Drawn | None:
    out = broadcast_shapes(a.shape, ctx.info(b).shape)
    if out is None or not ctx.fits(out):
        return None
    return Drawn((a.vid, b), {}, out, lo, hi, dtype)


def _corners(f: Callable[[float, float], float], a: Interval, b: Interval) -> Interval:
    vals = [f(x, y) for x, y in itertools.product(a, b)]
    return min(vals), max(vals)


def _box_spread(f: Callable[[np.ndarray, np.ndarray], np.ndarray], a: Approx, b: Approx) -> np.ndarray:
    """max |f(x, y) - f(a, b)| over the error box, for ``f`` monotone in each argument."""
    av, bv, ae, be = as_float(a), as_float(b), np.asarray(a.e, float), np.asarray(b.e, float)
    fv = f(av, bv)
    out = np.zeros(np.shape(fv))
    for sa, sb in itertools.product((-1.0, 1.0), repeat=2):
        out = np.maximum(out, np.abs(f(av + sa * ae, bv + sb * be) - fv))
    return out


# -- division variants: floats decide a quotient step, integers are exact ----------------------------

def _quotient(a: Approx, b: Approx, step: Callable[[np.ndarray], np.ndarray],
              u: float) -> tuple[np.ndarray, np.ndarray]:
    """``step(a / b)`` and where it is undecided: a correct implementation computes a / b from
    operands within their margins and rounds the quotient: once, or twice through a reciprocal
    (2 u |q| covers both)."""
    av, bv, ma, mb = as_float(a), as_float(b), margin(a), margin(b)
    q = av / bv
    qs = [(av + sa * ma) / (bv + sb * mb) for sa, sb in itertools.product((-1.0, 1.0), repeat=2)]
    lo, hi = np.minimum.reduce(qs), np.maximum.reduce(qs)
    slack = 2 * u * np.abs(q)
    return step(q), step(lo - slack) != step(hi + slack)


def _division(name: str, dtypes: frozenset[str], int_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
              step: Callable[[np.ndarray], np.ndarray] | None) -> OpSpec:
    """floor_divide (step floor), floor_mod (floor), mod (trunc). ``step is None``: the quotient."""

    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        b = divisor(ctx, first)
        info = ctx.info(b)
        m = max(abs(first.lo), abs(first.hi))
        if name == "floor_divide":
            lo, hi = -m / min(abs(info.lo), abs(info.hi)), m / min(abs(info.lo), abs(info.hi))
            lo, hi = math.floor(lo), math.ceil(hi)
        else:  # a remainder is smaller than the divisor, with the dividend's (mod) or divisor's sign
            d = max(abs(info.lo), abs(info.hi))
            lo, hi = (0.0, d) if first.dtype == "uint8" else (-d, d)
        if is_int(first.dtype):
            lo, hi = int_interval(lo, hi, first.dtype)
        return _drawn(ctx, first, b, lo, hi)

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        a, b = args
        dtype = a.dtype or "float32"
        if is_int(dtype):
            return int_result(int_fn(np.asarray(a.v, np.int64), np.asarray(b.v, np.int64)), dtype, a, b)
        f = np.floor if name != "mod" else np.trunc
        q, undecided = _quotient(a, b, f, u)
        if name == "floor_divide":
            return decided(q, dtype, undecided | np.isnan(q), a, b)
        av, bv = as_float(a), as_float(b)
        r = av - q * bv
        # r = a - q b: the operands' errors, q b's rounding and the subtraction's (or an fmod,
        # exact, and one corrective addition of b): within 2 u (|q b| + |r| + |b|)
        e = np.asarray(a.e, float) + np.abs(q) * np.asarray(b.e, float) + 2 * u * (np.abs(q * bv) + np.abs(r) + np.abs(bv))
        e = e + 2 * underflow(u)
        return Approx(r, np.where(undecided | np.isnan(r), np.inf, e), dtype)

    # "step": the quotient's floor/trunc decides the result, unknown within the rounding margin
    return register_op(OpSpec(name, f"relax.{name}", "broadcast", draw, _build(name), reference, symbolic=True,
                              dtypes=dtypes, tags=frozenset({"binary", "step"})))


def _trunc_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.fmod(a, b)


_division("floor_divide", FLOATS | INTS, np.floor_divide, np.floor)
_division("floor_mod", FLOATS | INTS, np.mod, np.floor)
# bfloat16 mod fails to compile ("dtype mismatch on BufferStore: buffer's dtype is T.uint16";
# floor_mod compiles): drawn, and kept (test_dtype_pairs_that_do_not_compile)
_division("mod", FLOATS | INTS, _trunc_mod, np.trunc)


# -- maximum, minimum: exact selections ---------------------------------------------------------

def _select(name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> OpSpec:
    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        b = same_dtype_operand(ctx, first, *typical_interval(first.dtype))
        info = ctx.info(b)
        lo, hi = fn(np.array([first.lo, first.hi]), np.array([info.lo, info.hi]))
        return _drawn(ctx, first, b, float(lo), float(hi))

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        a, b = args
        dtype = a.dtype or "float32"
        if is_int(dtype):
            return int_result(fn(a.v, b.v), dtype, a, b)
        v = fn(as_float(a), as_float(b))
        e = np.maximum(np.asarray(a.e, float), np.asarray(b.e, float)) + np.zeros(np.shape(v))
        # NaN in: NumPy gives NaN, TVM (maxnum or a select) the other operand: unknown, as max/min's
        return Approx(v, np.where(np.isnan(v), np.inf, e), dtype)

    return register_op(OpSpec(name, f"relax.{name}", "broadcast", draw, _build(name), reference, symbolic=True,
                              dtypes=FLOATS | INTS, tags=frozenset({"binary"})))


_select("maximum", np.maximum)
_select("minimum", np.minimum)


# -- float math ---------------------------------------------------------------------------------------

def _atan2_draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    b = same_dtype_operand(ctx, first, -ctx.limit, ctx.limit, fresh=(-1.0, 1.0))
    return _drawn(ctx, first, b, -math.pi, math.pi)


def _atan2_ref(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    y, x = args
    yv, xv, ey, ex = as_float(y), as_float(x), np.asarray(y.e, float), np.asarray(x.e, float)
    v = np.arctan2(yv, xv)
    r = np.hypot(yv, xv)
    # |grad atan2| = 1 / r; over the error box r shrinks by at most ex + ey. The branch cut
    # (x < 0, y = 0) makes the result jump by 2 pi: unknown where y's margin straddles 0 there.
    near = np.maximum(r - ex - ey, 0.0)
    spread = np.where(ex + ey == 0, 0.0, np.where(near > 0, (ex + ey) / np.where(near > 0, near, 1.0), np.inf))
    my = margin(y)
    cut = (xv - margin(x) < 0) & (np.abs(yv) <= my) & (my > 0)
    return Approx(v, np.where(cut, np.inf, spread + 4 * u * np.abs(v)), y.dtype)


# (float16 too: it does not compile, a kept TVM bug, test_float16_math_intrinsics)
register_op(OpSpec("atan2", "relax.atan2", "broadcast", _atan2_draw, _build("atan2"), _atan2_ref, symbolic=True,
                   dtypes=FLOATS, tags=frozenset({"binary"})))


def _power_draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    """Positive bases only (a negative base is NaN for most exponents): ``first`` as the base
    when it is positive, else as the exponent (when small) of a fresh base in [0.5, 2]."""
    if first.lo > 0 and first.hi <= 100:
        e = same_dtype_operand(ctx, first, -2.0, 2.0)
        base, expo, args = (first.lo, first.hi), (ctx.info(e).lo, ctx.info(e).hi), (first.vid, e)
    elif first.bound <= 4:
        b = ctx.fresh(broadcast_like(ctx, first.shape), 0.5, 2.0, dtype=first.dtype)
        base, expo, args = (ctx.info(b).lo, ctx.info(b).hi), (first.lo, first.hi), (b, first.vid)
    else:
        return None
    out = broadcast_shapes(ctx.info(args[0]).shape, ctx.info(args[1]).shape)
    if out is None or not ctx.fits(out):
        return None
    lo, hi = _corners(lambda x, y: x**y, base, expo)
    return Drawn(args, {}, out, lo, hi)


def _power_ref(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    a, b = args
    v = np.power(as_float(a), as_float(b))
    spread = _box_spread(np.power, a, b)
    bad = as_float(a) - np.asarray(a.e, float) <= 0
    # pow in the dtype's precision (float16 via float32): within 4 u |v| of the exact power
    return Approx(v, np.where(bad, np.inf, spread + 4 * u * np.abs(v)), a.dtype)


# bfloat16: "power only applies to float" (TVM's check does not count bfloat16 as a float):
# drawn, and kept (test_dtype_pairs_that_do_not_compile)
register_op(OpSpec("power", "relax.power", "broadcast", _power_draw, _build("power"), _power_ref, symbolic=True,
                   dtypes=FLOATS, tags=frozenset({"binary"})))


def _lae_draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    b = same_dtype_operand(ctx, first, -ctx.limit, ctx.limit, fresh=(-1.0, 1.0))
    info = ctx.info(b)
    lo = max(first.lo, info.lo)
    hi = max(first.hi, info.hi) + math.log(2.0)
    return _drawn(ctx, first, b, lo, hi)


def _lae_ref(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    a, b = args
    v = np.logaddexp(as_float(a), as_float(b))
    # increasing and 1-Lipschitz in each argument; log of a sum of two exps: a few roundings,
    # each relative to exp (absolute u after the log) and one relative to the result
    spread = np.asarray(a.e, float) + np.asarray(b.e, float)
    return Approx(v, spread + 4 * u * (np.abs(v) + 1.0), a.dtype)


# bfloat16 fails to compile (the legalized kernel is rejected: kept, drawn all the same); the mathematical value is the
# reference: TVM's kernel is log(exp(a) + exp(b)), which overflows to inf where the value is
# finite (a kept TVM bug, tests/expected_findings/test_log_add_exp_overflows.py)
register_op(OpSpec("log_add_exp", "relax.log_add_exp", "broadcast", _lae_draw, _build("log_add_exp"), _lae_ref,
                   symbolic=True, dtypes=FLOATS, tags=frozenset({"binary"})))


# -- bitwise, logical, shifts ------------------------------------------------------------------------

def _bits_interval(dtype: str, a: ValueInfo, b: ValueInfo) -> Interval:
    if dtype == "bool":
        return 0.0, 1.0
    if a.lo >= 0 and b.lo >= 0:  # non-negative operands: the result fits their bit length
        top = max(a.hi, b.hi)
        return 0.0, float(2 ** int(top).bit_length() - 1)
    return full_interval(dtype)


def _bitwise(name: str, dtypes: frozenset[str], fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> OpSpec:
    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        b = same_dtype_operand(ctx, first, *typical_interval(first.dtype))
        return _drawn(ctx, first, b, *_bits_interval(first.dtype, first, ctx.info(b)))

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        a, b = args
        return int_result(fn(np.asarray(a.v, np.int64), np.asarray(b.v, np.int64)), a.dtype or "int32", a, b)

    return register_op(OpSpec(name, f"relax.{name}", "broadcast", draw, _build(name), reference, symbolic=True,
                              dtypes=dtypes, tags=frozenset({"binary"})))


_bitwise("bitwise_and", INTS | BOOL, np.bitwise_and)
_bitwise("bitwise_or", INTS | BOOL, np.bitwise_or)
_bitwise("bitwise_xor", INTS | BOOL, np.bitwise_xor)
_bitwise("logical_and", BOOL, np.bitwise_and)
_bitwise("logical_or", BOOL, np.bitwise_or)
# on integers TVM's logical_xor is the bitwise xor (logical_xor(1, 2) == 3)
_bitwise("logical_xor", INTS | BOOL, np.bitwise_xor)


def _shift(name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> OpSpec:
    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        bits = np.dtype(first.dtype).itemsize * 8
        s = same_dtype_operand(ctx, first, 0.0, float(bits - 1))
        if name == "right_shift":
            lo, hi = min(first.lo, 0.0), max(first.hi, 0.0)  # moves towards 0 (or -1)
            lo = min(lo, -1.0) if first.lo < 0 else lo
        else:
            lo, hi = int_interval(first.lo * 2.0 ** (bits - 1), first.hi * 2.0 ** (bits - 1), first.dtype)
            lo, hi = min(lo, first.lo, 0.0), max(hi, first.hi, 0.0)
        return _drawn(ctx, first, s, lo, hi)

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        a, s = args
        return int_result(fn(np.asarray(a.v, np.int64), np.asarray(s.v, np.int64)), a.dtype or "int32", a, s)

    return register_op(OpSpec(name, f"relax.{name}", "broadcast", draw, _build(name), reference, symbolic=True,
                              dtypes=INTS, tags=frozenset({"binary"})))


_shift("left_shift", np.left_shift)
# int64 holds every operand exactly, so >> on it is the signed (arithmetic) or, for uint8
# values (non-negative there), the logical shift
_shift("right_shift", np.right_shift)

