"""The realistic-size assumption both symbolic checks make about shape vars."""

from __future__ import annotations

from typing import Any

from passcheck.tir.analysis.concrete import dtype_of, int_info, is_int, key
from passcheck.tir.analysis.nodes import free_vars, is_buffer, is_const

ELEMENT_LIMIT = {32: 2**31 - 1, 64: 2**40}  # realistic buffer sizes when shapes are symbolic


def shape_var_limits(func: Any) -> dict[int, int]:
    """Largest value of each shape var under the realism assumption (a parameter buffer holds
    at most ELEMENT_LIMIT elements; every shape var is >= 1). The interval pass and the Z3
    encoding assume the same."""
    import tvm

    limits: dict[int, int] = {}
    found: dict[int, Any] = {}
    for p in func.params:
        if not is_buffer(p):
            continue
        dims = list(p.shape)
        for d in dims:
            free_vars(d, found)
        if not dims:
            continue
        limit = ELEMENT_LIMIT[32 if max(int_info(dtype_of(d))[0] for d in dims) <= 32 else 64]
        if all(is_const(d) or type(d) is tvm.ir.Var for d in dims):
            const = 1
            for d in dims:
                const *= int(d.value) if is_const(d) else 1
            for d in dims:
                if type(d) is tvm.ir.Var:
                    k = key(d)
                    limits[k] = min(limits.get(k, limit), limit // max(const, 1))
    for k, v in found.items():
        if is_int(dtype_of(v)):
            bits = int_info(dtype_of(v))[0]
            limits.setdefault(k, ELEMENT_LIMIT[32 if bits <= 32 else 64])
    return limits
