"""Reads before writes: every load of a buffer the function allocates must read an element
that a store wrote earlier, in the same life of the allocation.

Over the lowered function (the bounds checker's form, block-free), each load of an allocated
buffer is a question for Z3 on its trail (``trail.TrailEncoder``): is there a point where the
load runs and reads an element that no store to the buffer wrote before it? "Before" is the
order the loops run in: the loops around the allocation take the same values (a buffer
allocated inside a loop is a new buffer at each iteration), the loops both accesses share
take smaller values lexicographically, or the same values and the store comes first in
program order (in ``C[i] = C[i] + x`` the load comes first). The stores' own loop variables
are quantified universally. Shape vars take their run-time values (the sizes the kernel is
run at). A witness is replayed concretely -- the load's point is reached, and no point of any
store's loop nest writes the element before it -- before it is reported; a timeout, a witness
the replay does not confirm, or a nest too large to enumerate is ``unknown``.

Threads run their loops at once, not in order: an access under a thread binding is not
judged (unknown), nor is one whose trail Z3 cannot see through (a data-dependent guard).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import z3

from passcheck.tir.analysis.bounds_collect import Collector
from passcheck.tir.analysis.concrete import EvalError, Evaluator, dtype_of, is_int, key
from passcheck.tir.analysis.lanes import split_lanes
from passcheck.tir.analysis.nodes import free_vars
from passcheck.tir.analysis.trail import Bind, Guard, Loop, Trail, TrailEncoder, from_model, replay

ENUMERATION_LIMIT = 50_000  # points of one store's loop nest a replay may walk


@dataclass
class Access:
    kind: str  # "load" | "store"
    buffer: Any
    row: list[Any]  # scalar indices (one lane)
    trail: Trail
    order: int  # program order (a load in a store's value comes before the store)


@dataclass
class UninitRead:
    buffer: str
    indices: str
    point: tuple[tuple[str, int], ...]
    element: tuple[int, ...]

    def describe(self) -> str:
        at = ", ".join(f"{n}={v}" for n, v in self.point) or "its only point"
        return (f"reads {self.buffer}[{', '.join(map(str, self.element))}] (load {self.buffer}[{self.indices}]) at "
                f"{at}, an element no store wrote before")


@dataclass
class UninitResult:
    reads: list[UninitRead] = field(default_factory=list)
    unknown: list[tuple[str, str]] = field(default_factory=list)
    loads_checked: int = 0
    seconds: float = 0.0


class _Walker(Collector):
    """The bounds walker, keeping every access (not only those intervals cannot prove) with
    its program order, and the trail at which each buffer is allocated."""

    def __init__(self) -> None:
        super().__init__()
        self.all: list[Access] = []
        self.allocated: dict[int, Trail] = {}

    def stmt(self, s: Any) -> None:
        from tvm import tirx

        if type(s) is tirx.AllocBuffer:
            self.allocated[key(s.buffer)] = self.trail
        super().stmt(s)

    def access(self, kind: str, node: Any, buffer: Any, indices: Any) -> None:
        self.accesses += 1
        idx = list(indices)
        rows = split_lanes(idx) if len(idx) == len(list(buffer.shape)) else None
        for row in rows or [idx]:
            self.all.append(Access(kind, buffer, list(row), self.trail, len(self.all)))


def _loops(trail: Trail) -> list[Loop]:
    return [s for s in trail if isinstance(s, Loop)]


def _common(a: Trail, b: Trail) -> list[Loop]:
    """The loops the two trails share (their common prefix, by identity)."""
    out = []
    for x, y in zip(a, b, strict=False):
        if type(x) is not type(y):
            break
        if isinstance(x, Guard):
            if key(x.cond) != key(y.cond) or x.polarity != y.polarity:
                break
        elif key(x.var) != key(y.var):
            break
        if isinstance(x, Loop):
            out.append(x)
    return out


def _lex_less(a: list[Any], b: list[Any]) -> Any:
    """``a`` before ``b`` in lexicographic order (both non-empty, signed loop values)."""
    head = a[0] < b[0]
    if len(a) == 1:
        return head
    return z3.Or(head, z3.And(a[0] == b[0], _lex_less(a[1:], b[1:])))


class UninitChecker:
    def __init__(self, sizes: dict[str, int], timeout_ms: int, budget_s: float) -> None:
        self.sizes = sizes
        self.timeout_ms = timeout_ms
        self.deadline = time.perf_counter() + budget_s
        self.res = UninitResult()

    def check_func(self, func: Any) -> UninitResult:
        t0 = time.perf_counter()
        w = _Walker()
        for p in func.params:
            w.buffers[key(p)] = p
        w.stmt(func.body)
        self.ctx = z3.Context()
        self.env, self.shared = self._shape_vars(func)
        stores: dict[int, list[Access]] = {}
        for a in w.all:
            if a.kind == "store":
                stores.setdefault(key(a.buffer), []).append(a)
        for a in w.all:
            if a.kind != "load" or key(a.buffer) not in w.allocated:
                continue
            if time.perf_counter() > self.deadline:
                self.res.unknown.append((a.buffer.name, "the time budget of the check ran out"))
                continue
            self.res.loads_checked += 1
            self._check_load(a, stores.get(key(a.buffer), []), w.allocated[key(a.buffer)])
        self.res.seconds += time.perf_counter() - t0
        return self.res

    def _shape_vars(self, func: Any) -> tuple[dict[int, int], dict[int, Any]]:
        found: dict[int, Any] = {}
        for p in func.params:
            for d in getattr(p, "shape", []):
                free_vars(d, found)
        env, shared = {}, {}
        for k, v in found.items():
            if v.name in self.sizes and is_int(dtype_of(v)):
                env[k] = self.sizes[v.name]
                bits = 64 if dtype_of(v) == "int64" else 32
                shared[k] = z3.BitVecVal(self.sizes[v.name], bits, ctx=self.ctx)
        return env, shared

    def _check_load(self, load: Access, stores: list[Access], alloc: Trail) -> None:
        name = load.buffer.name
        if any(_thread_bound(s) for s in load.trail) or any(_thread_bound(s) for st in stores for s in st.trail):
            self.res.unknown.append((name, "an access under a thread binding: threads do not run in loop order"))
            return
        r = TrailEncoder.fresh(self.ctx, "_r", self.shared)
        try:
            cons = r.path(load.trail)
            idx_r = [r.enc.enc(i) for i in load.row]
        except (EvalError, KeyError, z3.Z3Exception) as e:
            self.res.unknown.append((name, f"the load does not encode: {e}"))
            return
        if any(i is None for i in idx_r):
            self.res.unknown.append((name, "a non-integer index"))
            return
        for k, st in enumerate(stores):
            c = self._not_written_before(st, k, load, r, idx_r, alloc)
            if c is None:
                self.res.unknown.append((name, "a store's trail does not encode"))
                return
            cons.append(c)
        s = z3.Solver(ctx=self.ctx)
        s.set("timeout", max(1, min(self.timeout_ms, int((self.deadline - time.perf_counter()) * 1000))))
        s.add(*cons)
        verdict = s.check()
        if verdict == z3.unsat:
            return
        if verdict != z3.sat:
            self.res.unknown.append((name, f"Z3: {s.reason_unknown()}"))
            return
        self._confirm(load, stores, alloc, from_model(s.model(), r))

    def _not_written_before(self, st: Access, k: int, load: Access, r: TrailEncoder, idx_r: list[Any],
                            alloc: Trail) -> Any:
        """No point of store ``st`` writes the element ``idx_r`` before the load's point."""
        w = TrailEncoder.fresh(self.ctx, f"_w{k}", self.shared, strict=True)
        try:
            path = w.path(st.trail)
            idx_w = [w.enc.enc(i) for i in st.row]
        except (EvalError, KeyError, z3.Z3Exception):
            return None
        if w.enc.opaque or any(i is None for i in idx_w) or any(a.sort() != b.sort() for a, b in zip(idx_w, idx_r,
                                                                                                        strict=True)):
            return None
        same = [x for x in _common(st.trail, load.trail) if any(key(x.var) == key(y.var) for y in _loops(alloc))]
        shared_loops = [x for x in _common(st.trail, load.trail) if x not in same]
        wt = {key(v): t for v, t in w.loop_terms(st.trail)}
        rt = {key(v): t for v, t in r.loop_terms(load.trail)}
        eq = [wt[key(x.var)] == rt[key(x.var)] for x in same]
        a = [wt[key(x.var)] for x in shared_loops]
        b = [rt[key(x.var)] for x in shared_loops]
        first = z3.BoolVal(st.order < load.order, ctx=self.ctx)
        if a:
            before = z3.Or(_lex_less(a, b), z3.And(*[x == y for x, y in zip(a, b, strict=True)], first))
        else:
            before = first
        body = z3.Not(z3.And(*path, *eq, before, *[x == y for x, y in zip(idx_w, idx_r, strict=True)]))
        terms = list(wt.values())
        return z3.ForAll(terms, body) if terms else body

    def _confirm(self, load: Access, stores: list[Access], alloc: Trail, value: Any) -> None:
        name = load.buffer.name
        rep = replay(load.trail, value, self.env)
        if rep.ev is None:
            self.res.unknown.append((name, f"the witness does not replay: {rep.why}"))
            return
        try:
            element = tuple(int(rep.ev(i)) for i in load.row)
        except EvalError as e:
            self.res.unknown.append((name, f"the witness's index does not evaluate: {e}"))
            return
        at = {key(x.var): rep.ev.env[key(x.var)] for x in _loops(load.trail)}
        for st in stores:
            common = _common(st.trail, load.trail)
            alloc_keys = {key(y.var) for y in _loops(alloc)}
            try:
                for env in _points(st.trail, self.env):
                    if any(env[key(x.var)] != at[key(x.var)] for x in common if key(x.var) in alloc_keys):
                        continue
                    mine = [env[key(x.var)] for x in common if key(x.var) not in alloc_keys]
                    theirs = [at[key(x.var)] for x in common if key(x.var) not in alloc_keys]
                    if mine > theirs or (mine == theirs and st.order > load.order):
                        continue
                    ev = Evaluator(env)
                    if tuple(int(ev(i)) for i in st.row) == element:
                        self.res.unknown.append((name, "Z3's witness is written before it, concretely"))
                        return
            except (EvalError, OverflowError) as e:
                self.res.unknown.append((name, f"a store's loop nest does not enumerate: {e}"))
                return
        shown = ", ".join(str(i) for i in load.row)
        self.res.reads.append(UninitRead(name, shown, rep.point, element))


