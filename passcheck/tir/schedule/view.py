"""What a primitive's draw sees and what a drawn example is.

A draw sees a ``View`` of the blocks (derived from the PrimFunc spec, then updated by each
earlier step of the example: the blocks it created, renamed or removed, the loops it added
or fused, the dataflow it rerouted), never TVM. A block of the view is named by a *block
reference* (``step.resolve_ref`` reads it where TVM runs): a block's own name, or a name
relative to another block -- the block that produces what it reads, the block a blockize put
around it, one of the pieces a loop_partition cut it into. So a later step can target a block
an earlier step made without knowing what TVM will call it.

An example is a ``ScheduleExample``: the spec, the steps, and how many of them are
preparation (applied before the steps under test; the case's ``before`` is the module after
them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from passcheck.core.data import plain_data
from passcheck.tir.kernels import PrimFuncSpec, StageInfo
from passcheck.tir.schedule.step import Step


@dataclass(frozen=True)
class Block:
    """A block a step may target, as far as the draws can know it.

    ``name``    its block reference
    ``iters``   one letter per block iterator (S spatial, R reduction)
    ``loops``   one letter per loop above it now (the kind of iterator each loop carries;
                "" until a step changes the nest: then the nest is ``iters`` itself)
    ``reads``   the blocks of the view it reads (None: the block before it, a chain)
    ``output``  it writes a function output
    ``origin``  the primitive that made it ("" for a block of the unscheduled kernel)"""

    name: str
    iters: str
    output: bool = False
    loops: str = ""
    reads: tuple[str, ...] | None = None
    origin: str = ""

    @property
    def n_spatial(self) -> int:
        return self.iters.count("S")

    @property
    def is_reduction(self) -> bool:
        return "R" in self.iters

    @property
    def nest(self) -> str:
        """The kinds of the loops above the block now."""
        return self.loops or self.iters


def _block(s: StageInfo | Block) -> Block:
    if isinstance(s, Block):
        return s
    return Block(s.name, s.iters, s.output, reads=s.reads)


@dataclass(frozen=True)
class View:
    """The blocks a later step may target, best known without running TVM, in program order."""

    stages: tuple[Block, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "stages", tuple(_block(s) for s in self.stages))

    def where(self, pred: Callable[[int, Block], bool]) -> list[Block]:
        return [s for i, s in enumerate(self.stages) if pred(i, s)]

    def index(self, name: str) -> int:
        for i, s in enumerate(self.stages):
            if s.name == name:
                return i
        return -1

    def get(self, name: str) -> Block | None:
        i = self.index(name)
        return self.stages[i] if i >= 0 else None

    # dataflow ------------------------------------------------------------------------------
    def producers(self, name: str) -> tuple[str, ...]:
        """The blocks ``name`` reads (a chain's block reads the one before it)."""
        i = self.index(name)
        if i < 0:
            return ()
        reads = self.stages[i].reads
        if reads is None:
            return (self.stages[i - 1].name,) if i > 0 else ()
        return tuple(r for r in reads if self.index(r) >= 0)

    def consumers(self, name: str) -> tuple[str, ...]:
        return tuple(s.name for s in self.stages if name in self.producers(s.name))

    def upstream(self, name: str) -> set[str]:
        """Every block ``name`` depends on, directly or not."""
        return _closure(name, self.producers)

    def downstream(self, name: str) -> set[str]:
        """Every block that depends on ``name``, directly or not."""
        return _closure(name, self.consumers)

    # updates (each returns a new view) ---------------------------------------------------
    def replace(self, name: str, **changes: Any) -> View:
        return View(tuple(dataclasses.replace(s, **changes) if s.name == name else s for s in self.stages))

    def insert(self, at: int, block: Block) -> View:
        """``block`` placed at position ``at`` (program order), with the reads of every block
        made explicit first, so that the chain stays the chain it was."""
        v = self.explicit()
        at = max(0, min(at, len(v.stages)))
        return View((*v.stages[:at], block, *v.stages[at:]))

    def drop(self, name: str) -> View:
        """``name`` gone; whoever read it reads what it read (inlining)."""
        v = self.explicit()
        gone = v.get(name)
        if gone is None:
            return v
        via = v.producers(name)
        out = []
        for s in v.stages:
            if s.name == name:
                continue
            if s.reads is not None and name in s.reads:
                s = dataclasses.replace(s, reads=_unique(r for x in s.reads for r in (via if x == name else (x,))))
            out.append(s)
        return View(tuple(out))

    def reroute(self, old: str, new: str, *, keep: Iterable[str] = ()) -> View:
        """Every block reading ``old`` (but those in ``keep``) reads ``new`` instead."""
        keep = {*keep, new}
        v = self.explicit()
        return View(tuple(s if s.name in keep or s.reads is None else
                          dataclasses.replace(s, reads=tuple(new if r == old else r for r in s.reads))
                          for s in v.stages))

    def move(self, name: str, at: int) -> View:
        """``name`` placed before position ``at`` of the current order."""
        v = self.explicit()
        i = v.index(name)
        if i < 0:
            return v
        rest = [s for s in v.stages if s.name != name]
        at = at - 1 if at > i else at
        at = max(0, min(at, len(rest)))
        return View((*rest[:at], v.stages[i], *rest[at:]))

    def read_copy(self, name: str, ref: str, origin: str) -> View:
        """A copy block ``ref`` that ``name`` now reads through (cache_read, reindex of a read,
        read_at): placed before it, reading what it read."""
        s = self.get(name)
        if s is None:
            return self
        v = self.explicit()
        via = v.producers(name)
        copy = Block(ref, "S" * max(1, s.n_spatial), reads=via, origin=origin)
        v = v.insert(v.index(name), copy)
        return v.replace(name, reads=(*via, ref))

    def write_copy(self, name: str, ref: str, origin: str) -> View:
        """A copy block ``ref`` that takes over what ``name`` wrote (cache_write, reindex of a
        write, write_at): placed after it, read by its readers, writing its output."""
        s = self.get(name)
        if s is None:
            return self
        v = self.explicit()
        copy = Block(ref, "S" * max(1, s.n_spatial), output=s.output, reads=(name,), origin=origin)
        v = v.insert(v.index(name) + 1, copy).reroute(name, ref)
        return v.replace(name, output=False)

    def explicit(self) -> View:
        """The same view with every chain link written out (``reads`` never None)."""
        return View(tuple(s if s.reads is not None else dataclasses.replace(s, reads=self.producers(s.name))
                          for s in self.stages))


def _unique(xs: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(xs))


def _closure(name: str, step: Callable[[str], tuple[str, ...]]) -> set[str]:
    seen: set[str] = set()
    todo = list(step(name))
    while todo:
        n = todo.pop()
        if n not in seen and n != name:
            seen.add(n)
            todo.extend(step(n))
    return seen


@plain_data("tir.ScheduleExample")
@dataclass(frozen=True)
class ScheduleExample:
    spec: PrimFuncSpec
    steps: tuple[Step, ...]
    prefix: int = 0  # steps[:prefix] prepare; steps[prefix:] are under test

    def describe(self) -> str:
        steps = "; ".join(s.describe() for s in self.steps)
        prep = f" (first {self.prefix} preparatory)" if self.prefix else ""
        return f"{self.spec.short()} | {steps}{prep}"
