"""Lost updates across GPU threads, decided by Z3 on the kernels as the codegen sees them.

A store ``X[idx] = f(X[idx], ...)`` (a read-modify-write, as a reduction's update is) inside a
kernel is a lost update when two different threads of one launch can execute it on the same
element: one thread's addition overwrites the other's. TVM's cross-thread reductions never do
this (each thread accumulates in its own registers; the combined value is written, not
added), so such a store means a reduction whose threads' partial results were never
combined, or a reduction that every thread of a block runs in full.

Two copies of the store's trail are encoded: the host part (loops and bindings outside the
kernel: one launch) is shared, the kernel part is encoded once per thread. Thread indices
must differ (for shared memory, within one block: the block indices equal), the store indices
be equal. A model is replayed concretely for both threads before it is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from passcheck.tir.analysis import Encoder, Loop, TrailEncoder, from_model, key, replay, shape_var_limits
from passcheck.tir.analysis.bounds_collect import Collector
from passcheck.tir.analysis.concrete import EvalError, dtype_of, is_int
from passcheck.tir.analysis.nodes import free_vars, is_buffer, is_prim
from passcheck.tir.analysis.tables import find_tables


@dataclass
class LostUpdate:
    buffer: str
    indices: str
    point_a: tuple[tuple[str, int], ...]
    point_b: tuple[tuple[str, int], ...]

    def describe(self) -> str:
        a = ", ".join(f"{n}={v}" for n, v in self.point_a)
        b = ", ".join(f"{n}={v}" for n, v in self.point_b)
        return f"{self.buffer}[{self.indices}] is read-modified-written at once by two threads: ({a}) and ({b})"


class _Stores(Collector):
    """The bounds walker, also keeping every read-modify-write store with its trail."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.rmw: list[tuple[Any, Any, tuple[Any, ...]]] = []

    def access(self, kind: str, node: Any, buffer: Any, indices: Any) -> None:
        super().access(kind, node, buffer, indices)
        if kind == "store" and _reads_itself(node):
            self.rmw.append((node, buffer, self.trail))


def _reads_itself(store: Any) -> bool:
    import tvm
    import tvm_ffi

    hit: list[bool] = []

    def on_load(load: Any) -> None:
        if key(load.source) == key(store.buffer) and tvm_ffi.structural_equal(list(load.indices),
                                                                              list(store.indices)):
            hit.append(True)

    tvm_ffi.structural_walk(store.value, [(tvm.ir.TensorLoad, on_load)])
    return bool(hit)


def _thread_tags(func: Any) -> dict[int, str]:
    import tvm_ffi
    from tvm import tirx

    tags: dict[int, str] = {}

    def on_attr(node: Any) -> None:
        if node.attr_key == "thread_extent" and isinstance(node.node, tirx.IterVar):
            tags[key(node.node.var)] = str(node.node.thread_tag)

    tvm_ffi.structural_walk(func.body, [(tirx.AttrStmt, on_attr)])
    return tags


def _allocated_outside_kernels(func: Any) -> set[int]:
    """Buffers allocated in the host code, whatever their scope: the host allocates them in
    device memory and every kernel gets a pointer (a "local" one too: then all threads share it)."""
    import tvm_ffi
    from tvm import tirx

    out: set[int] = set()

    def on_attr(node: Any, visitor: Any) -> None:
        if node.attr_key == "thread_extent" and isinstance(node.node, tirx.IterVar):
            return  # a kernel
        visitor.default_visit(node)

    def on_alloc(node: Any, visitor: Any) -> None:
        out.add(key(node.buffer))
        visitor.default_visit(node)

    tvm_ffi.structural_visit(func.body, [(tirx.AttrStmt, on_attr), (tirx.AllocBuffer, on_alloc)])
    return out


