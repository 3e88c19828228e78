"""Symbolic domain checks of a scheduled (block) PrimFunc against the unscheduled one.

A block of the result is compared with the block of the same name in the original when both
have the same iterator variables (by name) over the same domains -- i.e. the schedule moved or
re-looped the block but did not redefine it. For such a block, over its *instance set* (the
values its iterators take at every point of its loop nest where all enclosing predicates and
conditions hold):

* ``outside``: no instance lies outside the original iteration domain (Z3, exact, symbolic);
* ``twice``: no instance is executed at two different loop points (numpy enumeration of the
  loop nests at the run-time sizes; Z3 over two copies of the loop nest when they are too
  large) -- only for blocks a primitive did not relocate (compute_at may legitimately
  recompute overlapping regions);
* ``missing``: every instance of the original domain is executed (numpy enumeration at the
  run-time sizes; together with ``outside`` and ``twice`` this is the bijection between the
  original and the transformed iteration space);
* ``guard``: every ``if_then_else``/``if`` condition of the original block body that the
  result no longer has holds at every executed instance (Z3): a dropped guard is re-proved;
* ``region``: every access to a buffer the original block also accessed stays within the
  hull of the original block's accesses to it (intervals, then Z3).

A block split by a primitive into several blocks (loop_partition's copies, decompose_reduction's
``_update``) is checked as the union of its pieces. Every Z3 witness is replayed concretely
before it is reported; a timeout is ``unknown``. The sites of blocks are found in ``sites``, the
Z3 questions asked in ``domain_z3``, the enumeration done in ``enumeration``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from passcheck.tir.analysis.concrete import EvalError
from passcheck.tir.analysis.domain_z3 import Questions, ShapeSpace
from passcheck.tir.analysis.enumeration import enumerate_domain, enumerate_site
from passcheck.tir.analysis.limits import shape_var_limits
from passcheck.tir.analysis.results import DomainIssue, DomainResult
from passcheck.tir.analysis.sites import Site, block_sites, is_piece, iter_doms, writes_param

# Seconds of Z3 for one domain check, past which the questions not yet asked are unknown: each
# may take the solver's timeout (2 s), and a block of fused symbolic loops timed every one out.
# Within the runs' time limit (at least 5 s, and twice that before a hang is a finding).
DEFAULT_BUDGET_S = 6.0


def _acted_on(original: str, names: set[str]) -> bool:
    """Does a step that named one of ``names`` act on the original block (or a piece of it:
    a step after decompose_reduction or loop_partition names the piece)?"""
    return any(n == original or is_piece(n, original) for n in names)


class DomainChecker:
    def __init__(self, original: Any, after: Any, *, moved: set[str] = frozenset(),
                 consumers: set[str] = frozenset(), restricted: set[str] = frozenset(),
                 sizes: dict[str, int] | None = None, timeout_ms: int = 2000,
                 space: ShapeSpace | None = None, budget_s: float = DEFAULT_BUDGET_S,
                 deadline: float | None = None) -> None:
        self.original, self.after = original, after
        self.moved, self.restricted = set(moved), set(restricted)
        self.consumers = set(consumers)
        self.sizes = sizes or {}
        self.timeout_ms = timeout_ms
        self.res = DomainResult()
        self.space = space or ShapeSpace(original, after, self.sizes, timeout_ms)
        # One table for both functions: a schedule keeps the shape var objects, but a custom
        # pass might not, and every key an interval mentions must have a limit.
        self.limits = {**shape_var_limits(original), **shape_var_limits(after)}
        self.deadline = time.perf_counter() + budget_s if deadline is None else deadline
        self.ask = Questions(self.space, self.res, self.limits, original, self.deadline)

    def groups(self) -> list[tuple[Site, list[Site]]]:
        """Each original block with the blocks of the result that are (pieces of) it."""
        orig = {s.name: s for s in block_sites(self.original)}
        after = block_sites(self.after)
        out = []
        for name, o in orig.items():
            doms = iter_doms(o.block)
            pieces = [s for s in after if is_piece(s.name, name) and iter_doms(s.block) == doms]
            if pieces:
                out.append((o, pieces))
        return out

    def run(self) -> DomainResult:
        t0 = time.perf_counter()
        for o, pieces in self.groups():
            before = len(self.res.issues)
            self._check_group(o, pieces)
            if len(self.res.issues) > before and self._inconsistent_original(o):
                # The unscheduled block already executes outside its own declared domain (TOPI's
                # adaptive pooling declares [v, 1) for a nested iterator bound to v): nothing the
                # schedule did; not comparable.
                del self.res.issues[before:]
                self.res.unknown.append((o.name, "the original block violates its own declared domain"))
        self.res.seconds = time.perf_counter() - t0
        return self.res

    def _inconsistent_original(self, o: Site) -> bool:
        probe = DomainChecker(self.original, self.original, sizes=self.sizes, timeout_ms=self.timeout_ms,
                              space=self.space, deadline=self.deadline)
        probe._check_group(o, [o])
        return bool(probe.res.issues or probe.res.unknown)

    def _check_group(self, o: Site, pieces: list[Site]) -> None:
        self.res.blocks_checked += 1
        # A relocated consumer (reverse_compute_at) may be re-run at every step of the loop
        # it was moved under: harmless for a spatial block (it rewrites the same values),
        # double counting for a reduction.
        spatial = not any(int(iv.iter_type) == 2 for iv in o.block.iter_vars)
        moved, restricted, consumer = (_acted_on(o.name, n) for n in (self.moved, self.restricted, self.consumers))
        once = not (moved or restricted) and not (consumer and spatial)
        for p in pieces:
            self.ask.outside(o, p)
            self.ask.guards(o, p)
            self.ask.region(o, p)
        # Enumerating the loop nests at the run-time sizes settles "twice" and "missing"
        # exactly; Z3 is asked about "twice" only when the nests are too large for that.
        # A relocated producer computes only what its consumers read, so its coverage is
        # required only when it writes a function output.
        need_cover = not restricted and (once or consumer or writes_param(o, self.original))
        counted = self.count(o, pieces, exact=once, cover=need_cover) if (once or need_cover) else True
        if once and not counted:
            for i, a in enumerate(pieces):
                for b in pieces[i:]:
                    self.ask.twice(o, a, b)

    def count(self, o: Site, pieces: list[Site], exact: bool, cover: bool) -> bool:
        """Enumerate every piece's loop nest at the run-time sizes: the distinct instances must
        be the whole original domain (``cover``) and, when ``exact``, each executed once.
        Returns False when the nests cannot be enumerated."""
        shape_env = self.space.shape_env
        try:
            dom = enumerate_domain(o, shape_env)
            rows = []
            for p in pieces:
                r = enumerate_site(p, o, shape_env)
                if r is None:
                    return False
                rows.append(r)
        except (EvalError, OverflowError, MemoryError):
            return False
        if dom is None:
            return False
        allrows = np.concatenate(rows, axis=0) if rows else np.zeros((0, len(o.block.iter_vars)), np.int64)
        uniq = np.unique(allrows, axis=0) if len(allrows) else allrows
        dom_set = {tuple(r) for r in dom.tolist()}
        got = {tuple(r) for r in uniq.tolist()}
        names = [iv.var.name for iv in o.block.iter_vars]
        missing = dom_set - got if cover else set()
        if missing:
            ex = min(missing)
            self.res.issues.append(DomainIssue("missing", o.name, (
                f"{len(missing)} of {len(dom_set)} instances are never executed, e.g. "
                f"({', '.join(f'{n}={v}' for n, v in zip(names, ex, strict=True))})")))
        if exact and len(allrows) > len(uniq):
            vals, counts = np.unique(allrows, axis=0, return_counts=True)
            ex = tuple(int(v) for v in vals[int(np.argmax(counts > 1))])
            self.res.issues.append(DomainIssue("twice", o.name, (
                f"{len(allrows) - len(uniq)} executions repeat an instance already executed, e.g. "
                f"({', '.join(f'{n}={v}' for n, v in zip(names, ex, strict=True))})")))
        return True


def check_domains(original: Any, after: Any, *, moved: set[str] = frozenset(), consumers: set[str] = frozenset(),
                  restricted: set[str] = frozenset(), sizes: dict[str, int] | None = None,
                  timeout_ms: int = 2000, budget_s: float = DEFAULT_BUDGET_S) -> DomainResult:
    """Domain checks of ``after``'s ``main`` against ``original``'s (PrimFuncs or modules);
    ``budget_s``: seconds of Z3 for the whole check, past which the rest is unknown."""
    from tvm import tirx

    o = original if isinstance(original, tirx.PrimFunc) else original["main"]
    a = after if isinstance(after, tirx.PrimFunc) else after["main"]
    return DomainChecker(o, a, moved=moved, consumers=consumers, restricted=restricted, sizes=sizes,
                         timeout_ms=timeout_ms, budget_s=budget_s).run()
