"""Reductions over a drawn set of axes (negative spellings, keepdims, symbolic dims included).

The error bounds follow the TOPI kernels LegalizeOps emits, all in the tensor's dtype:

* sum, mean: one running sum (then a division for mean).
* max, min: a running max/min (exact: it returns one of the inputs).
* prod: a running product (k - 1 roundings).
* variance, std: two passes, ``m = sum(x) / N``, ``sum((x - m)^2) / N`` (then ``sqrt``).
* median: the lower median (for an even count, the smaller middle value, as torch), values and
  indices as a tuple unless ``axis`` is None: its values are drawn. A group holding NaN has no
  median (NaN, unchecked): a comparison sort puts NaN anywhere.
* argmax, argmin: int64 indices of the first extreme, one axis or all (flattened).

Reducing an empty set: sum is 0 and prod 1 (their identities); the others have no value there
(NumPy raises or gives NaN): a statically empty reduced extent is outside their domain, and a
symbolic one bound to 0 at run time makes the reference NaN (unchecked).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.bounds import gamma, sum_error, underflow
from passcheck.relax.ops.drawing import (
    count_range,
    draw_axes,
    draw_axis,
    normalize_axes,
    relax_ops,
    spelled_axis,
)

IDENTITY = {"sum", "prod"}  # reductions defined on an empty set
_SINGLE = ("argmax", "argmin", "median")  # one axis (an int), or all


def _draw_axes(ctx: DrawContext, first: ValueInfo, *, single: bool) -> tuple[tuple[int, ...], Any]:
    """The reduced axes and how the IR spells them (None: all; an int when ``single``)."""
    if ctx.draw(st.integers(0, 5)) == 0:
        return tuple(range(first.rank)), None
    if single:
        a = draw_axis(ctx, first.rank)
        return (a,), spelled_axis(ctx, a, first.rank)
    axes = draw_axes(ctx, first.rank)
    return axes, [spelled_axis(ctx, a, first.rank) for a in axes]


def _out_shape(first: ValueInfo, axes: tuple[int, ...], keepdims: bool) -> tuple[Any, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(first.shape) if keepdims or i not in axes)


def _draw(name: str, ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0:
        return None
    single = name in _SINGLE
    axes, spelled = _draw_axes(ctx, first, single=single)
    keepdims = ctx.draw(st.booleans())
    k_min, k_max = count_range(first.shape, axes)
    if k_min == 0 and name not in IDENTITY:
        return None
    lo, hi = first.lo, first.hi
    dtype = None
    if name in ("sum", "mean", "variance", "std"):
        # the running sums (in the graph's dtype) reach k |x| (k (2|x|)^2 for the variance's)
        reach = k_max * max(first.bound, 0.0 if name in ("sum", "mean") else (first.hi - first.lo) ** 2)
        if reach > ctx.limit:
            return None
        if name == "sum":
            lo, hi = min(k_min * lo, k_max * lo), max(k_min * hi, k_max * hi)
        elif name != "mean":
            half = (hi - lo) / 2.0
            lo, hi = 0.0, half * half if name == "variance" else half
    elif name == "prod":
        if k_max * math.log(max(first.bound, 1.0)) > math.log(ctx.limit):
            return None
        b = max(first.bound, 1.0) ** k_max
        lo, hi = (0.0 if lo >= 0 else -b), b
    elif name in ("argmax", "argmin"):
        lo, hi, dtype = 0.0, float(k_max - 1), "int64"
    attrs = {"axis": spelled, "keepdims": keepdims}
    return Drawn((first.vid,), attrs, _out_shape(first, axes, keepdims), lo, hi, dtype=dtype)


def _build(name: str, args: list[Any], attrs: dict[str, Any]) -> Any:
    from tvm import relax

    axis = attrs["axis"]
    axis = list(axis) if isinstance(axis, tuple) else axis
    out = getattr(relax_ops(), name)(args[0], axis=axis, keepdims=attrs["keepdims"])
    # median over an axis is a (values, indices) tuple; over all elements a tensor
    return relax.TupleGetItem(out, 0) if name == "median" and axis is not None else out


# -- references ----------------------------------------------------------------------------------

def _group_max(e: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    """Largest error of each reduced group (0 for an empty group)."""
    if e.size == 0:
        return np.zeros(np.sum(e, axis=axes, keepdims=keep).shape)
    return np.max(e, axis=axes, keepdims=keep)


def _sum_mean(a: Approx, axes: tuple[int, ...], k: int, keep: bool, u: float, mean: bool) -> Approx:
    v = np.sum(a.v, axis=axes, keepdims=keep)
    e = sum_error(np.abs(a.v), a.e, axes, k, u, keep)
    if mean:
        with np.errstate(all="ignore"):
            v = v / k if k else np.full(v.shape, np.nan)  # 0/0: no mean of nothing
        # the count is exact in the dtype; the division rounds once
        e = e / max(k, 1) + u * np.abs(v) + underflow(u)
    return Approx(np.asarray(v, np.float64), np.asarray(e, np.float64))


def _extreme(a: Approx, axes: tuple[int, ...], k: int, keep: bool, fn: Any) -> Approx:
    """max/min: 1-Lipschitz in the largest input error of the group, no rounding."""
    if k == 0:
        shape = np.sum(a.v, axis=axes, keepdims=keep).shape
        return Approx(np.full(shape, np.nan), np.full(shape, np.inf))
    v = fn(a.v, axis=axes, keepdims=keep)
    # a group holding NaN: NumPy gives NaN, TVM's select-based min/max an element that depends on
    # where the NaN sits (min([1, nan, 2]) is 2, min([1, 2, nan]) NaN). Unknown, not NaN only:
    # what reads it (isnan, a comparison) is unknown too, as for median
    return Approx(v, np.where(np.isnan(v), np.inf, _group_max(a.e, axes, keep)))


def _prod(a: Approx, axes: tuple[int, ...], k: int, keep: bool, u: float) -> Approx:
    v = np.prod(a.v, axis=axes, keepdims=keep)
    big = np.prod(np.abs(a.v) + a.e, axis=axes, keepdims=keep)
    # |fl(prod x') - prod x| <= gamma_{k-1} prod|x'| + (prod(|x| + e) - prod|x|); an underflow
    # in one of the k - 1 products is scaled by at most the rest of the factors
    scale = np.maximum(_group_max(np.abs(a.v) + a.e, axes, keep), 1.0) ** max(k - 1, 0)
    e = (gamma(max(k - 1, 0), u) * big + (big - np.abs(v)) + max(k - 1, 0) * underflow(u) * scale)
    return Approx(np.asarray(v, np.float64), np.maximum(e, 0.0))


def _variance(a: Approx, axes: tuple[int, ...], k: int, keep: bool, u: float, root: bool) -> Approx:
    """Two-pass variance in the dtype (and its square root for std).

    Computed mean m' = m + c with |c| <= gamma_k mean(|x|) (k - 1 additions, one division). The
    squares of x_i - m' sum, over the group, to k (var + c^2) exactly (the cross term vanishes),
    each term rounded three times (subtract, square counts twice) and the sum k - 1 times, then
    divided: relative gamma_{k+3}. Input errors: var(x + d) - var(x) = 2 mean(dev (d - mean d)) +
    mean((d - mean d)^2), bounded with |d - mean d| <= e + mean(e).
    """
    if k == 0:
        shape = np.sum(a.v, axis=axes, keepdims=keep).shape
        return Approx(np.full(shape, np.nan), np.full(shape, np.inf))

    def mean(t: np.ndarray, keepdims: bool = keep) -> np.ndarray:
        return np.mean(t, axis=axes, keepdims=keepdims)

    dev = a.v - mean(a.v, True)
    var = mean(dev * dev)
    big_e = a.e + mean(a.e, True)
    prop = 2.0 * mean(np.abs(dev) * big_e) + mean(big_e * big_e)
    c = gamma(k, u) * mean(np.abs(a.v) + a.e) + underflow(u)
    d_var = prop + c * c + gamma(k + 3, u) * (var + prop + c * c) + (k + 3) * underflow(u)
    if not root:
        return Approx(var, d_var)
    std = np.sqrt(var)
    # |sqrt(a) - sqrt(b)| <= min(sqrt|a - b|, |a - b| / sqrt(b)); sqrt rounds once
    with np.errstate(divide="ignore", invalid="ignore"):
        lipschitz = np.where(std > 0, d_var / np.where(std > 0, std, 1.0), np.inf)
    e = np.minimum(np.sqrt(d_var), lipschitz) * (1.0 + u) + u * std + underflow(u)
    return Approx(std, e)


def _median(a: Approx, axes: tuple[int, ...], keep: bool) -> Approx:
    """The lower median (index (k - 1) // 2 in sorted order): an order statistic, 1-Lipschitz
    in the largest input error of the group."""
    shape = np.sum(a.v, axis=axes, keepdims=keep).shape
    # one axis, or every element (axis=None: flattened)
    x, e, ax = (a.v, a.e, axes[0]) if len(axes) == 1 else (a.v.reshape(-1), a.e.reshape(-1), 0)
    k = x.shape[ax]
    if k == 0:
        return Approx(np.full(shape, np.nan), np.full(shape, np.inf))
    v = np.take(np.sort(x, axis=ax), (k - 1) // 2, axis=ax)
    # A group holding NaN has no order: NumPy's sort puts NaN last (its lower median of [NaN, 1]
    # is 1), TVM's comparison sort leaves it anywhere (NumPy's and torch's median give NaN).
    # Unknown (e = inf), not only NaN: what reads it (isfinite, a comparison) is unknown too.
    nan = np.any(np.isnan(x), axis=ax)
    v, err = np.where(nan, np.nan, v), np.where(nan, np.inf, np.max(e, axis=ax))
    return Approx(np.asarray(v, np.float64).reshape(shape), np.asarray(err, np.float64).reshape(shape))


def _arg(a: Approx, axis: int | None, keep: bool, largest: bool) -> Approx:
    """Index of the first max (min). It is exact only where no other element of the group could
    overtake the extreme one within both error bounds as the comparison allows them (``allowed``);
    elsewhere unknown (e = inf), as is a group holding a NaN."""
    from passcheck.relax.tolerance import allowed

    if a.v.size == 0:  # an empty output, or no element to pick (a symbolic extent bound to 0)
        shape = np.sum(a.v, axis=None if axis is None else axis, keepdims=keep).shape
        return Approx(np.zeros(shape, np.int64), np.full(shape, np.inf), "int64")
    x = a.v.reshape(-1) if axis is None else a.v
    slack = allowed(a, a.dtype or "float32")
    slack = slack.reshape(-1) if axis is None else slack
    ax = 0 if axis is None else axis
    s = x if largest else -x
    idx = np.argmax(s, axis=ax)
    top = np.take_along_axis(s, np.expand_dims(idx, ax), axis=ax)
    top_slack = np.take_along_axis(slack, np.expand_dims(idx, ax), axis=ax)
    others = np.where(np.arange(x.shape[ax]).reshape([-1 if i == ax else 1 for i in range(x.ndim)])
                      == np.expand_dims(idx, ax), -np.inf, s + slack)
    ambiguous = np.any(others >= top - top_slack, axis=ax) | np.any(np.isnan(x), axis=ax)
    e = np.where(ambiguous, np.inf, 0.0)
    if keep:
        shape = (1,) * a.v.ndim if axis is None else np.expand_dims(idx, ax).shape
        idx, e = idx.reshape(shape), e.reshape(shape)
    return Approx(np.asarray(idx, np.int64), np.asarray(e, np.float64), "int64")


def _reference(name: str, args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    (a,) = args
    raw = attrs["axis"]
    axes = normalize_axes(raw, a.v.ndim)
    keep = bool(attrs["keepdims"])
    k = math.prod(a.v.shape[i] for i in axes)
    if name in ("sum", "mean"):
        return _sum_mean(a, axes, k, keep, u, name == "mean")
    if name in ("max", "min"):
        return _extreme(a, axes, k, keep, np.max if name == "max" else np.min)
    if name == "prod":
        return _prod(a, axes, k, keep, u)
    if name in ("variance", "std"):
        return _variance(a, axes, k, keep, u, name == "std")
    if name == "median":
        return _median(a, axes, keep)
    return _arg(a, None if raw is None else axes[0], keep, name == "argmax")


# pattern as AnnotateTIROpPattern sees the legalized kernel: a division (mean), a second pass
# (variance, std) or a sort (median) after the reduction is not a plain commutative reduction
_PATTERNS = {"sum": "reduce", "mean": "conv", "max": "reduce", "min": "reduce", "prod": "reduce",
             "variance": "opaque", "std": "opaque", "median": "opaque", "argmax": "reduce", "argmin": "reduce"}


def _reduction(name: str) -> OpSpec:
    def draw(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
        return _draw(name, ctx, first)

    def build(args: list[Any], attrs: dict[str, Any]) -> Any:
        return _build(name, args, attrs)

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
        return _reference(name, args, attrs, u)

    # "step": comparisons decide argmax/argmin's index, unknown where another element is within the
    # comparison margin of the extreme one (most of an output over clustered, "narrow" values)
    tags = frozenset({"reduce", "step"} if name in ("argmax", "argmin") else {"reduce"})
    return register_op(OpSpec(name, f"relax.{name}", _PATTERNS[name], draw, build, reference,
                              symbolic=True, tags=tags, forms=declared(
                                  f"axis={'none|0|1|pos|neg' if name in _SINGLE else 'none|all|all,neg|some|some,neg'}; "
                                  "keepdims=true|false")))


for _name in _PATTERNS:
    _reduction(_name)
