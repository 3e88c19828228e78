"""The bounds check's statement walker: which accesses of lowered TIR need Z3, and under
which trail (no Z3 here).

Every load and store is first put to the interval pass (``intervals``); only the accesses it
cannot prove become *obligations*, each with the trail of loops, bindings and guards that
reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from passcheck.tir.analysis.concrete import dtype_of, is_int, key
from passcheck.tir.analysis.intervals import Intervals
from passcheck.tir.analysis.lanes import split_lanes
from passcheck.tir.analysis.nodes import is_prim
from passcheck.tir.analysis.results import AccessSite
from passcheck.tir.analysis.tables import Table
from passcheck.tir.analysis.trail import Bind, Guard, Loop, Step, Trail


@dataclass
class Obligation:
    site: AccessSite
    node: Any  # the TensorLoad / BufferStore
    buffer: Any
    trail: Trail
    indices: Any = None  # the scalar indices checked (one lane of a vector access); None: the node's

    def __post_init__(self) -> None:
        if self.indices is None:
            self.indices = list(self.node.indices)


class Collector:
    """Walks statements keeping the trail (loops, binds, guards) of the current point; an
    access the interval pass cannot prove becomes an obligation."""

    def __init__(self, limits: dict[int, int] | None = None, tables: dict[int, Table] | None = None,
                 positions: dict[int, int] | None = None) -> None:
        self.tables = tables or {}
        self.positions = positions or {}
        self.top = -1  # the top-level statement being walked
        self.known: dict[int, Table] = {}  # key(load) -> the table it reads, already written
        self.trail: Trail = ()
        self.iv = Intervals(limits=dict(limits or {}))
        self.obligations: list[Obligation] = []
        self.buffers: dict[int, Any] = {}
        self.bound: set[int] = set()  # loop, thread and let variables
        self.accesses = 0

    def stmt(self, s: Any) -> None:
        from tvm import tirx

        t = type(s)
        self.top = self.positions.get(key(s), self.top)
        if t is tirx.SeqStmt:
            saved = self.trail
            for x in s.seq:
                self.stmt(x)
            self.trail = saved
        elif t is tirx.For:
            self.expr(s.min)
            self.expr(s.extent)
            self.iv.loop(s.loop_var, s.min, s.extent)
            self.scoped(Loop(s.loop_var, s.min, s.extent, getattr(s, "step", None)), s.body)
        elif t is tirx.IfThenElse:
            self.expr(s.condition)
            self.scoped(Guard(s.condition, True), s.then_case)
            if s.else_case is not None:
                self.scoped(Guard(s.condition, False), s.else_case)
        elif t is tirx.Bind:
            self.expr(s.value)
            self.iv.bind(s.var, self.iv.of(s.value) if is_int(dtype_of(s.var)) else None)
            self.bound.add(key(s.var))
            self.trail = self.trail + (Bind(s.var, s.value),)
        elif t is tirx.BufferStore:
            self.expr(s.value)
            for i in s.indices:
                self.expr(i)
            self.access("store", s, s.buffer, s.indices)
        elif t is tirx.Evaluate:
            self.expr(s.value)
            if getattr(getattr(s.value, "op", None), "name", "") == "tirx.assume":
                # The code after T.assume(c) may rely on c (TVM's contract): like an assert.
                self.trail = self.trail + (Guard(s.value.args[0], True),)
        elif t is tirx.AttrStmt:
            if is_prim(s.value):
                self.expr(s.value)
            if s.attr_key in ("thread_extent", "virtual_thread") and isinstance(s.node, tirx.IterVar):
                zero = tirx.IntImm(dtype_of(s.node.var), 0)
                self.iv.loop(s.node.var, zero, s.value)
                self.scoped(Loop(s.node.var, zero, s.value), s.body)
            else:
                self.stmt(s.body)
        elif t is tirx.AssertStmt:
            self.expr(s.condition)
            # Execution continues past an assert only when it holds.
            self.trail = self.trail + (Guard(s.condition, True),)
        elif t is tirx.While:
            self.expr(s.condition)
            self.scoped(Guard(s.condition, True), s.body)
        elif t in (tirx.AllocBuffer, tirx.DeclBuffer):
            self.buffers[key(s.buffer)] = s.buffer
        elif t in (tirx.Break, tirx.Continue):
            pass
        else:
            raise TypeError(f"z3_bounds: unsupported statement {t.__name__} (lower the blocks first)")

    def scoped(self, step: Step, body: Any, expr: bool = False) -> None:
        if not isinstance(step, Guard):
            self.bound.add(key(step.var))
        saved = self.trail
        self.trail = self.trail + (step,)
        self.expr(body) if expr else self.stmt(body)
        self.trail = saved

    def expr(self, e: Any) -> None:
        import tvm
        from tvm import tirx

        t = type(e)
        if t in (tirx.IntImm, tirx.FloatImm, tvm.ir.Var, tvm.ir.StringImm):
            return
        if t is tvm.ir.TensorLoad:
            for i in e.indices:
                self.expr(i)
            self.access("load", e, e.source, e.indices)
            table = self.tables.get(key(e.source))
            if table is not None and self.top > table.position:
                self.known[key(e)] = table
            return
        if t is tvm.ir.Call:
            if getattr(e.op, "name", "") == "prim.if_then_else":
                cond, a, b = e.args
                self.expr(cond)
                self.scoped(Guard(cond, True), a, expr=True)
                self.scoped(Guard(cond, False), b, expr=True)
                return
            for a in e.args:
                if is_prim(a):
                    self.expr(a)
            return
        if t is tirx.Let:
            self.expr(e.value)
            self.iv.bind(e.var, self.iv.of(e.value) if is_int(dtype_of(e.var)) else None)
            self.scoped(Bind(e.var, e.value), e.body, expr=True)
            return
        for f in ("a", "b", "value", "condition", "true_value", "false_value", "base", "stride"):
            c = getattr(e, f, None)
            if c is not None and is_prim(c):
                self.expr(c)

    def access(self, kind: str, node: Any, buffer: Any, indices: Any) -> None:
        self.accesses += 1
        self.buffers.setdefault(key(buffer), buffer)
        shape, idx = list(buffer.shape), list(indices)
        rows = split_lanes(idx) if len(shape) == len(idx) else None
        for k, row in enumerate(rows or [idx]):
            if len(shape) == len(row) and all(self.iv.proved(i, d) for i, d in zip(row, shape, strict=True)):
                continue
            shown = ", ".join(str(i) for i in row)
            site = AccessSite(kind, buffer.name, f"lane {k}: {shown}" if rows else shown,
                              ", ".join(str(d) for d in shape))
            self.obligations.append(Obligation(site, node, buffer, self.trail, row))
