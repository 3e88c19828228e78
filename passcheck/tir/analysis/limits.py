"""The range of each shape var both symbolic checks (and the interval pass) assume.

From below: a shape var may be 0 (an empty tensor is a valid input) unless the function
itself says otherwise, in an ``assert`` or ``T.assume`` it makes before anything else (the
code after it only runs where it holds). From above: a parameter buffer must be addressable,
and so must every buffer of ``also``: a check of a transformed function passes the buffers
the *original* declares (``declared_buffers``: parameters and intermediates), since the
original cannot run where its own intermediate is too large to index, while a buffer the
transformation added must not shrink the domain it is checked over.
Indexed with int32, it holds at most 2**31 - 1 elements; indexed with int64, at most
``ADDRESS_BYTES`` bytes (48-bit user virtual addresses: x86-64 and AArch64 with 4-level page
tables), so an int64-indexed buffer may hold far more than 2**31 elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from passcheck.tir.analysis.concrete import dtype_of, int_info, is_int, key
from passcheck.tir.analysis.nodes import free_vars, is_buffer, is_const

ADDRESS_BYTES = 2**48
INT32_ELEMENTS = 2**31 - 1


def element_limit(index_dtypes: list[str], dtype: str) -> int:
    """The most elements a buffer of element type ``dtype`` whose dims have the given index
    dtypes can hold."""
    import tvm

    t = tvm.runtime.DataType(dtype)
    item = max(1, (t.bits * t.lanes + 7) // 8)
    if max(int_info(d)[0] for d in index_dtypes) <= 32:
        return min(INT32_ELEMENTS, ADDRESS_BYTES // item)
    return ADDRESS_BYTES // item


def leading_assertions(func: Any) -> list[Any]:
    """The conditions the function asserts (``assert``, ``T.assume``) before it does anything
    else: every access of the body runs only where they hold."""
    from tvm import s_tir, tirx

    out: list[Any] = []

    def walk(s: Any) -> bool:
        """Collect from ``s``; whether what follows ``s`` still runs only under them."""
        t = type(s)
        if t is tirx.SeqStmt:
            return all(walk(x) for x in s.seq)
        if t is tirx.AssertStmt:
            out.append(s.condition)
            return True
        if t is tirx.Evaluate and getattr(getattr(s.value, "op", None), "name", "") == "tirx.assume":
            out.append(s.value.args[0])
            return True
        if t is tirx.DeclBuffer:
            return True
        if t is s_tir.SBlockRealize:  # the root block of a scheduled function
            walk(s.block.body)
        return False

    walk(func.body)
    return out


def _conjuncts(cond: Any) -> list[Any]:
    from tvm import tirx

    return [*_conjuncts(cond.a), *_conjuncts(cond.b)] if type(cond) is tirx.And else [cond]


def _asserted_range(func: Any) -> dict[int, tuple[int | None, int | None]]:
    """Bounds of shape vars stated plainly (``n >= c``, ``c < n``, ``n <= c``, ...) by the
    leading assertions; a condition of another form only restricts the Z3 questions."""
    import tvm
    from tvm import tirx

    out: dict[int, tuple[int | None, int | None]] = {}

    def note(var: Any, lo: int | None = None, hi: int | None = None) -> None:
        old_lo, old_hi = out.get(key(var), (None, None))
        if lo is not None:
            old_lo = lo if old_lo is None else max(lo, old_lo)
        if hi is not None:
            old_hi = hi if old_hi is None else min(hi, old_hi)
        out[key(var)] = (old_lo, old_hi)

    for cond in leading_assertions(func):
        for c in _conjuncts(cond):
            t = type(c)
            if t not in (tirx.GE, tirx.GT, tirx.LE, tirx.LT):
                continue
            a, b = c.a, c.b
            if type(a) is tvm.ir.Var and is_const(b):
                var, v, var_left = a, int(b.value), True
            elif type(b) is tvm.ir.Var and is_const(a):
                var, v, var_left = b, int(a.value), False
            else:
                continue
            # Normalise to "var >= v" or "var <= v".
            greater = (t in (tirx.GE, tirx.GT)) == var_left
            strict = t in (tirx.GT, tirx.LT)
            if greater:
                note(var, lo=v + strict)
            else:
                note(var, hi=v - strict)
    return out


def declared_buffers(func: Any) -> list[Any]:
    """The buffers ``func`` declares: its parameters and the buffers its blocks allocate."""
    import tvm_ffi
    from tvm import s_tir

    out = [p for p in func.params if is_buffer(p)]

    def on_block(b: Any) -> None:
        out.extend(b.alloc_buffers)

    tvm_ffi.structural_walk(func.body, [((s_tir.SBlock,), on_block)])
    return out


def shape_var_limits(func: Any, also: Sequence[Any] = ()) -> dict[int, tuple[int, int]]:
    """The range ``(lo, hi)`` of each shape var (module docstring): ``hi`` is the most
    elements of every parameter buffer, and buffer of ``also``, it sizes alone (divided by
    the buffer's constant dims), ``lo`` is 0 unless the leading assertions say more."""

    highs: dict[int, int] = {}
    found: dict[int, Any] = {}
    for p in [*(p for p in func.params if is_buffer(p)), *also]:
        dims = list(p.shape)
        for d in dims:
            free_vars(d, found)
        if not dims:
            continue
        limit = element_limit([dtype_of(d) for d in dims], str(p.dtype))
        # a dim that is a var, or linear in one (n + 3, 2 * n - 1: a padded or derived size),
        # bounds that var: the buffer stays addressable and its extent has no wrapped value
        linear = [None if is_const(d) else _linear(d) for d in dims]
        if all(is_const(d) or f is not None for d, f in zip(dims, linear)):
            const = 1
            for d in dims:
                const *= int(d.value) if is_const(d) else 1
            for f in linear:
                if f is not None:
                    var, a, b = f
                    k = key(var)
                    highs[k] = min(highs.get(k, limit), (limit // max(const, 1) - b) // a)
    asserted = _asserted_range(func)
    limits: dict[int, tuple[int, int]] = {}
    for k, v in found.items():
        if not is_int(dtype_of(v)):
            continue
        bits, signed = int_info(dtype_of(v))
        most = (1 << (bits - signed)) - 1  # what the var's own dtype holds
        hi = min(most, highs.get(k, most))
        lo, hi2 = asserted.get(k, (None, None))
        lo = max(0, lo) if lo is not None else 0
        hi = min(hi, hi2) if hi2 is not None else hi
        limits[k] = (lo, hi)
    return limits


def _linear(e: Any) -> tuple[Any, int, int] | None:
    """``(var, a, b)`` when ``e`` is ``a * var + b`` with constants ``a > 0`` and ``b`` (one var)."""
    import tvm
    from tvm import tirx

    def form(x: Any) -> tuple[Any, int, int] | None:  # (var or None, a, b)
        if is_const(x):
            return None, 0, int(x.value)
        if type(x) is tvm.ir.Var:
            return x, 1, 0
        t = type(x)
        if t in (tirx.Add, tirx.Sub):
            fa, fb = form(x.a), form(x.b)
            if fa is None or fb is None or (fa[0] is not None and fb[0] is not None):
                return None
            sign = 1 if t is tirx.Add else -1
            return fa[0] if fa[0] is not None else fb[0], fa[1] + sign * fb[1], fa[2] + sign * fb[2]
        if t is tirx.Mul:
            fa, fb = form(x.a), form(x.b)
            if fa is None or fb is None:
                return None
            (v, a, b), (c, k) = (fa, (fb[0], fb[2])) if fb[0] is None else (fb, (fa[0], fa[2]))
            if c is not None:
                return None  # var * var
            return v, a * k, b * k
        return None

    f = form(e)
    if f is None or f[0] is None or f[1] <= 0:
        return None
    return f