def _thread_bound(s: Any) -> bool:
    """A loop that is a thread binding (walked as a loop, but its iterations run at once)."""
    return isinstance(s, Loop) and any(t in str(s.var.name) for t in ("threadIdx", "blockIdx", "vthread"))


def _points(trail: Trail, shape_env: dict[int, int]) -> Iterator[dict[int, Any]]:
    """Every point of ``trail`` (loop values, bindings) where its guards hold."""
    count = 0

    def walk(i: int, env: dict[int, Any]) -> Iterator[dict[int, Any]]:
        nonlocal count
        if i == len(trail):
            count += 1
            if count > ENUMERATION_LIMIT:
                raise OverflowError(f"more than {ENUMERATION_LIMIT} points")
            yield env
            return
        s = trail[i]
        ev = Evaluator(env)
        if isinstance(s, Loop):
            lo, ext = int(ev(s.min)), int(ev(s.extent))
            step = int(ev(s.step)) if s.strided else 1
            for v in range(lo, lo + ext, step):
                yield from walk(i + 1, {**env, key(s.var): v})
        elif isinstance(s, Bind):
            yield from walk(i + 1, {**env, key(s.var): ev(s.value)})
        elif bool(ev(s.cond)) == s.polarity:
            yield from walk(i + 1, env)

    yield from walk(0, dict(shape_env))


def check_uninitialised(func_or_mod: Any, sizes: dict[str, int] | None = None, timeout_ms: int = 2000,
                        budget_s: float = 20.0) -> UninitResult:
    """Loads of allocated buffers that may read an element no store wrote before them, in every
    PrimFunc of a block-free module (or one PrimFunc), at the run-time ``sizes`` of the shape vars."""
    from tvm import tirx

    checker = UninitChecker(sizes or {}, timeout_ms, budget_s)
    funcs = [func_or_mod] if isinstance(func_or_mod, tirx.PrimFunc) else [
        f for _, f in func_or_mod.functions.items() if isinstance(f, tirx.PrimFunc)]
    for f in funcs:
        checker.check_func(f)
    return checker.res
