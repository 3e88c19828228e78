"""Integer tables: buffers written once, in full, before anything reads them.

``cache_index`` precomputes index expressions into such buffers (``index_var_0[i, j] = (i * 12
+ j) // 16``) and the kernel then loads its indices from them (``X[index_var_0[i, j], ...]``).
A load from a table equals the stored expression at the loaded indices, which lets the bounds
checker see through it instead of treating the index as arbitrary data.

The rule is deliberately narrow, so that it is sound without any dataflow analysis: the
buffer is allocated in the function, has exactly one store, that store sits in a perfect nest
of unit-step loops from 0 that is itself a top-level statement of the body, the loops cover the
buffer's shape exactly (each index is one of the nest's loop variables), the stored value loads
nothing, and the load lies in a *later* top-level statement (the nest has finished by then).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from passcheck.tir.analysis.concrete import dtype_of, int_info, is_int, key

# Calls that take a buffer's address: the buffer may be written behind our back.
_ADDRESS_CALLS = ("tirx.tvm_access_ptr", "tirx.address_of", "tirx.tvm_stack_make_array", "tirx.tvm_call_packed")


@dataclass(frozen=True)
class Table:
    buffer: Any
    loop_vars: tuple[Any, ...]  # the nest's variable indexing each dimension (None: a unit dim)
    value: Any  # the stored expression, in those variables
    position: int  # the top-level statement that writes it


def top_level(body: Any) -> list[Any]:
    """The body's statements in program order, looking through sequences and plain attributes."""
    from tvm import tirx

    out: list[Any] = []

    def go(s: Any) -> None:
        if type(s) is tirx.SeqStmt:
            for x in s.seq:
                go(x)
        elif type(s) is tirx.AttrStmt and s.attr_key not in ("thread_extent", "virtual_thread"):
            go(s.body)
        else:
            out.append(s)

    go(body)
    return out


def find_tables(func: Any) -> tuple[dict[int, Table], dict[int, int]]:
    """(tables by key(buffer), position of each top-level statement by key(stmt))."""
    import tvm
    import tvm_ffi
    from tvm import tirx

    top = top_level(func.body)
    position = {key(s): i for i, s in enumerate(top)}
    stores: dict[int, list[tuple[Any, tuple[Any, ...]]]] = {}
    allocated: set[int] = set()
    addressed = False

    def walk(s: Any, chain: tuple[Any, ...]) -> None:
        t = type(s)
        if t is tirx.SeqStmt:
            for x in s.seq:
                walk(x, chain)
        elif t is tirx.For:
            walk(s.body, chain + (s,))
        elif t is tirx.BufferStore:
            stores.setdefault(key(s.buffer), []).append((s, chain))
        elif t in (tirx.AllocBuffer, tirx.DeclBuffer):
            if t is tirx.AllocBuffer:
                allocated.add(key(s.buffer))
        elif t is tirx.IfThenElse:
            walk(s.then_case, chain + (s,))
            if s.else_case is not None:
                walk(s.else_case, chain + (s,))
        elif hasattr(s, "body"):  # attributes, bindings, loops of other kinds: not a plain nest
            walk(s.body, chain + (s,))

    walk(func.body, ())

    def visit_call(c: Any) -> None:
        nonlocal addressed
        if getattr(c.op, "name", "") in _ADDRESS_CALLS:
            addressed = True

    tvm_ffi.structural_walk(func.body, [((tvm.ir.Call,), visit_call)])
    if addressed:
        return {}, position
    tables: dict[int, Table] = {}
    for k, found in stores.items():
        if k not in allocated or len(found) != 1:
            continue
        store, chain = found[0]
        table = _as_table(store, chain, position)
        if table is not None:
            tables[k] = table
    return tables, position


def _as_table(store: Any, chain: tuple[Any, ...], position: dict[int, int]) -> Table | None:
    import tvm
    import tvm_ffi
    from tvm import tirx

    buf = store.buffer
    if not chain or key(chain[0]) not in position or not is_int(dtype_of(store.value)):
        return None
    if any(type(f) is not tirx.For for f in chain):
        return None
    if len(store.indices) != len(buf.shape):
        return None
    loops = {key(f.loop_var): f for f in chain}
    used: set[int] = set()
    order: list[Any] = []
    for idx, dim in zip(store.indices, buf.shape, strict=True):
        if _zero(idx) and _one(dim):  # a unit dimension: its only element
            order.append(None)
            continue
        var = idx
        if isinstance(idx, tirx.Cast) and _widens(dtype_of(idx.value), dtype_of(idx)):
            var = idx.value
        f = loops.get(key(var)) if isinstance(var, (tvm.ir.Var, tirx.Var)) else None
        if f is None or key(var) in used or not _zero(f.min) or not _unit(getattr(f, "step", None)):
            return None
        if not (tvm_ffi.structural_equal(f.extent, dim) or _same_const(f.extent, dim)):
            return None
        used.add(key(var))
        order.append(var)
    if used != set(loops):  # a loop the indices ignore would write the same element again
        return None
    loads: list[Any] = []
    tvm_ffi.structural_walk(store.value, [((tvm.ir.TensorLoad,), loads.append)])
    if loads:
        return None
    return Table(buf, tuple(order), store.value, position[key(chain[0])])


def _widens(src: str, dst: str) -> bool:
    return is_int(src) and is_int(dst) and int_info(dst)[0] >= int_info(src)[0] and int_info(src)[1] == int_info(dst)[1]


def _same_const(a: Any, b: Any) -> bool:
    from tvm import tirx

    return isinstance(a, tirx.IntImm) and isinstance(b, tirx.IntImm) and int(a.value) == int(b.value)


def _one(e: Any) -> bool:
    from tvm import tirx

    return isinstance(e, tirx.IntImm) and int(e.value) == 1


def _zero(e: Any) -> bool:
    from tvm import tirx

    return isinstance(e, tirx.IntImm) and int(e.value) == 0


def _unit(e: Any) -> bool:
    from tvm import tirx

    return e is None or (isinstance(e, tirx.IntImm) and int(e.value) == 1)
