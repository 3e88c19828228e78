"""Tuple-valued ops (split, meshgrid), the TupleGetItem that reads their parts, stack, and the
gradient markers that are identities at inference. All exact: errors pass through.

A tuple-valued op's ``Drawn`` lists the shape of each part; the generator keeps the tuple as
one value and follows it with TupleGetItems of some of its parts (``graphs._take_parts``), so
passes see a tuple with several consumers, as in real models.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.drawing import draw_axis, relax_ops, spelled_axis
from passcheck.relax.ops.shape import exact
from passcheck.relax.spec import Dim


def _parts(fn: Any) -> Any:
    """The reference of a tuple-valued op: ``fn`` maps arrays to a list of arrays, applied to
    values and bounds alike (a list of ``Approx``, one per part)."""

    def reference(args: list[Approx], attrs: dict[str, Any], u: float) -> list[Approx] | Approx:
        vs, es = fn([a.v for a in args], attrs), fn([a.e for a in args], attrs)
        if isinstance(vs, np.ndarray):
            return Approx(vs, es)
        # (integer values stay integers: an int64 near 2^63 through float64 lost its low bits, and
        # FuseOps's split of an int64 tensor was flagged 192 off)
        return [Approx(np.asarray(v, dtype=np.int64 if np.asarray(v).dtype.kind in "iub" else np.float64),
                       np.asarray(e, dtype=np.float64)) for v, e in zip(vs, es)]

    return reference


# -- TupleGetItem (an IR node, not an op: drawn only after a tuple-valued op) ---------------------

def _draw_get_item(ctx: DrawContext, first: ValueInfo, index: int | None = None) -> Drawn | None:
    if first.parts is None:
        return None
    i = ctx.draw(st.integers(0, len(first.parts) - 1)) if index is None else index
    return Drawn((first.vid,), {"index": i}, first.parts[i], first.lo, first.hi, first.dtype)


def _build_get_item(args: list[Any], attrs: dict[str, Any]) -> Any:
    from tvm import relax

    return relax.TupleGetItem(args[0], attrs["index"])


register_op(OpSpec("tuple_get_item", "TupleGetItem", "injective", _draw_get_item, _build_get_item,
                   lambda args, attrs, u: args[0][attrs["index"]],  # type: ignore[index]
                   symbolic=True, tags=frozenset({"ir-node"}), forms=declared("index=0|1|pos")))


# -- split ---------------------------------------------------------------------------------------

def _draw_split(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0:
        return None
    axis = draw_axis(ctx, first.rank)
    n = first.shape[axis]
    if not isinstance(n, int):
        return None
    divisors = [k for k in range(1, n + 1) if n % k == 0] or [1, 2, 3]  # n = 0 splits any way
    if ctx.draw(st.booleans()):
        sections: int | list[int] = ctx.draw(st.sampled_from(divisors))
        assert isinstance(sections, int)
        bounds = [n * i // sections for i in range(sections + 1)]
    else:
        # split points may repeat or sit at an end (empty parts), as the op allows
        # (sorted, as documented; one past the end is clamped like NumPy does)
        cuts = sorted(ctx.draw(st.lists(st.integers(0, n + 1), min_size=1, max_size=3)))
        sections, bounds = cuts, [0, *cuts, n]
    bounds = [min(b, n) for b in bounds]  # NumPy and Relax's type rule clamp an index past the end
    parts = tuple(tuple(max(b - a, 0) if i == axis else d for i, d in enumerate(first.shape))
                  for a, b in zip(bounds, bounds[1:]))
    attrs = {"sections": sections, "axis": spelled_axis(ctx, axis, first.rank) if first.static else axis}
    if sections == 1:
        # Relax types split into one section as the tensor itself, not a 1-tuple
        return Drawn((first.vid,), attrs, first.shape, first.lo, first.hi)
    return Drawn((first.vid,), attrs, (), first.lo, first.hi, parts=parts)


def _split(vals: list[np.ndarray], attrs: dict[str, Any]) -> list[np.ndarray] | np.ndarray:
    parts = list(np.split(vals[0], attrs["sections"], axis=attrs["axis"]))
    return parts[0] if attrs["sections"] == 1 else parts


register_op(OpSpec(
    "split", "relax.split", "injective", _draw_split,
    lambda args, attrs: relax_ops().split(args[0], attrs["sections"], axis=attrs["axis"]),
    _parts(_split), symbolic=True, tags=frozenset({"shape", "tuple"}),
    forms=declared("axis=0|1|pos|neg; sections=1|pos; sections has 0|1|pos")))


# -- meshgrid ------------------------------------------------------------------------------------

def _draw_meshgrid(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank != 1:
        return None
    others = [ctx.fresh((ctx.small_dim(1, 8),), first.lo, first.hi) for _ in range(ctx.draw(st.integers(0, 2)))]
    args = (first.vid, *others)
    lens: list[Dim] = [ctx.info(a).shape[0] for a in args]
    indexing = ctx.draw(st.sampled_from(("ij", "xy")))
    out = list(lens)
    if indexing == "xy" and len(out) >= 2:
        out[0], out[1] = out[1], out[0]
    lo, hi = min(ctx.info(a).lo for a in args), max(ctx.info(a).hi for a in args)
    return Drawn(args, {"indexing": indexing}, (), lo, hi, parts=tuple(tuple(out) for _ in args))


register_op(OpSpec(
    "meshgrid", "relax.meshgrid", "injective", _draw_meshgrid,
    lambda args, attrs: relax_ops().meshgrid(list(args), indexing=attrs["indexing"]),
    _parts(lambda vals, attrs: np.meshgrid(*vals, indexing=attrs["indexing"])),
    symbolic=True, tags=frozenset({"shape", "tuple"}), forms=declared("indexing=ij|xy")))


# -- stack ---------------------------------------------------------------------------------------

def _draw_stack(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    others = []
    for _ in range(ctx.draw(st.integers(0, 2))):
        other = ctx.pick(lambda v: v.shape == first.shape) if ctx.draw(st.booleans()) else None
        others.append(other.vid if other is not None else ctx.fresh(first.shape, first.lo, first.hi))
    args = (first.vid, *others)
    axis = ctx.draw(st.integers(0, first.rank))
    shape = (*first.shape[:axis], len(args), *first.shape[axis:])
    lo, hi = min(ctx.info(a).lo for a in args), max(ctx.info(a).hi for a in args)
    spelled = spelled_axis(ctx, axis, first.rank + 1) if first.static else axis
    return Drawn(args, {"axis": spelled}, shape, lo, hi)


register_op(OpSpec(
    "stack", "relax.stack", "injective", _draw_stack,
    lambda args, attrs: relax_ops().stack(list(args), axis=attrs["axis"]),
    exact(lambda vals, attrs: np.stack(vals, axis=attrs["axis"])), symbolic=True,
    tags=frozenset({"shape"}), forms=declared("axis=0|1|pos|neg")))


# -- gradient markers: identities outside the Gradient pass ---------------------------------------

def _draw_identity(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.vid < 0 and first.const_only:
        return None  # the markers' builders take a Var, and a constant input is not one (Relax's rule)
    return Drawn((first.vid,), {}, first.shape, first.lo, first.hi)


for _name in ("start_checkpoint", "end_checkpoint", "no_grad"):
    register_op(OpSpec(
        f"grad.{_name}", f"relax.grad.{_name}", "injective", _draw_identity,
        lambda args, attrs, _name=_name: getattr(relax_ops().grad, _name)(args[0]),
        exact(lambda vals, attrs: vals[0]), symbolic=True, tags=frozenset({"grad"})))
