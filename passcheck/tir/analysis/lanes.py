"""Vector indices, lane by lane: ``T.Ramp`` and ``T.Broadcast`` (as vectorization leaves them)
and integer arithmetic over them become one scalar index per lane, which the interval pass,
Z3 and the concrete replay treat like any other index. A vector expression this module cannot
split (a scalable vector, a shuffle, a vector load used as an index) stays whole: unknown."""

from __future__ import annotations

from typing import Any

from passcheck.tir.analysis.concrete import dtype_of


def lanes(e: Any) -> int | None:
    """The number of lanes of ``e``'s dtype (1 for a scalar; None when not a constant)."""
    import tvm

    try:
        return int(tvm.runtime.DataType(dtype_of(e)).lanes)
    except Exception:  # noqa: BLE001 - a scalable vector's lane count is not a constant
        return None


def _scalar(dtype: str) -> str:
    return dtype.split("x")[0]


def _binary() -> tuple[type, ...]:
    from tvm import tirx

    return (tirx.Add, tirx.Sub, tirx.Mul, tirx.Div, tirx.Mod, tirx.FloorDiv, tirx.FloorMod, tirx.Min, tirx.Max,
            tirx.EQ, tirx.NE, tirx.LT, tirx.LE, tirx.GT, tirx.GE, tirx.And, tirx.Or)


def lane(e: Any, k: int) -> Any:
    """The scalar expression lane ``k`` of ``e`` computes, or None when it cannot be split."""
    from tvm import tirx

    if lanes(e) == 1:
        return e
    t = type(e)
    if t is tirx.Ramp:
        if lanes(e.base) != 1 or lanes(e.stride) != 1:
            return None
        return tirx.Add(e.base, tirx.Mul(e.stride, tirx.IntImm(dtype_of(e.stride), k)))
    if t is tirx.Broadcast:
        return e.value if lanes(e.value) == 1 else None
    if t in _binary():
        a, b = lane(e.a, k), lane(e.b, k)
        return None if a is None or b is None else t(a, b)
    if t is tirx.Cast:
        v = lane(e.value, k)
        return None if v is None else tirx.Cast(_scalar(dtype_of(e)), v)
    if t is tirx.Select:
        parts = [lane(x, k) for x in (e.condition, e.true_value, e.false_value)]
        return None if any(p is None for p in parts) else tirx.Select(*parts)
    return None


def split_lanes(indices: list[Any]) -> list[list[Any]] | None:
    """One list of scalar indices per lane when some index is a vector (None: all scalar, or
    some vector index cannot be split)."""
    counts = {lanes(i) for i in indices}
    if counts == {1}:
        return None
    n = max((c for c in counts if c is not None), default=None)
    if None in counts or n is None or counts - {1, n}:
        return None
    out = []
    for k in range(n):
        row = [lane(i, k) for i in indices]
        if any(x is None for x in row):
            return None
        out.append(row)
    return out
