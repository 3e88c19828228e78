"""Where mutations land: their index picks resolved against the values a graph has, and their
arithmetic inserted, in the graph's order, on one or more backends at once.

A graph is seen as *slots*: its inputs (position -1), its values in emission order (position =
their index), and what earlier rounds of mutations added (the garbage ``G`` and the mutated
value ``y'`` of each, at their target's position). A mutation on the value at position ``p``
may only read slots at positions ``<= p`` -- nothing downstream of its target, so the mutant
stays acyclic -- and, from the mutations, only those of earlier rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from passcheck.relax.mutate.relations import Condition, Garbage, Mutation, Operand, relations
from passcheck.relax.ops.base import broadcast_shapes
from passcheck.relax.spec import Dim

Key = tuple[Any, ...]  # ("base", i) | ("G", j) | ("y", j)


@dataclass(frozen=True)
class Slot:
    key: Key
    shape: tuple[Dim, ...]
    position: int
    target_ok: bool = False  # a float value of the graph (not an input): may receive "+ G * Z"
    recordable: bool = True  # its value on the input can be recorded (a per-input condition)

    @property
    def static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    def size(self) -> int:
        return int(np.prod([d if isinstance(d, int) else 8 for d in self.shape], dtype=np.int64))


@dataclass(frozen=True)
class Resolved:
    index: int
    mutation: Mutation
    condition: Condition
    garbage: Garbage
    target: Slot
    cond_ops: tuple[Slot, ...]
    garbage_ops: tuple[Slot, ...]

    def describe(self) -> str:
        def name(s: Slot) -> str:
            return f"v{s.key[1]}" if s.key[0] == "base" else f"{s.key[0]}{s.key[1]}"

        ops = ", ".join(name(s) for s in self.cond_ops)
        g = "" if self.garbage.name == "none" else \
            f" * {self.garbage.name}({', '.join(name(s) for s in self.garbage_ops)})"
        return f"{name(self.target)} += {self.condition.name}({ops}){g}"


def _fits_into(a: tuple[Dim, ...], b: tuple[Dim, ...]) -> bool:
    """``a`` and ``b`` broadcast without growing past the larger of them."""
    out = broadcast_shapes(a, b)
    return out is not None and out in (tuple(a), tuple(b))


def _pick(avail: list[Slot], pick: int, ok: Callable[[Slot], bool]) -> Slot | None:
    """The ``pick``-th slot (modulo), or the next one after it that is acceptable."""
    n = len(avail)
    for k in range(n):
        s = avail[(pick + k) % n]
        if ok(s):
            return s
    return None


def resolve(slots: list[Slot], mutations: tuple[Mutation, ...]) -> list[Resolved | None]:
    """Each mutation resolved (None: no value it could apply to, it is skipped), in order."""
    conditions, garbage = relations()
    targets = [s for s in slots if s.target_ok]
    added: list[tuple[int, Slot]] = []  # (round, slot) of what earlier mutations made
    out: list[Resolved | None] = []
    for j, m in enumerate(mutations):
        cond, garb = conditions.get(m.condition), garbage.get(m.garbage)
        if not targets:
            out.append(None)
            continue
        t = targets[m.target % len(targets)]
        avail = [s for s in slots if s.position <= t.position] + \
                [s for r, s in added if r < m.round and s.position <= t.position]
        picks = list(m.picks) + [0] * (cond.arity + garb.arity)
        ops = _operands(avail, picks[:cond.arity], cond.static, pioc=not cond.universal)
        gops = _operands(avail, picks[cond.arity:cond.arity + garb.arity], garb.static, pioc=False)
        if ops is None or gops is None:
            out.append(None)
            continue
        res = Resolved(j, m, cond, garb, t, ops, gops)
        out.append(res)
        if garb.name != "none":
            added.append((m.round, Slot(("G", j), (), t.position, recordable=False)))
        added.append((m.round, Slot(("y", j), t.shape, t.position, recordable=False)))
    return out


def _operands(avail: list[Slot], picks: list[int], static: bool, *, pioc: bool) -> tuple[Slot, ...] | None:
    chosen: list[Slot] = []
    for i, p in enumerate(picks):
        def ok(s: Slot, i: int = i) -> bool:
            if (static or pioc) and not s.static:
                return False
            if pioc and not s.recordable:
                return False
            # a second operand combines elementwise with the first: it must broadcast into it
            return i == 0 or _fits_into(chosen[0].shape, s.shape)

        s = _pick(avail, p, ok)
        if s is None:
            if i == 0:
                return None
            s = chosen[0]
        chosen.append(s)
    return tuple(chosen)


@dataclass
class Backend:
    """One way of computing the mutant: a calc (``IRCalc``/``RefCalc``) and the current value of
    every slot in its terms (a mutated value replaces its slot's entry)."""

    calc: Any
    current: dict[Key, Any]


Recorder = Callable[[Slot], np.ndarray]  # a slot's value on the example's input, in the dtype


def apply_at(position: int, resolved: list[Resolved | None], backends: list[Backend],
             concrete: Callable[[Slot], tuple[int, ...] | None], record: Recorder | None = None) -> None:
    """Insert, on every backend, the mutations whose target sits at ``position`` (in order)."""
    for r in resolved:
        if r is None or r.target.position != position:
            continue
        recorded = {s.key: record(s) for s in r.cond_ops} if not r.condition.universal and record else {}
        for b in backends:
            def operand(s: Slot, b: Backend = b, recorded: dict = recorded) -> Operand:
                return Operand(b.current[s.key], concrete(s), recorded.get(s.key))

            calc = b.calc
            z = calc.mean(r.condition.make(calc, [operand(s) for s in r.cond_ops]))
            g = r.garbage.make(calc, [operand(s) for s in r.garbage_ops],
                               np.random.default_rng([r.mutation.seed, 4099]))
            if g is not None:
                g = calc.mean(g)
                b.current[("G", r.index)] = g
                z = calc.mul(g, z)
            y = calc.add(b.current[r.target.key], z)
            b.current[r.target.key] = y
            b.current[("y", r.index)] = y
