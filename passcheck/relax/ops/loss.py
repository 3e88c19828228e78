"""Losses: cross_entropy_with_logits and nll_loss (int64 targets, optional class weights,
ignore_index, reductions none / sum / mean).

Legalized kernels (``LegalizeOps``) work in the dtype: cross_entropy_with_logits is
``-sum(p * labels)``, divided by the leading dim for inputs of rank >= 2; nll_loss gathers
``-p[n, t, ...] * w[t]`` (0 where ``t == ignore_index``), then sums, or divides that sum by the
sum of the gathered weights (mean).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx, unit_roundoff
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.bounds import gamma, underflow
from passcheck.relax.ops.drawing import nonempty, relax_ops
from passcheck.relax.ops.numeric import FLOATS

# -- cross_entropy_with_logits ---------------------------------------------------------------------


def _draw_cross_entropy(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0 or not first.static:
        return None
    k = math.prod(int(d) for d in first.shape)
    if k * first.bound > ctx.limit or k * unit_roundoff(first.dtype) > 0.25:
        return None  # (a bfloat16 sum of this many terms has no useful bound: gamma_k near 1)
    labels = ctx.fresh(first.shape, 0.0, 1.0)
    n = int(first.shape[0]) if first.rank >= 2 else 1
    return Drawn((first.vid, labels), {}, (), -k * first.bound / n, k * first.bound / n)


def _reference_cross_entropy(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    p, lab = args
    n = p.v.shape[0] if p.v.ndim >= 2 else 1
    k = p.v.size

    def contract(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(np.sum(a * b))

    v = -contract(p.v, lab.v) / n
    prop = contract(np.abs(p.v), lab.e) + contract(p.e, np.abs(lab.v)) + contract(p.e, lab.e)
    own = gamma(k, u) * contract(np.abs(p.v) + p.e, np.abs(lab.v) + lab.e) + 2 * k * underflow(u)
    # the division by n (exact when n is a power of two) rounds once more
    return Approx(v, (prop + own) / n + u * np.abs(v) + underflow(u))


register_op(OpSpec("cross_entropy_with_logits", "relax.nn.cross_entropy_with_logits", "opaque",
                   nonempty(_draw_cross_entropy),
                   lambda args, attrs: relax_ops().nn.cross_entropy_with_logits(args[0], args[1]),
                   _reference_cross_entropy, dtypes=FLOATS, tags=frozenset({"loss"})))


# -- nll_loss ------------------------------------------------------------------------------------

def _draw_nll_loss(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank < 2 or not first.static:
        return None
    shape = tuple(int(d) for d in first.shape)
    c = shape[1]
    t_shape = (shape[0], *shape[2:])
    terms = math.prod(t_shape)
    weighted = ctx.draw(st.booleans())
    w_hi = 1.5 if weighted else 1.0
    reduction = ctx.draw(st.sampled_from(("mean", "mean", "sum", "none")))
    bound = first.bound * w_hi * (terms if reduction == "sum" else 1)
    if bound > ctx.limit or terms * first.bound * w_hi > ctx.limit:
        return None
    if reduction != "none" and terms * unit_roundoff(first.dtype) > 0.25:
        return None  # a bfloat16 sum of this many terms has no useful bound (gamma_k near 1)
    # uniform in [0, C): whole classes after the cast to int64
    targets = ctx.fresh(t_shape, 0.0, c - 1e-6, style="uniform", dtype="int64")
    args = (first.vid, targets) + ((ctx.fresh((c,), 0.5, 1.5),) if weighted else ())
    # a mean over targets that are all ignored is 0 / 0 (NaN, as in PyTorch): with "mean" the
    # ignored class is one no target has; "sum" and "none" ignore real classes
    ignore = -100 if reduction == "mean" else ctx.draw(st.sampled_from((-100, 0, 1)))
    attrs = {"reduction": reduction, "ignore_index": ignore}
    out = t_shape if reduction == "none" else ()
    return Drawn(args, attrs, out, -bound, bound)


def _build_nll_loss(args: list[Any], attrs: dict[str, Any]) -> Any:
    return relax_ops().nn.nll_loss(args[0], args[1], args[2] if len(args) > 2 else None,
                                   reduction=attrs["reduction"], ignore_index=attrs["ignore_index"])


def _reference_nll_loss(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    p, t = args[0], args[1].v.astype(np.int64)
    c = p.v.shape[1]
    w = args[2] if len(args) > 2 else Approx.exact(np.ones(c))
    keep = t != attrs["ignore_index"]
    safe = np.where(keep, t, 0)
    picked_v = np.take_along_axis(p.v, safe[:, None], axis=1)[:, 0]
    picked_e = np.take_along_axis(p.e, safe[:, None], axis=1)[:, 0]
    wv, we = np.where(keep, w.v[safe], 0.0), np.where(keep, w.e[safe], 0.0)
    loss = -picked_v * wv
    loss_e = np.abs(picked_v) * we + picked_e * wv + u * np.abs(loss) + underflow(u)
    if attrs["reduction"] == "none":
        return Approx(loss, loss_e)
    k = loss.size
    total = np.sum(loss)
    total_e = np.sum(loss_e) + gamma(max(k - 1, 0), u) * np.sum(np.abs(loss) + loss_e) + k * underflow(u)
    if attrs["reduction"] == "sum":
        return Approx(np.asarray(total), np.asarray(total_e))
    den = np.sum(wv)  # positive weights: the sum's error is relative
    den_e = np.sum(we) + gamma(max(k - 1, 0), u) * np.sum(wv + we)
    v = total / den if den > 0 else np.nan
    rel = den_e / den if den > 0 else np.inf
    e = (total_e + abs(v) * den_e) / max(den - den_e, 1e-300) if rel < 0.5 else np.inf
    return Approx(np.asarray(v), np.asarray(e + u * abs(v) + underflow(u)))


register_op(OpSpec("nll_loss", "relax.nn.nll_loss", "opaque", nonempty(_draw_nll_loss), _build_nll_loss,
                   _reference_nll_loss, dtypes=FLOATS, tags=frozenset({"loss"}), forms=declared("reduction=mean|sum|none; ignore_index=0|1|neg")))
