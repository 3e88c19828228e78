"""Normalisations over statistics of several axes: group_norm, instance_norm, rms_norm.

TOPI computes the statistics in float32 (float16 tensors are cast first), normalises in
float32 and casts the result back; group_norm and instance_norm then apply ``* gamma + beta``
in the tensor's dtype (as layer_norm does), rms_norm multiplies by its weight in float32 before
the cast. The bound is the one of an accurate float32 normalisation (the mean, then the
variance of the deviations, as layer_norm's legalization computes it): print the legalized
kernels with ``relax.transform.LegalizeOps()(mod).script()`` to compare.

Every float dtype is drawn (but bfloat16 group_norm, which Relax's type rule refuses): TOPI's
group_norm and instance_norm refuse float64 (instance_norm bfloat16 too) when built, "only
support float32 and float16 for now" (kept: test_channel_norms_float32_float16_only), and
rms_norm computes float64 data in float32 (kept: test_float64_computed_in_float32).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import (
    DrawContext,
    Drawn,
    OpSpec,
    ValueInfo,
    declared,
    interval_mul,
    register_op,
)
from passcheck.relax.ops.bounds import gamma, internal_u, underflow
from passcheck.relax.ops.drawing import draw_axes, nonempty, relax_ops, spelled_axis
from passcheck.relax.ops.norm import EPSILONS, along, draw_trailing_norm
from passcheck.relax.ops.numeric import FLOATS


def _rep(x: float, u: float) -> float:
    """How far a Python float constant (eps) may move when rounded into the dtype."""
    return u * abs(x) + underflow(u)


def normalized(x: Approx, axes: tuple[int, ...], eps: float, u: float) -> tuple[np.ndarray, np.ndarray]:
    """``z = (x - mean) / sqrt(var + eps)`` over ``axes`` and a bound on the error of a float32
    computation of it (first order; see norm.py's layer_norm for the derivation)."""
    n = math.prod(x.v.shape[a] for a in axes)
    ua = internal_u(u)

    def mean(t: np.ndarray) -> np.ndarray:
        return np.mean(t, axis=axes, keepdims=True)

    d = x.v - mean(x.v)
    var = mean(d * d)
    w = var + eps
    s = 1.0 / np.sqrt(w)
    z = d * s
    big_e = x.e + mean(x.e)
    dz_prop = s * (big_e + np.abs(z) * mean(np.abs(z) * big_e))
    c = gamma(n + 1, ua) * mean(np.abs(x.v))
    d_var = c * c + gamma(n + 4, ua) * (var + c * c)
    d_w = d_var + _rep(eps, ua) + ua * (w + d_var)
    rel_w = d_w / w
    rel_s = np.where(rel_w < 0.5, (1.0 - np.minimum(rel_w, 0.5)) ** -0.5 - 1.0 + 2.0 * ua,
                     (1.0 + 2.0 * ua) / (math.sqrt(eps) * s))
    dz_own = s * c * (1.0 + ua) + np.abs(z) * (rel_s + 2.0 * ua)
    dz_cap = math.sqrt(max(n - 1, 0)) + math.sqrt(n) * (1.0 + 2.0 * gamma(n + 4, ua))
    return z, np.minimum(dz_prop + dz_own, dz_cap)


def _affine(z: np.ndarray, dz: np.ndarray, g: Approx, b: Approx, u: float) -> Approx:
    """``cast(z) * gamma + beta`` in the dtype (the cast rounds only when the dtype is narrower)."""
    cast = u if u > internal_u(u) else 0.0
    y = z * g.v + b.v
    dz = dz + cast * np.abs(z)
    e = (np.abs(g.v) * dz + np.abs(z) * g.e + b.e + u * np.abs(z * g.v) + u * np.abs(y)
         + 2.0 * underflow(u))
    return Approx(y, e)


def _channel(a: Approx, axis: int, ndim: int) -> Approx:
    shape = tuple(a.v.size if i == axis else 1 for i in range(ndim))
    return Approx(a.v.reshape(shape), a.e.reshape(shape))


def _draw_channel_norm(ctx: DrawContext, first: ValueInfo, *, grouped: bool) -> Drawn | None:
    if first.rank < 2 or not first.static:
        return None
    if (first.dtype == "float64" or (not grouped and first.dtype == "bfloat16")) \
            and not ctx.budget_open("test_channel_norms_float32_float16_only"):
        return None  # a dtype TOPI's kernel refuses (kept TVM bug): at its budget
    ca = ctx.draw(st.sampled_from((1, 1, first.rank - 1)))
    c = int(first.shape[ca])
    others = [a for a in range(1, first.rank) if a != ca] or [0]
    axes = tuple(others[i] for i in draw_axes(ctx, len(others)))
    groups = ctx.draw(st.sampled_from([g for g in range(1, c + 1) if c % g == 0])) if grouped else c
    n = (c // groups) * math.prod(int(first.shape[a]) for a in axes)
    eps = ctx.draw(st.sampled_from(EPSILONS))
    z_max = min(math.sqrt(max(n - 1, 0)), (first.hi - first.lo) / math.sqrt(eps))
    g_lo, g_hi = ctx.draw(st.sampled_from(((-2.0, 2.0), (0.5, 1.5))))
    lo, hi = interval_mul((-z_max, z_max), (g_lo, g_hi))
    gamma_ = ctx.fresh((c,), g_lo, g_hi)
    beta = ctx.fresh((c,), -1.0, 1.0)
    spelled_ca = spelled_axis(ctx, ca, first.rank)
    if spelled_ca < 0 and not grouped and not ctx.budget_open("test_instance_norm_negative_channel_axis"):
        spelled_ca = ca  # LegalizeOps leaves it negative for TOPI (kept TVM bug): at its budget
    attrs: dict[str, Any] = {"channel_axis": spelled_ca,
                             "axes": tuple(spelled_axis(ctx, a, first.rank) for a in axes), "epsilon": eps}
    if grouped:
        attrs["num_groups"] = groups
    return Drawn((first.vid, gamma_, beta), attrs, first.shape, lo - 1.0, hi + 1.0)


def _reference_channel_norm(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    x, g, b = args
    nd = x.v.ndim
    ca = attrs["channel_axis"] % nd
    axes = sorted(a % nd for a in attrs["axes"])
    c = x.v.shape[ca]
    groups = attrs.get("num_groups", c)
    # split the channel axis into (groups, channels per group): statistics over the latter and axes
    split = x.v.shape[:ca] + (groups, c // groups) + x.v.shape[ca + 1:]
    xs = Approx(x.v.reshape(split), x.e.reshape(split))
    stat_axes = (ca + 1,) + tuple(a if a < ca else a + 1 for a in axes)
    z, dz = normalized(xs, tuple(sorted(stat_axes)), float(attrs["epsilon"]), u)
    return _affine(z.reshape(x.v.shape), dz.reshape(x.v.shape), _channel(g, ca, nd), _channel(b, ca, nd), u)


register_op(OpSpec("group_norm", "relax.nn.group_norm", "norm",
                   nonempty(lambda ctx, first: _draw_channel_norm(ctx, first, grouped=True)),
                   lambda args, attrs: relax_ops().nn.group_norm(
                       *args, num_groups=attrs["num_groups"], channel_axis=attrs["channel_axis"],
                       axes=list(attrs["axes"]), epsilon=attrs["epsilon"]),
                   # (bfloat16: Relax's type rule refuses the call, a TypeError when it is built: no module)
                   _reference_channel_norm, dtypes=FLOATS - {"bfloat16"}, tags=frozenset({"norm"}), forms=declared("num_groups=1|pos; channel_axis=1|pos|neg; axes=some|some,neg; epsilon=pos")))
register_op(OpSpec("instance_norm", "relax.nn.instance_norm", "norm",
                   nonempty(lambda ctx, first: _draw_channel_norm(ctx, first, grouped=False)),
                   lambda args, attrs: relax_ops().nn.instance_norm(
                       *args, channel_axis=attrs["channel_axis"], axes=list(attrs["axes"]),
                       epsilon=attrs["epsilon"]),
                   _reference_channel_norm, dtypes=FLOATS, tags=frozenset({"norm"}), forms=declared("channel_axis=1|pos; axes=some|some,neg; epsilon=pos")))


# -- rms_norm ------------------------------------------------------------------------------------

def _draw_rms_norm(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    drawn = draw_trailing_norm(ctx, first)
    if drawn is None:
        return None
    k, norm_shape, n, eps = drawn
    if k == first.rank and not ctx.budget_open("test_rms_norm_all_axes"):
        # over every axis its kernel does not compile (kept TVM bug): at its budget; otherwise
        # all but the first axis
        if k == 1:
            return None
        k, norm_shape = k - 1, norm_shape[1:]
        n = math.prod(norm_shape)
    z_max = min(math.sqrt(n), first.bound / math.sqrt(eps))  # |x_i| <= sqrt(n) rms
    g_lo, g_hi = ctx.draw(st.sampled_from(((-2.0, 2.0), (0.5, 1.5))))
    lo, hi = interval_mul((-z_max, z_max), (g_lo, g_hi))
    weight = ctx.fresh(tuple(norm_shape), g_lo, g_hi)
    axes = [spelled_axis(ctx, a, first.rank) for a in range(first.rank - k, first.rank)]
    return Drawn((first.vid, weight), {"axes": tuple(axes), "epsilon": eps}, first.shape, lo, hi)


def _reference_rms_norm(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    x, g = args
    nd = x.v.ndim
    axes = tuple(sorted(a % nd for a in attrs["axes"]))
    g = along(g, axes, nd)
    eps = float(attrs["epsilon"])
    n = math.prod(x.v.shape[a] for a in axes)
    ua = internal_u(u)

    def mean(t: np.ndarray) -> np.ndarray:
        return np.mean(t, axis=axes, keepdims=True)

    w = mean(x.v * x.v) + eps
    s = 1.0 / np.sqrt(w)
    z = x.v * s
    y = z * g.v
    # propagated: d z_i / d x_j = s [i == j] - z_i z_j s / n
    dz_prop = s * (x.e + np.abs(z) * mean(np.abs(z) * x.e))
    # own: the sum of squares (positive terms: relative gamma_n), / n, + eps, rsqrt (2 roundings),
    # two products in float32, the cast
    rel_w = (gamma(n + 1, ua) * (w - eps) + _rep(eps, ua) + ua * w) / w
    rel_s = (1.0 - np.minimum(rel_w, 0.5)) ** -0.5 - 1.0 + 2.0 * ua
    dz = np.minimum(dz_prop + np.abs(z) * rel_s, 2.0 * math.sqrt(n) * (1.0 + rel_s))
    e = np.abs(g.v) * dz + np.abs(z) * g.e + (2.0 * ua + u) * np.abs(y) + 2.0 * underflow(u)
    return Approx(y, e)


register_op(OpSpec("rms_norm", "relax.nn.rms_norm", "norm", nonempty(_draw_rms_norm),
                   lambda args, attrs: relax_ops().nn.rms_norm(args[0], args[1], axes=list(attrs["axes"]),
                                                               epsilon=attrs["epsilon"]),
                   _reference_rms_norm, symbolic=True, dtypes=FLOATS, tags=frozenset({"norm"}), forms=declared("axes=some|some,neg; epsilon=pos")))
