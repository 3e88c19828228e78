"""Trails: the loops, bindings and guards on the way from a function's entry to one point.

Both symbolic checks ask Z3 about the points a trail reaches and confirm every answer
concretely: ``bounds`` (an access of lowered TIR) and ``domain`` (a block realization of
scheduled TIR). This module holds the one encoding of a trail into Z3 path constraints
(``TrailEncoder``, on top of the expression ``Encoder``) and the one concrete replay of a
trail at a point (``replay``, with the ``Evaluator``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import z3

from passcheck.tir.analysis.concrete import EvalError, Evaluator, dtype_of, int_info, is_int, key, wrap
from passcheck.tir.analysis.encode import Encoder
from passcheck.tir.analysis.nodes import is_const

# eq=False: fields are TVM nodes, whose ``==`` builds an expression; steps compare by identity.


@dataclass(frozen=True, slots=True, eq=False)
class Loop:
    """``for (var = min; var < min + extent; var += step)`` in var's dtype; ``step`` None
    (or 1) takes every value."""

    var: Any
    min: Any
    extent: Any
    step: Any = None

    @property
    def strided(self) -> bool:
        return self.step is not None and not (is_const(self.step) and int(self.step.value) == 1)

    def exprs(self) -> tuple[Any, ...]:
        """The expressions the step evaluates (not the variable it introduces)."""
        return (self.min, self.extent) if self.step is None else (self.min, self.extent, self.step)


@dataclass(frozen=True, slots=True, eq=False)
class Bind:
    """``var = value`` (a ``Bind``/``Let`` statement, or a block iterator's binding)."""

    var: Any
    value: Any

    def exprs(self) -> tuple[Any, ...]:
        return (self.value,)


@dataclass(frozen=True, slots=True, eq=False)
class Guard:
    """Execution continues only where ``cond`` is ``polarity`` (``if``, ``else``, predicates)."""

    cond: Any
    polarity: bool

    def exprs(self) -> tuple[Any, ...]:
        return (self.cond,)


Step = Loop | Bind | Guard
Trail = tuple[Step, ...]


# --------------------------------------------------------------------------------------------
# Z3 path constraints
# --------------------------------------------------------------------------------------------


class TrailEncoder:
    """Z3 path constraints of trails on one ``Encoder``.

    A step is encoded once per encoder (memoized by the node it introduces or tests, and its
    polarity), so obligations sharing a solver share their loop variables. ``strict`` decides
    what a binding that does not encode (a float) or a guard that is not a Bool becomes: an
    opaque term (False: an over-approximation the concrete replay guards against) or an
    ``EvalError`` (True: the caller reports the question as not encodable).
    """

    def __init__(self, enc: Encoder, *, strict: bool = False) -> None:
        self.enc = enc
        self.strict = strict
        self._memo: dict[tuple[int, bool], Any] = {}
        self._loops: dict[int, tuple[Any, Any]] = {}  # key(loop var) -> (var, term), in encoding order

    @classmethod
    def fresh(cls, ctx: z3.Context, tag: str, shared: Mapping[int, Any], *, strict: bool = False) -> TrailEncoder:
        """A new encoder whose variables are tagged ``tag`` (independent of other copies'),
        with the terms in ``shared`` (shape vars) common to every copy."""
        enc = Encoder(ctx=ctx, tag=tag)
        enc.env.update(shared)
        return cls(enc, strict=strict)

    def path(self, trail: Trail) -> list[Any]:
        """The constraints under which the end of ``trail`` is reached."""
        return [c for c in (self.step(s) for s in trail) if c is not None]

    def step(self, s: Step) -> Any:
        """Z3 constraint of one step (None for a binding, which only extends the environment)."""
        k = (key(s.cond), bool(s.polarity)) if isinstance(s, Guard) else (key(s.var), True)
        if k not in self._memo:
            if isinstance(s, Loop):
                self._memo[k] = self._loop(s)
            elif isinstance(s, Bind):
                self._bind(s)
                self._memo[k] = None
            else:
                self._memo[k] = self._guard(s)
        return self._memo[k]

    def loop_terms(self, trail: Trail | None = None) -> list[tuple[Any, Any]]:
        """(var, term) of the loops of ``trail`` (of every loop encoded, when None)."""
        if trail is None:
            return list(self._loops.values())
        return [self._loops[key(s.var)] for s in trail if isinstance(s, Loop)]

    def _loop(self, s: Loop) -> Any:
        dt = dtype_of(s.var)
        lo, ext = self.enc.enc(s.min), self.enc.enc(s.extent)
        v = self.enc.fresh_bv(s.var.name, dt)
        self.enc.bind(s.var, v)
        self._loops[key(s.var)] = (s.var, v)
        end = lo + ext
        within = z3.And(lo <= v, v < end) if int_info(dt)[1] else z3.And(z3.ULE(lo, v), z3.ULT(v, end))
        if s.strided:
            within = z3.And(within, z3.URem(v - lo, self.enc.enc(s.step)) == 0)
        return within

    def _bind(self, s: Bind) -> None:
        v = self.enc.enc(s.value)
        if v is None:
            if self.strict:
                raise EvalError("non-integer binding")
            v = self.enc._opaque(s.var, "non-integer binding")
        self.enc.bind(s.var, v)

    def _guard(self, s: Guard) -> Any:
        c = self.enc.enc(s.cond)
        if not isinstance(c, z3.BoolRef):
            if self.strict:
                raise EvalError("non-boolean guard")
            c = self.enc._opaque(s.cond, "non-boolean condition")
        return c if s.polarity else z3.Not(c)


# --------------------------------------------------------------------------------------------
# Concrete replay
# --------------------------------------------------------------------------------------------


def model_value(model: Any, term: Any, dtype: str) -> Any:
    """The model's value of ``term``, as a Python bool or an integer wrapped to ``dtype``."""
    v = model.eval(term, model_completion=True)
    if isinstance(v, z3.BoolRef):
        return bool(z3.is_true(v))
    return wrap(v.as_long(), dtype)


def from_model(model: Any, trails: TrailEncoder) -> Callable[[Any], int]:
    """Loop values of a replay taken from a Z3 model of ``trails``' loop terms."""
    return lambda var: model_value(model, trails.enc.env[key(var)], dtype_of(var))


def by_name(values: Mapping[str, int]) -> Callable[[Any], int]:
    """Loop values of a replay taken by loop-variable name (a missing name: not executed)."""
    return lambda var: values[var.name]


@dataclass
class Replay:
    """Where a replay ended: ``ev`` holds every variable of the trail (None when the point is
    not executed, ``why`` says why); ``point`` the loop and integer binding values, outer first."""

    ev: Evaluator | None
    point: tuple[tuple[str, int], ...]
    why: str = ""


def replay(trail: Trail, loop_value: Callable[[Any], int], env: dict[int, Any],
           known: dict[int, Any] | None = None) -> Replay:
    """Walk ``trail`` concretely, each loop variable taking ``loop_value(var)``, from the
    environment ``env`` (shape vars); ``known`` are the integer tables loads see through."""
    ev = Evaluator(env, known=known)  # copies both
    point: list[tuple[str, int]] = []

    def stop(why: str) -> Replay:
        return Replay(None, tuple(point), why)

    try:
        for s in trail:
            if isinstance(s, Loop):
                dt = dtype_of(s.var)
                try:
                    v = loop_value(s.var)
                except KeyError:
                    return stop(f"no value for loop {s.var.name}")
                lo = ev(s.min)
                end = wrap(lo + ev(s.extent), dt)
                if not lo <= v < end:
                    return stop(f"{s.var.name}={v} outside [{lo}, {end})")
                if s.strided and (v - lo) % ev(s.step) != 0:
                    return stop(f"{s.var.name}={v} is not on the loop's step")
                ev.env[key(s.var)] = v
                point.append((s.var.name, v))
            elif isinstance(s, Bind):
                ev.env[key(s.var)] = ev(s.value)
                if is_int(dtype_of(s.var)):
                    point.append((s.var.name, ev.env[key(s.var)]))
            elif bool(ev(s.cond)) != s.polarity:
                return stop(f"guard {s.cond} is not {s.polarity} there")
    except EvalError as e:
        return stop(f"not evaluable concretely: {e}")
    return Replay(ev, tuple(point))
