"""Metamorphic relations (MT-DLCOMP), as plain data and as declarations.

A ``Mutation`` adds ``G * Z`` to a value ``y`` of the graph: ``Z`` is an *obscure condition*,
a scalar that is zero on the example's inputs (universally, or only on these inputs), and
``G`` a *garbage* subgraph over other values of the graph (a conv2d, a matmul, ...), squashed
so it is always finite. The mutant computes the same function as the original, yet the
compiler sees a bigger graph with new data dependencies it cannot prove dead.

A mutation names its relation and picks its operands by index (``target``, ``picks``): the
indices are resolved against the values the graph actually has where the IR is built
(``resolve.py``), so the same plain-data mutation applies to a drawn graph and to an imported
model. Conditions and garbage kinds are declared once, here and in the modules beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from passcheck.core.data import plain_data
from passcheck.core.registry import Registry


@plain_data("relax.Mutation")
@dataclass(frozen=True)
class Mutation:
    """``y' = y + G * Z`` on the ``target``-th mutable value (index taken modulo their number).

    ``picks`` choose the condition's operands, then the garbage's, among the values available
    before ``y``'s consumers (modulo their number); ``seed`` draws the garbage's weights;
    ``round`` is the iteration it belongs to (a later round may read what earlier ones added)."""

    condition: str
    garbage: str = "none"
    target: int = 0
    picks: tuple[int, ...] = ()
    seed: int = 0
    round: int = 0


@plain_data("relax.Mutant")
@dataclass(frozen=True)
class Mutant:
    """An example that is ``base`` (a drawn graph, a seed model) with ``mutations`` applied in
    order: plain data, so a repro names the model and every mutation."""

    base: Any
    mutations: tuple[Mutation, ...] = ()


@dataclass(frozen=True)
class Operand:
    """A value a relation reads: ``value`` in the backend's terms (a Relax var or an Approx),
    its concrete shape (None when symbolic), and for a per-input condition the value it had
    on the example's inputs, recorded in the graph's dtype."""

    value: Any
    shape: tuple[int, ...] | None
    recorded: np.ndarray | None = None


@dataclass(frozen=True)
class Condition:
    """How a zero is made. ``make(calc, operands)`` returns a tensor whose elements are all zero
    on the example's inputs (exactly, or up to the rounding its bound accounts for)."""

    name: str
    arity: int
    make: Callable[[Any, list[Operand]], Any]
    summary: str
    universal: bool = True  # zero on every input (UOC), or only on the recorded one (PIOC)
    static: bool = False  # its operands need concrete shapes (a recorded constant)


@dataclass(frozen=True)
class Garbage:
    """What a zero gates. ``make(calc, operands, rng)`` returns a finite tensor of any shape
    (``rng`` draws its weights)."""

    name: str
    arity: int
    make: Callable[[Any, list[Operand], np.random.Generator], Any]
    summary: str
    static: bool = False  # its operands need concrete shapes (they are reshaped)


CONDITIONS: Registry[Condition] = Registry("obscure condition", hint="`passcheck list --relations` shows them")
GARBAGE: Registry[Garbage] = Registry("garbage kind", hint="`passcheck list --relations` shows them")


def register_condition(c: Condition) -> Condition:
    return CONDITIONS.add(c.name, c)


def register_garbage(g: Garbage) -> Garbage:
    return GARBAGE.add(g.name, g)


def relations() -> tuple[Registry[Condition], Registry[Garbage]]:
    """Both registries, with every declaration imported."""
    from passcheck.relax import mutate  # noqa: F401  (importing the package declares them)

    return CONDITIONS, GARBAGE
