"""Neural-network activations: gelu, gelu_tanh, silu, selu, softplus, leakyrelu, prelu, log_softmax.

Own-error bounds follow the TOPI kernels ``LegalizeOps`` emits (one elementwise op at a time in
the tensor's dtype; gelu's erf runs in float32 even for float16). Input errors propagate
through each function's Lipschitz constant (its largest |f'| over the whole line), which is
sound wherever the input is known only to within its error.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.bounds import F32_U, gamma, underflow
from passcheck.relax.ops.drawing import draw_axis, nonempty, relax_ops, spelled_axis
from passcheck.relax.ops.norm import exp_rel_error
from passcheck.relax.ops.numeric import FLOATS

_erf = np.vectorize(math.erf, otypes=[np.float64])

SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805
GELU_TANH_C = 0.044715


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _gelu(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    return x * 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


def _gelu_tanh(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * x * (1.0 + GELU_TANH_C * x * x)))


def _silu(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    return x * _sigmoid(x)


def _selu(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    return SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0.0)))


def _softplus(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    b, t = attrs["beta"], attrs["threshold"]
    bx = b * x
    return np.where(bx > t, x, np.logaddexp(0.0, np.minimum(bx, t)) / b)


def _leakyrelu(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    return np.where(x > 0, x, attrs["alpha"] * x)


# (function, Lipschitz constant, own error per |x| in units of u, in units of float32's u)
# gelu: x * (0.5 + 0.5 erf(x c)): x c, erf (float32 polynomial, a few ulps absolute), the
# float16 cast, * 0.5, + 0.5, * x; gelu_tanh: five products/sums before tanh (relative error of
# its argument a, moving tanh by <= a sech^2(a) (rel) <= 0.45 (rel)), tanh (~1.5 u absolute:
# TVM's tanh is a polynomial), + 1, * 0.5 x; silu: sigmoid (1 / (1 + exp(-x))) and one product.
_SMOOTH = {
    "gelu": (_gelu, 1.13, 4.0, 8.0),
    "gelu_tanh": (_gelu_tanh, 1.13, 8.0, 0.0),
    "silu": (_silu, 1.1, 6.0, 0.0),
}


def _draw_elementwise(ctx: DrawContext, first: ValueInfo, lo: float, hi: float,
                      attrs: dict[str, Any] | None = None) -> Drawn | None:
    return Drawn((first.vid,), attrs or {}, first.shape, lo, hi)


def _smooth(name: str) -> OpSpec:
    fn, lip, ulps, f32_ulps = _SMOOTH[name]

    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        if name == "gelu_tanh" and GELU_TANH_C * first.bound**3 > ctx.limit:
            return None  # the cubic term is an intermediate in the dtype
        # x g(x), g in [0, 1]: at least -0.28 (silu's minimum; gelu's is -0.17), at most max(x, 0)
        return _draw_elementwise(ctx, first, -0.3, max(first.hi, 0.0))

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        (x,) = args
        v = fn(x.v, attrs)
        own = np.abs(x.v) * (ulps * u + f32_ulps * F32_U) + u * np.abs(v) + 4.0 * underflow(u)
        return Approx(v, lip * x.e + own)

    return register_op(OpSpec(name, f"relax.nn.{name}", "elemwise", nonempty(draw),
                              lambda args, attrs: getattr(relax_ops().nn, name)(args[0]),
                              reference, symbolic=True, dtypes=FLOATS, tags=frozenset({"activation"})))


for _name in _SMOOTH:
    _smooth(_name)


# -- selu ----------------------------------------------------------------------------------------

def _reference_selu(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    v = _selu(x.v, attrs)
    # max(x, 0) + min(0, alpha (exp(x) - 1)), scaled: exp (relative), - 1 (absolute u |exp|),
    # * alpha, + and * scale; exp(x) <= 1 where it matters, so absolute ~u errors plus relative
    em = np.exp(np.minimum(x.v, 0.0))
    neg = SELU_SCALE * SELU_ALPHA * (em * (exp_rel_error(u) + np.abs(x.v) * u) + 3.0 * u)
    own = np.where(x.v > 0, 2.0 * u * np.abs(v), neg) + u * np.abs(v) + 4.0 * underflow(u)
    return Approx(v, SELU_SCALE * SELU_ALPHA * x.e + own)


register_op(OpSpec("selu", "relax.nn.selu", "elemwise",
                   nonempty(lambda ctx, first: _draw_elementwise(ctx, first, min(-1.76, first.lo * SELU_SCALE),
                                                        max(first.hi * SELU_SCALE, 0.0))),
                   lambda args, attrs: relax_ops().nn.selu(args[0]),
                   _reference_selu, symbolic=True, dtypes=FLOATS, tags=frozenset({"activation"})))


# -- softplus ------------------------------------------------------------------------------------

def _draw_softplus(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    beta = ctx.draw(st.sampled_from((1.0, 1.0, 2.0, 0.5)))
    threshold = ctx.draw(st.sampled_from((20.0, 20.0, 10.0)))
    hi = max(first.hi, 0.0) + math.log(2.0) / beta
    return _draw_elementwise(ctx, first, 0.0, hi, {"beta": beta, "threshold": threshold})


def _reference_softplus(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    b, t = attrs["beta"], attrs["threshold"]
    v = _softplus(x.v, attrs)
    bx = np.minimum(b * x.v, t)
    # log(1 + exp(b x)) / b: b x, exp, + 1, log (an absolute error of ~u per rounding of its
    # argument, as d log(y) = dy / y), / b
    e_log = (np.abs(bx) * u * _sigmoid(bx) + exp_rel_error(u) + 2.0 * u) / b
    own = np.where(b * x.v > t, 0.0, e_log) + 2.0 * u * np.abs(v) + 4.0 * underflow(u)
    # near the threshold the computed b x may fall on either side: the branches differ by
    # log(1 + exp(-t)) / b there
    near = np.abs(b * x.v - t) <= 2.0 * u * t + b * x.e
    jump = np.where(near, math.log1p(math.exp(-t)) / b, 0.0)
    return Approx(v, x.e + own + jump)


register_op(OpSpec("softplus", "relax.nn.softplus", "elemwise", nonempty(_draw_softplus),
                   lambda args, attrs: relax_ops().nn.softplus(args[0], attrs["beta"], attrs["threshold"]),
                   _reference_softplus, symbolic=True, dtypes=FLOATS, tags=frozenset({"activation"}), forms=declared("beta=1|pos; threshold=pos")))


# -- leakyrelu, prelu ----------------------------------------------------------------------------

def _draw_leakyrelu(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    alpha = ctx.draw(st.sampled_from((0.01, 0.1, 0.2, 0.5)))
    lo, hi = _leakyrelu(np.array([first.lo, first.hi]), {"alpha": alpha})  # increasing
    return _draw_elementwise(ctx, first, float(lo), float(hi), {"alpha": alpha})


def _reference_leakyrelu(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    v = _leakyrelu(x.v, attrs)
    # alpha is rounded into the dtype, then one product: 2u relative on the negative side
    return Approx(v, x.e + 2.0 * u * np.abs(v) + underflow(u))


register_op(OpSpec("leakyrelu", "relax.nn.leakyrelu", "elemwise", nonempty(_draw_leakyrelu),
                   lambda args, attrs: relax_ops().nn.leakyrelu(args[0], attrs["alpha"]),
                   _reference_leakyrelu, symbolic=True, dtypes=FLOATS, tags=frozenset({"activation"}), forms=declared("alpha=pos")))


def _draw_prelu(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0:
        return None
    axis = draw_axis(ctx, first.rank)
    c = first.shape[axis]
    if not isinstance(c, int):
        return None
    alpha = ctx.fresh((c,), 0.0, 0.5)
    lo = min(first.lo, 0.0) * 0.5
    return Drawn((first.vid, alpha), {"axis": spelled_axis(ctx, axis, first.rank)}, first.shape,
                 lo, max(first.hi, 0.0))


def _reference_prelu(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    x, a = args
    axis = attrs["axis"] % x.v.ndim
    shape = tuple(a.v.size if i == axis else 1 for i in range(x.v.ndim))
    av, ae = a.v.reshape(shape), a.e.reshape(shape)
    v = np.where(x.v > 0, x.v, av * x.v)
    # an input error may flip the branch: the slope is at most max(1, |alpha|) on either side
    prop = np.maximum(1.0, np.abs(av) + ae) * x.e + np.abs(x.v) * ae
    return Approx(v, prop + u * np.abs(v) + underflow(u))


register_op(OpSpec("prelu", "relax.nn.prelu", "elemwise", nonempty(_draw_prelu),
                   lambda args, attrs: relax_ops().nn.prelu(args[0], args[1], attrs["axis"]),
                   # Relax's type rule rejects bfloat16 ("Prelu requires the input tensor to have float dtype")
                   _reference_prelu, symbolic=True, dtypes=FLOATS - {"bfloat16"}, tags=frozenset({"activation"}), forms=declared("axis=0|1|pos|neg")))


# -- log_softmax ---------------------------------------------------------------------------------

def _draw_log_softmax(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0:
        return None
    axis = draw_axis(ctx, first.rank)
    k = first.shape[axis]
    if not isinstance(k, int):
        return None
    lo = -(first.hi - first.lo) - math.log(k)
    return Drawn((first.vid,), {"axis": spelled_axis(ctx, axis, first.rank)}, first.shape, lo, 0.0)


def _reference_log_softmax(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    axis = attrs["axis"] % x.v.ndim
    k = x.v.shape[axis]
    d = x.v - np.max(x.v, axis=axis, keepdims=True)
    s = np.sum(np.exp(d), axis=axis, keepdims=True)
    log_s = np.log(s)
    v = d - log_s
    y = np.exp(v)
    # propagated: d v_i / d x_j = [i == j] - y_j
    prop = x.e + np.sum(y * x.e, axis=axis, keepdims=True)
    # own: d = x - m (relative u), the sum of exp(d) (each off by exp's error and |d| u, the sum
    # adding gamma_{k-1}; s >= 1 so underflowed terms add at most k eta), log s (relative error
    # rho of s moves it by <= rho / (1 - rho), plus its own rounding), then two subtractions
    r = np.expm1(u * np.abs(d)) + exp_rel_error(u)
    rho = np.sum(y * r, axis=axis, keepdims=True) * np.exp(u) + gamma(max(k - 1, 0), u) + k * underflow(u)
    rho = np.minimum(rho, 0.5)
    e_log = rho / (1.0 - rho) + 2.0 * u * log_s
    own = u * np.abs(d) + e_log + u * (np.abs(d) + log_s) + u * np.abs(v) + underflow(u)
    return Approx(v, prop + own)


register_op(OpSpec("log_softmax", "relax.nn.log_softmax", "norm", nonempty(_draw_log_softmax),
                   lambda args, attrs: relax_ops().nn.log_softmax(args[0], axis=attrs["axis"]),
                   _reference_log_softmax, symbolic=True, dtypes=FLOATS, tags=frozenset({"softmax"}), forms=declared("axis=0|1|pos|neg")))


# -- dropout -------------------------------------------------------------------------------------

def _draw_dropout(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    rate = ctx.draw(st.sampled_from((0.5, 0.1, 0.0, 0.9)))
    item = ctx.draw(st.sampled_from((0, 0, 1)))
    lo, hi = (first.lo, first.hi) if item == 0 else (1.0, 1.0)
    return Drawn((first.vid,), {"rate": rate, "item": item}, first.shape, lo, hi)


def _build_dropout(args: list[Any], attrs: dict[str, Any]) -> Any:
    from tvm import relax

    # dropout is tuple-valued, (out, mask): the node is one of the two (as batch_norm's is its out)
    return relax.TupleGetItem(relax_ops().nn.dropout(args[0], rate=attrs["rate"]), attrs["item"])


def _reference_dropout(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (x,) = args
    # at inference (what LegalizeOps and every graph pass assume) dropout is the identity and
    # its mask all ones
    if attrs["item"] == 0:
        return x
    return Approx.exact(np.ones_like(x.v))


register_op(OpSpec("dropout", "relax.nn.dropout", "injective", nonempty(_draw_dropout), _build_dropout,
                   _reference_dropout, symbolic=True, dtypes=FLOATS, tags=frozenset({"inference", "tuple"}), forms=declared("rate=0|pos; item=0|1")))
