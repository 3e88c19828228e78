"""Scaled dot-product attention: nn.attention and nn.attention_bias (with an additive bias),
with or without a causal mask (TopLeft: key j <= query i; BottomRight: j <= i + Skv - Sq).

Layout (B, S, H, D) for queries, keys and values. The legalized kernel (print it with
``LegalizeOps``) works in the dtype: ``q k^T`` (a contraction of length D), then the scale
(a division by sqrt(D) by default, a product otherwise), the bias, a softmax over the keys
whose maximum also sees the masked positions as zeros (``trilu``), and ``P v`` (length Skv).
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
from passcheck.relax.ops.bounds import contraction_error, gamma, underflow
from passcheck.relax.ops.drawing import nonempty, relax_ops
from passcheck.relax.ops.norm import exp_rel_error
from passcheck.relax.ops.numeric import FLOATS


def _qk(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("bihd,bjhd->bhij", a, b)


def _pv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("bhij,bjhd->bihd", a, b)


def _mask(sq: int, skv: int, causal: str | None) -> np.ndarray:
    i, j = np.arange(sq)[:, None], np.arange(skv)[None, :]
    if causal == "TopLeft":
        return j <= i
    if causal == "BottomRight":
        return j <= i + (skv - sq)
    return np.ones((sq, skv), dtype=bool)


def _draw_attention(ctx: DrawContext, first: ValueInfo, *, bias: bool) -> Drawn | None:
    if first.rank != 4 or not first.static:
        return None
    b, sq, h, d = (int(x) for x in first.shape)
    skv = ctx.small_dim(1, 8)
    dv = ctx.small_dim(1, 8)
    causal = ctx.draw(st.sampled_from((None, None, "TopLeft", "BottomRight")))
    if causal == "BottomRight" and skv < sq:
        skv = sq  # every query must see at least one key: a softmax over nothing is undefined
    scale = ctx.draw(st.sampled_from((None, None, 0.5, 0.125)))
    p_lo, p_hi = interval_mul((first.lo, first.hi), (-1.0, 1.0))
    if d * max(abs(p_lo), abs(p_hi)) > ctx.limit:
        return None
    out = (b, sq, h, dv)
    if not ctx.fits(out) or not ctx.fits((b, h, sq, skv)):
        return None
    k = ctx.fresh((b, skv, h, d), -1.0, 1.0)
    v = ctx.fresh((b, skv, h, dv), -1.0, 1.0)
    args = (first.vid, k, v)
    if bias:
        args += (ctx.fresh((b, h, sq, skv), -2.0, 2.0),)
    return Drawn(args, {"scale": scale, "causal_mask": causal}, out, -1.0, 1.0)


def _build_attention(args: list[Any], attrs: dict[str, Any]) -> Any:
    return relax_ops().nn.attention(*args[:3], args[3] if len(args) > 3 else None, scale=attrs["scale"],
                                    causal_mask=attrs["causal_mask"])


def _softmax_keys(s: Approx, mask: np.ndarray, causal: bool, u: float) -> Approx:
    """Softmax over the last axis restricted to ``mask``, with TVM's shift: the row maximum,
    which also counts masked positions as zeros when there is a causal mask."""
    eta = underflow(u)
    k = int(mask.sum(axis=-1).max())
    shifted = np.where(mask, s.v, -np.inf)
    m = np.max(np.where(mask, s.v, 0.0) if causal else shifted, axis=-1, keepdims=True)
    t = np.where(mask, np.exp(shifted - m), 0.0)
    total = np.sum(t, axis=-1, keepdims=True)
    y = t / total
    e_in = np.where(mask, np.minimum(s.e, 300.0), 0.0)
    prop = y * np.expm1(e_in + np.log(np.sum(y * np.exp(e_in), axis=-1, keepdims=True)))
    d = np.where(mask, s.v - m, 0.0)
    r = np.expm1(u * np.abs(d)) + exp_rel_error(u)
    # each exp is off by t r + eta (absolute, subnormals); the sum adds gamma_{k-1} of itself
    rho = np.sum(t * r, axis=-1, keepdims=True) / total + gamma(max(k - 1, 0), u) + k * eta / total
    own = (y * (r + rho + u) + eta / total) * (1.0 + 2.0 * (r + rho + u))
    cap = np.maximum(y, 1.0 - y) * (1.0 + 2.0 * u) + 2.0 * eta
    return Approx(y, np.where(mask, np.minimum(prop + own, cap), 0.0))


def _reference_attention(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    q, k, v = args[:3]
    d = q.v.shape[3]
    scale = attrs["scale"]
    c = 1.0 / math.sqrt(d) if scale is None else float(scale)
    raw = _qk(q.v, k.v)
    e_raw = contraction_error(_qk, q.v, q.e, k.v, k.e, d, u)
    s = raw * c
    # the scale: sqrt(D) rounded and a division (or the constant rounded and a product)
    e_s = e_raw * c + 3.0 * u * np.abs(s) + underflow(u)
    if len(args) > 3:
        bias = args[3]
        s = s + bias.v
        e_s = e_s + bias.e + u * np.abs(s)
    mask = _mask(q.v.shape[1], k.v.shape[1], attrs["causal_mask"])
    p = _softmax_keys(Approx(s, e_s), mask, attrs["causal_mask"] is not None, u)
    return Approx(_pv(p.v, v.v), contraction_error(_pv, p.v, p.e, v.v, v.e, k.v.shape[1], u))


_FORMS = declared("causal_mask=none|TopLeft|BottomRight; scale=none|pos")
register_op(OpSpec("attention", "relax.nn.attention", "opaque",
                   nonempty(lambda ctx, first: _draw_attention(ctx, first, bias=False)), _build_attention,
                   _reference_attention, dtypes=FLOATS, tags=frozenset({"attention"}), forms=_FORMS))
register_op(OpSpec("attention_bias", "relax.nn.attention_bias", "opaque",
                   nonempty(lambda ctx, first: _draw_attention(ctx, first, bias=True)), _build_attention,
                   _reference_attention, dtypes=FLOATS, tags=frozenset({"attention"}), forms=_FORMS))
