"""Pre-fills of a kernel's output and of every buffer it allocates: NaN (or the lowest integer), a
second fill to tell an element left unwritten from one written as NaN, and a finite marker drawn
with the spec (``execution``'s module docstring says why each)."""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.tir.kernels import PrimFuncSpec


def _poison(shape: tuple[int, ...], dtype: str, second: bool = False) -> np.ndarray:
    """Output pre-fill that no correct kernel leaves behind: NaN, or the most negative int.
    ``second``: another fill, to tell an element left unwritten from one written as NaN."""
    if np.issubdtype(np.dtype(dtype), np.floating):
        return np.full(shape, -1.5e38 if second else np.nan, dtype=dtype)
    info = np.iinfo(dtype)
    return np.full(shape, info.max if second else info.min, dtype=dtype)


POISON_LIMIT = 1 << 24  # elements: a larger constant allocation is a bug of its own, not worth filling


def _fillable(buf: Any) -> bool:
    from tvm import tirx

    n = 1
    for d in buf.shape:
        if isinstance(d, tirx.IntImm):
            n *= int(d.value)
    return n <= POISON_LIMIT


# Finite pre-fills, one drawn per spec (with its seed): large enough to win a max or to push
# a sum far off, exact in float16, far from any value a kernel computes from inputs in [-3, 3].
MARKERS = (8192.5, -8192.5, 1027.25, -1027.25, 30000.0, -30000.0)
FILL_PARAM = "passcheck_fill"


def marker(spec: PrimFuncSpec) -> float:
    """The finite value ``spec``'s scheduled kernels are pre-filled with (besides NaN)."""
    return MARKERS[(spec.seed // 2) % len(MARKERS)]


def poison_intermediates(mod: Any, lowered: Any = None, fill: Any = None) -> Any:
    """``mod`` lowered to loops (``lowered``, when the caller has it already), each float buffer
    it allocates filled on allocation with ``fill`` (an expression, e.g. a scalar parameter;
    NaN by default) -- and, given a ``fill``, each integer buffer too (the lowest integer where
    the fill is NaN); None when it allocates none (or lowering fails)."""
    import math

    import tvm_ffi
    from tvm import tirx

    from passcheck.tir.lowering import lower_to_loops

    def value(dtype: str) -> Any:
        if not np.issubdtype(np.dtype(dtype), np.floating):
            # An integer buffer (an index table): the fill as an integer, the lowest one for NaN.
            low = tirx.IntImm(dtype, int(np.iinfo(dtype).min))
            if fill is None:
                return low
            return tirx.if_then_else(tirx.isnan(fill), low, tirx.Cast(dtype, fill))
        if fill is None:
            return tirx.FloatImm(dtype, math.nan)
        return fill if str(fill.ty.dtype) == dtype else tirx.Cast(dtype, fill)

    def fillable(buf: Any) -> bool:
        dt = np.dtype(str(buf.dtype)) if str(buf.dtype) != "bool" else None
        if dt is None or not (np.issubdtype(dt, np.floating) or (fill is not None and np.issubdtype(dt, np.integer))):
            return False
        return _fillable(buf)

    def fill_loop(buf: Any) -> Any:
        idx = [tirx.Var(f"poison_{k}", str(d.ty.dtype)) for k, d in enumerate(buf.shape)]
        body = tirx.BufferStore(buf, value(str(buf.dtype)), idx)
        for v, d in reversed(list(zip(idx, buf.shape, strict=True))):
            body = tirx.For(v, tirx.IntImm(str(d.ty.dtype), 0), d, tirx.ForKind.SERIAL, body)
        return body

    def on_seq(seq: Any) -> Any:
        out = []
        for s in seq.seq:
            out.append(s)
            if type(s) is tirx.AllocBuffer and fillable(s.buffer):
                out.append(fill_loop(s.buffer))
        return tirx.SeqStmt(out) if len(out) != len(seq.seq) else seq

    try:
        low = lowered if lowered is not None else lower_to_loops(mod)
    except Exception:  # noqa: BLE001
        return None
    filled = tvm_ffi.structural_map(low, [(tirx.SeqStmt, on_seq)])
    return None if filled.same_as(low) else filled


def _with_fill_param(mod: Any, lowered: Any) -> Any:
    """``mod`` lowered, its allocations filled with a trailing float64 parameter of ``main``
    (``FILL_PARAM``): one build serves every fill. None when there is nothing to fill."""
    import tvm
    from tvm import tirx

    var = tirx.Var(FILL_PARAM, "float64")
    filled = poison_intermediates(mod, lowered, var)
    if filled is None:
        return None
    f = filled["main"]
    return tvm.IRModule({"main": tirx.PrimFunc([*f.params, var], f.body, f.ret_type, f.attrs)})


def _out_fill(value: float, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if np.issubdtype(np.dtype(dtype), np.floating):
        return np.full(shape, value, dtype=dtype)
    info = np.iinfo(dtype)
    return np.full(shape, info.min if np.isnan(value) else int(value), dtype=dtype)
