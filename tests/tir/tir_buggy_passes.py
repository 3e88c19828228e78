"""Deliberately wrong TIR transformations (IRModule -> IRModule over schedulable PrimFuncs),
each mimicking a real class of scheduling bug. Used by test_tir_buggy_passes.py."""

from __future__ import annotations

from typing import Any

import tvm
import tvm_ffi
from tvm import s_tir, tirx


def drop_predicates(mod: Any) -> Any:
    """Forget every block predicate (``T.where``): a split's tail guard disappears."""

    def drop(r: Any) -> Any:
        return s_tir.SBlockRealize(r.iter_values, tirx.const(True, "bool"), r.block)

    return tvm_ffi.structural_map(mod, [(s_tir.SBlockRealize, drop)])


def loop_one_too_long(mod: Any) -> Any:
    """The outermost loop of the first nest runs one iteration too many."""
    done: list[int] = []

    def longer(loop: Any) -> Any:
        if done:
            return loop
        done.append(1)
        one = tirx.IntImm(str(loop.extent.ty.dtype), 1)
        return tirx.For(loop.loop_var, loop.min, loop.extent + one, loop.kind, loop.body, loop.thread_binding,
                        loop.annotations)

    return tvm_ffi.structural_map(mod, [(tirx.For, longer)], order="pre")


def _rewrite_loads_of(mod: Any, buffer_name: str, fn: Any) -> Any:
    """Rewrite the last index of every load from ``buffer_name`` with ``fn(index, extent)``."""

    def load(n: Any) -> Any:
        if n.source.name != buffer_name:
            return n
        idx = list(n.indices)
        idx[-1] = fn(idx[-1], n.source.shape[-1])
        return tirx.BufferLoad(n.source, idx)

    return tvm_ffi.structural_map(mod, [(tvm.ir.TensorLoad, load)])


def shift_input_load(mod: Any) -> Any:
    """Every load of the input ``X`` reads one element further along the last axis."""
    return _rewrite_loads_of(mod, "X", lambda i, ext: i + tirx.IntImm(str(i.ty.dtype), 1))


def clamp_input_load(mod: Any) -> Any:
    """Like ``shift_input_load`` but clamped into the buffer: never out of bounds, just wrong."""

    def clamp(i: Any, ext: Any) -> Any:
        one = tirx.IntImm(str(i.ty.dtype), 1)
        return tirx.min(i + one, ext - one)

    return _rewrite_loads_of(mod, "X", clamp)


def init_inside_reduction_loop(mod: Any) -> Any:
    """decompose_reduction, but with the init block placed inside the innermost reduction loop
    instead of before it: the accumulator is reset at every step."""
    sch = s_tir.Schedule(mod)
    red = next(b for b in _blocks(sch) if any(int(iv.iter_type) == 2 for iv in sch.get(b).iter_vars))
    loops = sch.get_loops(red)
    kinds = [iv.iter_type for iv in sch.get(red).iter_vars]
    first_r = next(i for i, k in enumerate(kinds) if int(k) == 2)
    sch.decompose_reduction(red, loops[first_r])
    moved: list[int] = []

    def seq(s: Any) -> Any:
        items = list(s.seq)
        for i in range(len(items) - 1):
            a, b = items[i], items[i + 1]
            if (not moved and isinstance(a, s_tir.SBlockRealize) and a.block.name_hint.endswith("_init")
                    and isinstance(b, tirx.For)):
                moved.append(1)
                inner = _innermost(b)
                rest = items[:i] + [_with_body_prefix(b, inner, a)] + items[i + 2:]
                return rest[0] if len(rest) == 1 else tirx.SeqStmt(rest)
        return s

    return tvm_ffi.structural_map(sch.mod, [(tirx.SeqStmt, seq)], order="pre")


def _blocks(sch: Any) -> list[Any]:
    from passcheck.tir.schedule import block_names

    return [sch.get_sblock(n) for n in block_names(sch)]


def _innermost(loop: Any) -> Any:
    while isinstance(loop.body, tirx.For):
        loop = loop.body
    return loop


def _with_body_prefix(outer: Any, target: Any, stmt: Any) -> Any:
    """``outer`` with ``stmt`` inserted at the start of ``target``'s body (target is nested in outer)."""
    if outer.same_as(target):
        return tirx.For(outer.loop_var, outer.min, outer.extent, outer.kind, tirx.SeqStmt([stmt, outer.body]),
                        outer.thread_binding, outer.annotations)
    return tirx.For(outer.loop_var, outer.min, outer.extent, outer.kind, _with_body_prefix(outer.body, target, stmt),
                    outer.thread_binding, outer.annotations)


def _first_symbolic_loop(mod: Any, rewrite: Any) -> Any:
    """``mod`` with the outermost loop whose extent is not a constant replaced by ``rewrite(loop)``."""
    done: list[int] = []

    def visit(loop: Any) -> Any:
        if done or isinstance(loop.extent, tirx.IntImm):
            return loop
        done.append(1)
        return rewrite(loop)

    return tvm_ffi.structural_map(mod, [(tirx.For, visit)], order="pre")


def loop_runs_at_least_once(mod: Any) -> Any:
    """A loop over a symbolic extent becomes a do-while loop: it runs ``max(extent, 1)`` times,
    right for every non-empty input, out of bounds for an empty one."""

    def do_while(loop: Any) -> Any:
        one = tirx.IntImm(str(loop.extent.ty.dtype), 1)
        return tirx.For(loop.loop_var, loop.min, tirx.max(loop.extent, one), loop.kind, loop.body,
                        loop.thread_binding, loop.annotations)

    return _first_symbolic_loop(mod, do_while)


def skip_empty_input(mod: Any) -> Any:
    """An early exit for an empty input: the first nest over a symbolic extent runs only when
    the shape var is positive -- but a padding kernel still owes its padding rows then."""
    from passcheck.tir.analysis.nodes import free_vars

    def guarded(loop: Any) -> Any:
        found: dict[int, Any] = {}
        free_vars(loop.extent, found)
        n = next(iter(found.values()))
        return tirx.IfThenElse(n > tirx.IntImm(str(n.ty.dtype), 0), loop, None)

    return _first_symbolic_loop(mod, guarded)


def narrow_int64_indices(mod: Any) -> Any:
    """Every int64 load index computed in int32 and widened back (a pass that "saves registers"):
    the same value while the index stays below 2^31, negative past it. Only kernels of int64
    indices over shape vars large enough reach it (index narrowing near 2^31)."""

    def load(n: Any) -> Any:
        idx = [tirx.Cast("int64", tirx.Cast("int32", i)) if str(i.ty.dtype) == "int64"
               and not isinstance(i, tirx.IntImm) else i for i in n.indices]
        return tirx.BufferLoad(n.source, idx)

    return tvm_ffi.structural_map(mod, [(tvm.ir.TensorLoad, load)])
