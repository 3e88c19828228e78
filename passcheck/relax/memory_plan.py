"""Reading and testing a memory plan (what StaticPlanBlockMemory leaves): every tensor it placed in
a storage (``R.memory.alloc_tensor(storage, offset, shape, dtype)``), the bytes it covers and when
it is live; and the same module with every planned storage poisoned (filled with 0xFF bytes: NaN
as floats, -1 as integers) as soon as it is allocated, so that a tensor read before it is written
shows in the outputs."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Placed:
    tensor: str  # the variable alloc_tensor binds
    storage: str  # the storage variable it lives in
    start: int  # its first byte in the storage
    size: int  # bytes
    born: int  # index of the binding that allocates it, in its body
    dies: int  # index of the last binding that reads it or an alias of it (the body's result: one past)


def placements(func: Any) -> list[list[Placed]]:
    """The tensors placed in storages with static sizes, per body (the function's, each branch's)."""
    from tvm import relax

    groups: list[list[Placed]] = []

    def walk(seq: Any) -> None:
        bindings = [b for block in seq.blocks for b in block.bindings]
        alias: dict[Any, Any] = {}  # var -> the allocation it names
        info: dict[Any, tuple[str, int, int, int]] = {}
        last: dict[Any, int] = {}
        for i, b in enumerate(bindings):
            value = b.value
            if isinstance(value, relax.If):
                walk(value.true_branch)
                walk(value.false_branch)
            for used in _vars_in(value):
                if used in alias:
                    last[alias[used]] = i
            if isinstance(value, relax.Var) and value in alias:
                alias[b.var] = alias[value]
            elif isinstance(value, relax.Call) and getattr(value.op, "name", "") == "relax.memory.alloc_tensor":
                size, offset = _bytes(value), value.args[1]
                if size is not None and isinstance(getattr(offset, "value", None), int):  # (a static offset)
                    info[b.var] = (value.args[0].name, int(offset.value), size, i)
                    alias[b.var] = b.var
        for used in _vars_in(seq.body):
            if used in alias:
                last[alias[used]] = len(bindings)
        groups.append([Placed(var.name, storage, start, size, born, max(born, last.get(var, born)))
                       for var, (storage, start, size, born) in info.items()])

    walk(func.body)
    return [g for g in groups if g]


def overlaps(group: list[Placed]) -> list[tuple[Placed, Placed]]:
    """Pairs of tensors live at once whose bytes in one storage overlap."""
    return [(a, b) for a, b in combinations(group, 2)
            if a.storage == b.storage and a.start < b.start + b.size and b.start < a.start + a.size
            and a.born <= b.dies and b.born <= a.dies]


def _vars_in(expr: Any) -> list[Any]:
    import tvm_ffi
    from tvm import relax

    found: list[Any] = []
    tvm_ffi.structural_walk(expr, [(relax.Var, found.append)])
    return found


def _bytes(call: Any) -> int | None:
    import tvm
    from tvm import relax

    shape, dtype = call.args[2], call.args[3]
    if not isinstance(shape, relax.ShapeExpr) or not all(hasattr(d, "value") for d in shape.values):
        return None
    dt = tvm.runtime.DataType(str(dtype.value))
    return int(np.prod([int(d.value) for d in shape.values], dtype=np.int64)) * max(1, dt.bits * dt.lanes // 8)


def poisoned(mod: Any) -> tuple[Any, int]:
    """``mod`` with every ``R.memory.alloc_storage`` of a static size followed by a kernel filling it
    with 0xFF bytes; and how many storages it poisoned."""
    from tvm import relax, te, tirx

    n = tirx.Var("n", "int64")
    fill = te.compute((n,), lambda i: tirx.const(255, "uint8"), name="poison")
    bb = relax.BlockBuilder(mod)
    kernel = bb.add_func(te.create_prim_func([fill]), "passcheck_poison")
    count = 0

    def seq(body: Any) -> Any:
        nonlocal count
        blocks = []
        for block in body.blocks:
            bindings = []
            for b in block.bindings:
                value = b.value
                if isinstance(value, relax.If):
                    value = relax.If(value.cond, seq(value.true_branch), seq(value.false_branch))
                    b = relax.VarBinding(b.var, value)
                bindings.append(b)
                allocates = getattr(getattr(value, "op", None), "name", "") == "relax.memory.alloc_storage"
                size = value.args[0] if allocates else None  # (a call of a closure may take no argument)
                if allocates and isinstance(size, relax.ShapeExpr) and all(hasattr(d, "value") for d in size.values):
                    view = relax.Var("poisoned", relax.TensorType(size.values, "uint8"))
                    bindings.append(relax.VarBinding(view, bb.normalize(relax.op.memory.alloc_tensor(
                        b.var, relax.prim_value(0), size, "uint8"))))
                    call = bb.normalize(relax.Call(kernel, [view]))
                    bindings.append(relax.VarBinding(relax.Var("_", call.ty), call))
                    count += 1
            blocks.append(relax.BindingBlock(bindings))
        return relax.SeqExpr(blocks, body.body)

    out = bb.get()
    for gv, func in mod.functions_items():
        if isinstance(func, relax.Function):
            out[gv] = relax.Function(func.params, seq(func.body), func.ret_ty, func.is_pure, func.attrs)
    # (the rebuilt R.If and bodies carry no type until normalized: an R.If of a branching program
    # then failed the well-formed check, "gv1 is missing", an alarm of ours)
    return (relax.transform.Normalize()(out) if count else mod), count