def lost_updates(mod: Any, timeout_ms: int = 2000, budget_s: float = 15.0) -> tuple[list[LostUpdate], list[str]]:
    """(confirmed lost updates, unknowns) of every PrimFunc of a block-free module; past
    ``budget_s`` seconds the stores not yet asked about are unknown."""
    import time

    from tvm import tirx

    deadline = time.perf_counter() + budget_s
    found: list[LostUpdate] = []
    unknown: list[str] = []
    for _, func in mod.functions.items():
        if not isinstance(func, tirx.PrimFunc):
            continue
        tags = _thread_tags(func)
        limits = shape_var_limits(func)
        col = _Stores(limits, *find_tables(func))
        for p in func.params:
            if is_buffer(p):
                col.buffers[key(p)] = p
        col.stmt(func.body)
        outside = _allocated_outside_kernels(func)
        for store, buf, trail in col.rmw:
            if str(buf.scope()) == "local" and key(buf) not in outside:
                continue  # a thread's own registers
            first = next((i for i, s in enumerate(trail) if isinstance(s, Loop) and key(s.var) in tags), None)
            if first is None:
                continue  # host code
            if time.perf_counter() > deadline:
                unknown.append(f"{buf.name}: Z3 budget of {budget_s:g} s spent")
                continue
            answer = _race(store, buf, trail, first, tags, timeout_ms, limits)
            if isinstance(answer, LostUpdate):
                found.append(answer)
            elif answer:
                unknown.append(answer)
    return found, unknown


def _race(store: Any, buf: Any, trail: tuple[Any, ...], first: int, tags: dict[int, str],
          timeout_ms: int, limits: dict[int, tuple[int, int]]) -> LostUpdate | str | None:
    ctx = z3.Context()
    host = TrailEncoder(Encoder(ctx=ctx))
    cons = host.path(trail[:first])
    used: dict[int, Any] = {}
    for s in trail:
        for x in s.exprs():
            if is_prim(x):
                free_vars(x, used)
    for i in store.indices:
        free_vars(i, used)
    inner = {key(s.var) for s in trail[first:] if hasattr(s, "var")}
    for k, v in used.items():
        if k not in inner and is_int(dtype_of(v)):
            term = host.enc.var_term(v)
            if k in host.enc.free:  # a shape var (or a scalar parameter): a size is at least 1
                cons.append(term >= 1)
                if k in limits:  # and no larger than an addressable buffer (as in the bounds check):
                    cons.append(term <= limits[k][1])  # else wrapped indices collide on paper only
    a = TrailEncoder.fresh(ctx, "_a", host.enc.env)
    b = TrailEncoder.fresh(ctx, "_b", host.enc.env)
    try:
        cons += a.path(trail[first:]) + b.path(trail[first:])
        same = [a.enc.enc(i) == b.enc.enc(i) for i in store.indices]
    except EvalError as e:
        return f"not encodable: {e}"
    threads = [s.var for s in trail[first:] if isinstance(s, Loop) and key(s.var) in tags]
    differ = [a.enc.env[key(v)] != b.enc.env[key(v)] for v in threads if tags[key(v)].startswith("threadIdx")]
    blocks = [a.enc.env[key(v)] == b.enc.env[key(v)] for v in threads if tags[key(v)].startswith("blockIdx")]
    if str(buf.scope()).startswith("shared"):
        cons += blocks  # shared memory is per block
    else:
        differ += [z3.Not(c) for c in blocks]
    if not differ:
        return None
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", timeout_ms)
    answer = solver.check(*cons, *same, z3.Or(*differ))
    if answer == z3.unsat:
        return None
    if answer == z3.unknown:
        return f"{buf.name}: Z3 gave up ({solver.reason_unknown()})"
    model = solver.model()
    env = {k: int(model.eval(t, model_completion=True).as_long()) for k, (_, t) in host.enc.free.items()
           if isinstance(t, z3.BitVecRef)}
    ra = replay(trail, from_model(model, a), env, known={})
    rb = replay(trail, from_model(model, b), env, known={})
    if ra.ev is None or rb.ev is None:
        return f"{buf.name}: a model Z3 found does not replay ({ra.why or rb.why})"
    try:
        ia = [ra.ev(i) for i in store.indices]
        ib = [rb.ev(i) for i in store.indices]
    except EvalError as e:
        return f"{buf.name}: not evaluable concretely ({e})"
    if ia != ib or ra.point == rb.point:
        return f"{buf.name}: the model's two threads do not meet concretely"
    return LostUpdate(buf.name, ", ".join(str(i) for i in store.indices), ra.point, rb.point)
