"""The statements of a lowered GPU kernel, compiled once each into closures the emulator runs
for the active threads (``emulate``: the machine, its memory and its launches).

A statement reached by no thread does nothing. ``if`` runs each branch for the threads whose
condition holds or fails; a loop runs its body for the threads still inside their trip count;
a ``thread_extent`` scope inside a kernel binds its index and guards nothing (the device runs
every launched thread through it); the outermost one is a launch. What the emulator does not
model compiles into a statement that raises ``Unsupported`` when it is reached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from passcheck.tir.analysis.concrete import key
from passcheck.tir.gpu.emulate_expr import Unsupported, np_dtype

Run = Any  # a compiled statement: (active threads) -> None
AXES = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z")


@dataclass
class BufRef:
    """An access's buffer: its storage's key, and its layout compiled."""

    key: int
    name: str
    shape: list[Any]
    strides: list[Any] | None
    elem_offset: Any
    dtype: Any
    # lanes of the buffer's own element (a local buffer of float32x2: each index holds 2 values)
    vector: int = 1


class Statements:
    def __init__(self, machine: Any) -> None:
        self.m = machine
        self.cache: dict[int, Run] = {}

    def fn(self, s: Any) -> Run:
        k = key(s)
        f = self.cache.get(k)
        if f is None:
            try:
                body = self._compile(s)
            except Unsupported as u:  # only if it is ever reached
                body = _raising(u)
            f = self.cache[k] = self._guarded(body)
        return f

    def _guarded(self, body: Run) -> Run:
        m = self.m

        def run(act: np.ndarray) -> None:
            if len(act):
                m.tick()
                body(act)

        return run

    def _compile(self, s: Any) -> Run:
        import tvm
        from tvm import tirx

        m, x, t = self.m, self.m.x, type(s)
        if t is tirx.SeqStmt:
            fs = [self.fn(c) for c in s.seq]

            def seq(act: np.ndarray) -> None:
                for f in fs:
                    f(act)

            return seq
        if t is tirx.For:
            return self._for(s)
        if t is tirx.IfThenElse:
            cond, then = x.fn(s.condition), self.fn(s.then_case)
            other = self.fn(s.else_case) if s.else_case is not None else None

            def branch(act: np.ndarray) -> None:
                c = cond(act).astype(bool)
                then(act[c])
                if other is not None:
                    other(act[~c])

            return branch
        if t is tirx.Bind:
            var, value = s.var, x.fn(s.value)
            return lambda act: m.assign(var, value(act), act)
        if t is getattr(tirx, "LetStmt", None):
            var, value, body = s.var, x.fn(s.value), self.fn(s.body)

            def let(act: np.ndarray) -> None:
                m.assign(var, value(act), act)
                body(act)

            return let
        if t is tirx.BufferStore:
            value, idx = x.fn(s.value), [x.fn(i) for i in s.indices]
            ref = m.buffer(s.buffer, str(s.value.ty.dtype))
            return lambda act: m.store(ref, [f(act) for f in idx], value(act), act)
        if t is tirx.Evaluate:
            return self._evaluate(s.value)
        if t is tirx.AttrStmt:
            return self._attr(s)
        if t is tirx.AssertStmt:
            cond = x.fn(s.condition)

            def check(act: np.ndarray) -> None:
                if not cond(act).astype(bool).all():
                    raise Unsupported("an assertion of the lowered code fails")

            return check
        if t is tirx.While:
            return self._while(s)
        if t is tirx.AllocBuffer:
            buf, shape = s.buffer, [x.fn(d) for d in s.buffer.shape]
            return lambda act: m.alloc(buf, shape, act)
        if t is tirx.DeclBuffer:
            src = s.data
            if not (isinstance(src, tvm.ir.Call) and getattr(src.op, "name", "") == "tirx.buffer_data"):
                raise Unsupported(f"declared buffer {s.buffer.name} over {src}")
            alias, of, name = key(s.buffer), key(src.args[0]), str(s.buffer.name)

            def declare(act: np.ndarray) -> None:
                if of not in m.storage:
                    raise Unsupported(f"declared buffer {name} over a buffer with no storage")
                m.storage[alias] = m.storage[of]

            return declare
        raise Unsupported(f"statement {t.__name__}")

    def _for(self, s: Any) -> Run:
        if getattr(s, "step", None) is not None and not (hasattr(s.step, "value") and int(s.step.value) == 1):
            raise Unsupported("a loop with a step")
        m, lo_f, ext_f, var, body = self.m, self.m.x.fn(s.min), self.m.x.fn(s.extent), s.loop_var, self.fn(s.body)

        def loop(act: np.ndarray) -> None:
            lo = lo_f(act)
            ext = ext_f(act).astype(np.int64)
            top = int(ext.max()) if len(ext) else 0
            for i in range(max(top, 0)):
                live = i < ext
                sub = act[live]
                if not len(sub):
                    break
                m.assign(var, (lo[live] + i).astype(lo.dtype), sub)
                body(sub)

        return loop

    def _while(self, s: Any) -> Run:
        cond, body = self.m.x.fn(s.condition), self.fn(s.body)

        def loop(act: np.ndarray) -> None:
            while True:
                act = act[cond(act).astype(bool)]
                if not len(act):
                    break
                body(act)

        return loop

    def _evaluate(self, call: Any) -> Run:
        import tvm

        name = str(getattr(getattr(call, "op", None), "name", "")) if isinstance(call, tvm.ir.Call) else ""
        m = self.m
        if name == "tirx.tvm_storage_sync":
            def sync(act: np.ndarray) -> None:
                m.sync_id += 1

            return sync
        if name in ("tirx.assume", "prim.assume") or not name:
            return lambda act: None
        raise Unsupported(f"call {name} as a statement")

    def _attr(self, s: Any) -> Run:
        from tvm import tirx

        if s.attr_key == "virtual_thread":
            raise Unsupported("a virtual thread left in the lowered code")
        body = self.fn(s.body)
        if s.attr_key != "thread_extent" or not isinstance(s.node, tirx.IterVar):
            return body
        tag = str(s.node.thread_tag)
        if tag not in AXES:
            raise Unsupported(f"thread tag {tag}")
        m, var, dt = self.m, s.node.var, np_dtype(str(s.node.var.ty.dtype))

        def scope(act: np.ndarray) -> None:
            if not m.in_kernel:
                m.launch(s)  # the kernel: it runs this scope again, inside
                return
            m.assign(var, m.axes[tag][act].astype(dt), act)
            body(act)

        return scope


def _raising(error: Exception) -> Run:
    def raises(act: np.ndarray) -> None:
        raise error

    return raises
