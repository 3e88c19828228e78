"""Small questions about TIR nodes that the collectors and checks share."""

from __future__ import annotations

from typing import Any

from passcheck.tir.analysis.concrete import key


def free_vars(e: Any, into: dict[int, Any]) -> None:
    """Add every variable of ``e`` to ``into`` (by ``key``; the first seen object kept)."""
    import tvm
    import tvm_ffi

    def visit(n: Any) -> None:
        into.setdefault(key(n), n)

    tvm_ffi.structural_walk(e, [((tvm.ir.Var,), visit)])


def is_buffer(p: Any) -> bool:
    return type(getattr(p, "ty", None)).__name__ == "BufferType"


def is_prim(x: Any) -> bool:
    """A PrimExpr (it has a dtype), as opposed to a buffer, string or other call argument."""
    return hasattr(x, "ty") and hasattr(x.ty, "dtype")


def is_const(x: Any) -> bool:
    from tvm import tirx

    return isinstance(x, tirx.IntImm)
