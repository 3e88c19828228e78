"""Creation ops with shape and PrimValue arguments (full, ones, zeros, eye, arange,
hamming_window and their ``_like`` forms), collapse_sum_like / collapse_sum_to, einsum, outer.

Creation ops read no tensor (or only the shape of one): their values are exact literals or,
for arange and hamming_window, one rounding of a closed-form float64 value. ``first`` only
lends its shape (``_like``) or its rank and sizes (``full``): the generator always hands one in.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.bounds import contraction_error, gamma, sum_error, underflow
from passcheck.relax.ops.drawing import relax_ops

FILLS = (0.0, 1.0, -2.5, 0.375)  # exact in every float dtype drawn


def _exact_values(v: np.ndarray) -> Approx:
    v = np.asarray(v, dtype=np.float64)
    return Approx(v, np.zeros_like(v))


def _prim(value: float, dtype: str) -> Any:
    from tvm import relax, tirx

    return relax.prim_value(tirx.FloatImm(dtype, value))


def _scalar(value: float, dtype: str) -> Any:
    from tvm import relax

    return relax.const(value, dtype)  # full's fill value is a 0-d tensor


def _reg(name: str, draw: Any, build: Any, reference: Any, pattern: str = "injective", **kw: Any) -> None:
    register_op(OpSpec(name, f"relax.{name}", pattern, draw, build, reference, tags=frozenset({"create"}),
                       **kw))


# -- full / ones / zeros (a shape argument) and their _like forms ----------------------------

def _draw_full(ctx: DrawContext, first: ValueInfo, fill: float | None) -> Drawn | None:
    if not first.static:
        return None
    value = ctx.draw(st.sampled_from(FILLS)) if fill is None else fill
    return Drawn((), {"shape": list(first.shape), "fill": value, "dtype": ctx.dtype}, first.shape, value, value,
                 ctx.dtype)


def _draw_full_like(ctx: DrawContext, first: ValueInfo, fill: float | None) -> Drawn | None:
    value = ctx.draw(st.sampled_from(FILLS)) if fill is None else fill
    return Drawn((first.vid,), {"fill": value}, first.shape, value, value)


def _full_reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    shape = args[0].v.shape if args else tuple(attrs["shape"])
    return _exact_values(np.full(shape, attrs["fill"]))


for _name, _fill in (("full", None), ("ones", 1.0), ("zeros", 0.0)):
    def _build(args: list[Any], attrs: dict[str, Any], _name: str = _name) -> Any:
        R = relax_ops()
        if _name == "full":
            return R.full(tuple(attrs["shape"]), _scalar(attrs["fill"], attrs["dtype"]), attrs["dtype"])
        return getattr(R, _name)(tuple(attrs["shape"]), attrs["dtype"])

    def _build_like(args: list[Any], attrs: dict[str, Any], _name: str = _name) -> Any:
        R = relax_ops()
        if _name == "full":
            return R.full_like(args[0], _scalar(attrs["fill"], args[0].ty.dtype))
        return getattr(R, f"{_name}_like")(args[0])

    _fills = "0|1|pos|neg" if _fill is None else "1" if _fill == 1.0 else "0"
    _reg(_name, lambda ctx, first, _fill=_fill: _draw_full(ctx, first, _fill), _build, _full_reference,
         forms=declared(f"shape=(); shape has 0|1|pos; fill={_fills}; dtype=float32|float16"))
    _reg(f"{_name}_like", lambda ctx, first, _fill=_fill: _draw_full_like(ctx, first, _fill), _build_like,
         _full_reference, symbolic=True, forms=declared(f"fill={_fills}"))


# -- eye / eye_like ----------------------------------------------------------------------------

def _draw_eye(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    n, m = ctx.small_dim(1, 8), ctx.small_dim(1, 8)
    k = ctx.draw(st.integers(-3, 3))
    return Drawn((), {"n": n, "m": m, "k": k, "dtype": ctx.dtype}, (n, m), 0.0, 1.0, ctx.dtype)


def _draw_eye_like(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank != 2:
        return None
    return Drawn((first.vid,), {"k": ctx.draw(st.integers(-3, 3))}, first.shape, 0.0, 1.0)


def _eye_reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    n, m = args[0].v.shape if args else (attrs["n"], attrs["m"])
    return _exact_values(np.eye(n, m, attrs["k"]))


_reg("eye", _draw_eye, lambda args, attrs: relax_ops().eye(attrs["n"], attrs["m"], attrs["k"], attrs["dtype"]),
     _eye_reference, forms=declared("n=1|pos; m=1|pos; k=0|1|pos|neg; dtype=float32|float16"))
_reg("eye_like", _draw_eye_like, lambda args, attrs: relax_ops().eye_like(args[0], attrs["k"]), _eye_reference,
     symbolic=True, forms=declared("k=0|1|pos|neg"))


# -- arange / hamming_window (PrimValue arguments, closed-form values) ------------------------

def _draw_arange(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    start = ctx.draw(st.sampled_from((0.0, 1.0, -3.0, 0.5)))
    step = ctx.draw(st.sampled_from((1.0, 2.0, -1.0, 0.25)))
    n = ctx.draw(st.integers(0, 12))  # 0: an empty range, as the op allows
    end = start + n * step
    vals = [start + i * step for i in range(n)] or [0.0]
    return Drawn((), {"start": start, "end": end, "step": step, "dtype": ctx.dtype}, (n,), min(vals), max(vals),
                 ctx.dtype)


def _build_arange(args: list[Any], attrs: dict[str, Any]) -> Any:
    d = attrs["dtype"]
    return relax_ops().arange(_prim(attrs["start"], d), _prim(attrs["end"], d), _prim(attrs["step"], d), d)


def _arange_reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    n = round((attrs["end"] - attrs["start"]) / attrs["step"])
    v = attrs["start"] + np.arange(n) * attrs["step"]
    # TOPI computes start + i * step in the dtype: a product and a sum, each rounded once
    return Approx(v, gamma(2, u) * (np.abs(v) + np.abs(np.arange(n) * attrs["step"])) + 2 * underflow(u))


_reg("arange", _draw_arange, _build_arange, _arange_reference, forms=declared("start=0|1|pos|neg; end=0|1|pos|neg; step=1|pos|neg; dtype=float32|float16"))


def _draw_hamming(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    size = ctx.small_dim(1, 16)
    periodic = ctx.draw(st.booleans())
    alpha, beta = ctx.draw(st.sampled_from(((0.54, 0.46), (0.5, 0.5))))
    return Drawn((), {"size": size, "periodic": periodic, "alpha": alpha, "beta": beta, "dtype": ctx.dtype},
                 (size,), alpha - beta, alpha + beta, ctx.dtype)


def _build_hamming(args: list[Any], attrs: dict[str, Any]) -> Any:
    from tvm import relax, tirx

    d = attrs["dtype"]
    return relax_ops().hamming_window(relax.prim_value(tirx.IntImm("int64", attrs["size"])),
                                      relax.prim_value(tirx.IntImm("int64", int(attrs["periodic"]))),
                                      _prim(attrs["alpha"], d), _prim(attrs["beta"], d), d)


def _hamming_reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    n = attrs["size"]
    denom = n if attrs["periodic"] else n - 1
    x = 2 * math.pi * np.arange(n) / max(denom, 1)
    v = attrs["alpha"] - attrs["beta"] * np.cos(x)
    if n == 1:
        v = np.ones(1)  # a window of one sample is [1] (PyTorch's definition, which TVM follows)
    # alpha and beta rounded to the dtype, the angle (three roundings, |x| <= 2 pi) and cos's
    # error (a few ulp of its own), the product and the difference: a handful of roundings of
    # magnitudes bounded by alpha + beta and 2 pi beta
    e = gamma(8, u) * (attrs["alpha"] + attrs["beta"] * (1 + np.abs(x))) + 4 * underflow(u)
    return Approx(v, e + np.zeros_like(v))


_reg("hamming_window", _draw_hamming, _build_hamming, _hamming_reference, forms=declared("size=1|pos; periodic=true|false; alpha=pos; beta=pos; dtype=float32|float16"))


# -- collapse_sum_like / collapse_sum_to: sum over the broadcast axes -------------------------

def _draw_collapse(ctx: DrawContext, first: ValueInfo, like: bool) -> Drawn | None:
    if not first.static or first.rank == 0:
        return None
    keep = ctx.draw(st.integers(0, first.rank))
    tail = first.shape[first.rank - keep:]
    target = tuple(1 if ctx.draw(st.booleans()) else d for d in tail)
    k = math.prod(int(d) for d in first.shape) // max(1, math.prod(int(d) for d in target))
    lo, hi = min(first.lo * k, first.lo), max(first.hi * k, first.hi)
    if like:
        t = ctx.fresh(target, -1.0, 1.0)
        return Drawn((first.vid, t), {}, target, lo, hi)
    return Drawn((first.vid,), {"shape": list(target)}, target, lo, hi)


def _collapse_reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    x = args[0]
    target = args[1].v.shape if len(args) > 1 else tuple(attrs["shape"])
    lead = x.v.ndim - len(target)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(target) if d == 1 and x.v.shape[lead + i] != 1)
    k = math.prod(x.v.shape[a] for a in axes)
    v = np.sum(x.v, axis=axes).reshape(target)
    e = sum_error(np.abs(x.v), x.e, axes, k, u, False).reshape(target)
    return Approx(v, e)


_reg("collapse_sum_like", lambda ctx, first: _draw_collapse(ctx, first, True),
     lambda args, attrs: relax_ops().collapse_sum_like(args[0], args[1]), _collapse_reference, pattern="reduce")
_reg("collapse_sum_to", lambda ctx, first: _draw_collapse(ctx, first, False),
     lambda args, attrs: relax_ops().collapse_sum_to(args[0], tuple(attrs["shape"])), _collapse_reference,
     pattern="reduce", forms=declared("shape=(); shape has 0|1|pos"))


# -- outer / einsum ----------------------------------------------------------------------------

def _draw_outer(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank != 1:
        return None
    other = ctx.info(ctx.fresh((ctx.small_dim(1, 8),), -1.0, 1.0))
    ps = [first.lo * other.lo, first.lo * other.hi, first.hi * other.lo, first.hi * other.hi]
    return Drawn((first.vid, other.vid), {}, (first.shape[0], other.shape[0]), min(ps), max(ps))


def _outer_reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    a, b = args

    def contract(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.outer(x, y)

    return Approx(np.outer(a.v, b.v), contraction_error(contract, a.v, a.e, b.v, b.e, 1, u))


_reg("outer", _draw_outer, lambda args, attrs: relax_ops().outer(args[0], args[1]), _outer_reference,
     symbolic=True)

EINSUMS = {2: ("ij,jk->ik", "ij->ji", "ij,ij->ij", "ij->i", "ij,j->i"), 3: ("bij,bjk->bik", "bij->bji", "bij->b")}


def _draw_einsum(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank not in EINSUMS or not first.static:
        return None
    eq = ctx.draw(st.sampled_from(EINSUMS[first.rank]))
    ins, out = eq.split("->")
    specs = ins.split(",")
    size = dict(zip(specs[0], (int(d) for d in first.shape)))
    args = [first.vid]
    for s in specs[1:]:
        for c in s:
            size.setdefault(c, ctx.small_dim(1, 6))
        args.append(ctx.fresh(tuple(size[c] for c in s), -1.0, 1.0))
    summed = [c for c in size if c not in out]
    k = math.prod(size[c] for c in summed)
    bound = first.bound * math.prod(ctx.info(a).bound for a in args[1:]) * k
    return Drawn(tuple(args), {"equation": eq}, tuple(size[c] for c in out), -bound, bound)


def _einsum_reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    eq = attrs["equation"]
    ins, out = eq.split("->")
    sizes: dict[str, int] = {}
    for s, a in zip(ins.split(","), args):
        sizes.update(zip(s, a.v.shape))
    k = math.prod(n for c, n in sizes.items() if c not in out)
    v = np.einsum(eq, *[a.v for a in args])
    if len(args) == 1:
        # a transpose (k = 1: exact) or a sum of k terms (any order)
        a = args[0]
        return Approx(v, np.einsum(eq, a.e) + gamma(max(k - 1, 0), u) * np.einsum(eq, np.abs(a.v) + a.e)
                      + max(k - 1, 0) * underflow(u))  # (k = 0: a sum of no terms, exactly 0)
    a, b = args

    def contract(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.einsum(eq, x, y)

    return Approx(v, contraction_error(contract, a.v, a.e, b.v, b.e, k, u))


_reg("einsum", _draw_einsum, lambda args, attrs: relax_ops().einsum(list(args), attrs["equation"]),
     _einsum_reference, pattern="opaque", forms=declared("equation=" + "|".join(sorted({e for eqs in EINSUMS.values() for e in eqs}))))
