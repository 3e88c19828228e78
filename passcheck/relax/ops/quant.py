"""Affine dequantization: ``(q - zero_point) * scale`` from int8/uint8 to the graph's float dtype,
per tensor or per channel along ``axis``.

The legalized kernel subtracts in int32 (exact), converts to float32, multiplies by the scale
(one float32 rounding), clips to the float16 range and casts (one more rounding for float16).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.rounding import Approx
from passcheck.relax.ops.base import DrawContext, Drawn, OpSpec, ValueInfo, declared, register_op
from passcheck.relax.ops.bounds import F32_U, underflow
from passcheck.relax.ops.drawing import draw_axis, nonempty, relax_ops, spelled_axis

INT_RANGE = {"int8": (-128.0, 127.0), "uint8": (0.0, 255.0)}


def _draw_dequantize(ctx: DrawContext, first: ValueInfo) -> Drawn | None:
    if first.rank == 0 or not first.static:
        return None
    q_dtype = ctx.draw(st.sampled_from(("int8", "uint8")))
    q_lo, q_hi = INT_RANGE[q_dtype]
    q = ctx.pick(lambda v: v.dtype == q_dtype and v.shape == first.shape)
    qid = q.vid if q is not None else ctx.fresh(first.shape, q_lo, q_hi, dtype=q_dtype)
    axis = draw_axis(ctx, first.rank)
    per_channel = ctx.draw(st.booleans())
    shape = (first.shape[axis],) if per_channel else ()
    s_lo, s_hi = ctx.draw(st.sampled_from(((0.01, 0.1), (0.5, 2.0))))
    scale = ctx.fresh(shape, s_lo, s_hi)
    zp = ctx.fresh(shape, -8.0, 8.0, dtype="int8") if q_dtype == "int8" else ctx.fresh(shape, 0.0, 16.0, dtype="uint8")
    z_lo, z_hi = (-8.0, 8.0) if q_dtype == "int8" else (0.0, 16.0)
    lo, hi = (q_lo - z_hi) * s_hi, (q_hi - z_lo) * s_hi
    if max(abs(lo), abs(hi)) > ctx.limit:
        return None
    attrs = {"axis": spelled_axis(ctx, axis, first.rank), "out_dtype": ctx.dtype}
    return Drawn((qid, scale, zp), attrs, first.shape, lo, hi, dtype=ctx.dtype)


def _reference_dequantize(args: list[Approx], attrs: dict[str, Any], u: float) -> Approx:
    q, s, z = args
    nd = q.v.ndim
    axis = attrs["axis"] % nd
    shape = tuple(s.v.size if i == axis else 1 for i in range(nd)) if s.v.ndim else ()
    sv, se, zv = s.v.reshape(shape), s.e.reshape(shape), z.v.reshape(shape)
    d = q.v - zv  # exact (int32)
    v = d * sv
    own = (F32_U + (u if u > F32_U else 0.0)) * np.abs(v) + 2.0 * underflow(u)
    return Approx(v, np.abs(d) * se + own)


register_op(OpSpec("dequantize", "relax.dequantize", "elemwise", nonempty(_draw_dequantize),
                   lambda args, attrs: relax_ops().dequantize(*args, axis=attrs["axis"],
                                                              out_dtype=attrs["out_dtype"]),
                   _reference_dequantize, tags=frozenset({"quantize"}), forms=declared("axis=0|1|pos|neg; out_dtype=float32|float16")))
