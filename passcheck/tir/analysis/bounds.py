"""Bounds safety of block-free TIR, decided by Z3 over machine integers, witnesses confirmed.

For every load and store the question is: is there ANY point of the loop nest -- loop
variables within their ranges, every enclosing ``if`` condition (or its negation in the else
branch), every ``if_then_else`` condition guarding the expression, ``Bind``/``Let`` values, thread
extents, shape vars from 0 (or what the function asserts first) up to addressable sizes -- at which some index lies outside ``[0, extent)``?
Integers are bit-vectors of their dtype (see ``encode``). ``Select`` and ``&&``/``||`` are NOT
guards: the generated code evaluates both operands.

Cost: a sound interval pass (``intervals``, run by ``bounds_collect``) proves most accesses
without Z3. The rest go to Z3 as one disjunction first (the safe case costs one check); only
when that is satisfiable are they asked one by one. A model is replayed by the concrete
evaluator along the access's trail (``trail.replay``: loop ranges, guards, bindings), then the
index itself, and reported only when the replay agrees; otherwise the point is excluded and Z3
asked again a few times, after which the access is *unknown*. Where Z3 gives up (a timeout),
the shape vars' boundary points and a bit-blasting solver are tried first (``undecided``); what
they do not decide is unknown too. Unknowns are never violations.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import z3

from passcheck.tir.analysis.bounds_collect import Collector, Obligation
from passcheck.tir.analysis.concrete import EvalError, dtype_of, is_int, key
from passcheck.tir.analysis.encode import Encoder, to_width
from passcheck.tir.analysis.limits import element_limit, shape_var_limits
from passcheck.tir.analysis.nodes import free_vars, is_buffer, is_prim
from passcheck.tir.analysis.results import BoundsResult, OOBWitness
from passcheck.tir.analysis.tables import find_tables
from passcheck.tir.analysis.trail import TrailEncoder, from_model, model_value, replay
from passcheck.tir.analysis.undecided import bitblast, free_shape_vars, search_boundaries

DEFAULT_TIMEOUT_MS = 2000
REFINEMENTS = 6


# --------------------------------------------------------------------------------------------
# Z3 encoding of obligations
# --------------------------------------------------------------------------------------------


class _Z3Phase:
    """One solver for all the obligations of a function: their trails share loop variables."""

    def __init__(self, timeout_ms: int) -> None:
        self.ctx = z3.Context()
        self.enc = Encoder(ctx=self.ctx)
        self.wide = Encoder(ctx=self.ctx, wide=True, tag="_w")
        self.trails = TrailEncoder(self.enc)
        self.solver = z3.Solver(ctx=self.ctx)
        self.solver.set("timeout", timeout_ms)

    def obligation(self, ob: Obligation) -> tuple[list[Any], Any] | None:
        """(path constraints, out-of-range condition), or None if not encodable."""
        path = self.trails.path(ob.trail)
        shape, idx = list(ob.buffer.shape), list(ob.indices)
        if len(shape) != len(idx):
            return None
        conds = []
        for i, d in zip(idx, shape, strict=True):
            it, et = self.enc.enc(i), self.enc.enc(d)
            if not isinstance(it, z3.BitVecRef) or not isinstance(et, z3.BitVecRef):
                return None
            w = max(it.size(), et.size())
            iw, ew = to_width(it, dtype_of(i), w), to_width(et, dtype_of(d), w)
            conds.append(z3.Or(iw < 0, iw >= ew))
        return path, z3.Or(*conds)

    def shape_constraints(self, buffers: list[Any], bound: set[int], limits: dict[int, tuple[int, int]],
                          caps: dict[int, int]) -> list[Any]:
        """Shape vars are >= 0 (or what the function asserts first: ``limits``) and at most
        ``caps`` (what the checker's ``domain`` adds to the parameters' bounds); every
        symbolic buffer dim is >= 0 and computed without overflow, and the buffer holds at most
        ``element_limit`` elements (it is addressable)."""
        out = []
        symbolic = []
        shape_vars: dict[int, Any] = {}
        for buf in buffers:
            used: dict[int, Any] = {}
            for d in buf.shape:
                free_vars(d, used)
            # Only buffers sized by shape vars: an allocation sized by loop or let variables
            # says nothing about the function's inputs.
            if used and not (set(used) & bound):
                symbolic.append(buf)
                shape_vars.update(used)
        for k, var in shape_vars.items():
            term = self.enc.var_term(var)
            if isinstance(term, z3.BitVecRef):
                wide_term = self.wide.var_term(var)
                out += [term >= limits.get(k, (0, 0))[0], wide_term == to_width(term, dtype_of(var), wide_term.size())]
                if k in caps:
                    out.append(term <= caps[k])
        for buf in symbolic:
            dims = list(buf.shape)
            limit = element_limit([dtype_of(d) for d in dims], str(buf.dtype))
            total = None
            for d in dims:
                nat, wd = self.enc.enc(d), self.wide.enc(d)
                if not isinstance(nat, z3.BitVecRef) or not isinstance(wd, z3.BitVecRef):
                    continue
                out += [to_width(nat, dtype_of(d), wd.size()) == wd, wd >= 0]
                total = wd if total is None else total * wd
                out.append(total <= limit)
        return out


# --------------------------------------------------------------------------------------------
# Confirmation
# --------------------------------------------------------------------------------------------


def _confirm(ob: Obligation, model: Any, trails: TrailEncoder) -> tuple[OOBWitness | None, str]:
    """Concretely replay the obligation's trail at the model's point, then its indices; the
    confirmed witness, or None with the reason the replay disagrees."""
    # Opaque values are NOT taken from the model: a witness must follow from the loop point
    # alone (an index that depends on loaded data cannot be confirmed statically).
    env: dict[int, Any] = {}
    shape_point: list[tuple[str, int]] = []
    for k, (var, term) in trails.enc.free.items():
        if is_int(dtype_of(var)):
            env[k] = model_value(model, term, dtype_of(var))
            shape_point.append((var.name, env[k]))
    r = replay(ob.trail, from_model(model, trails), env, known=trails.enc.known)
    if r.ev is None:
        return None, r.why
    try:
        for d, (i, ext) in enumerate(zip(ob.indices, ob.buffer.shape, strict=True)):
            iv, xv = r.ev(i), r.ev(ext)
            if not 0 <= iv < xv:
                return OOBWitness(ob.site, d, int(iv), int(xv), tuple(shape_point) + r.point), ""
        return None, "every index is in range at the model's point"
    except EvalError as e:
        return None, f"not evaluable concretely: {e}"


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


class BoundsChecker:
    def __init__(self, timeout_ms: int = DEFAULT_TIMEOUT_MS, budget_s: float | None = None,
                 domain: Sequence[Any] = (), retry: bool = True) -> None:
        self.timeout_ms = timeout_ms
        self.retry = retry  # where Z3 gives up: boundary points, then bit-blasting (``undecided``)
        self._limits: dict[int, tuple[int, int]] = {}  # the current function's shape var limits
        self.domain = domain  # more buffers that bound the shape vars (``shape_var_limits``'s ``also``)
        self._caps: dict[int, int] = {}  # the current function's: shape var -> the most the domain allows
        # Seconds of Z3 for the whole check (None: no limit): past it, the accesses not yet
        # asked about are unknown. Each query may take timeout_ms, and a kernel has many.
        self.budget_s = budget_s
        self._deadline = float("inf")

    def check_func(self, func: Any) -> BoundsResult:
        t0 = time.perf_counter()
        if self.budget_s is not None and self._deadline == float("inf"):
            self._deadline = t0 + self.budget_s
        limits = shape_var_limits(func)
        # Only where the domain bounds a var more than the parameters do: a bound Z3 needs as a
        # constraint of its own (the parameters' is stated as their sizes, which Z3 reasons about
        # more readily than a constant it must combine with them).
        narrowed = shape_var_limits(func, self.domain) if self.domain else limits
        self._caps = {k: hi for k, (_, hi) in narrowed.items() if hi < limits.get(k, (0, hi + 1))[1]}
        col = Collector(narrowed, *find_tables(func))
        for p in func.params:
            if is_buffer(p):
                col.buffers[key(p)] = p
        col.stmt(func.body)
        res = BoundsResult(accesses=col.accesses, by_intervals=col.accesses - len(col.obligations))
        if col.obligations:
            # Variables free in the function body are legitimate only as shape vars of the
            # parameters or scalar parameters; any other is an undefined variable.
            legit: dict[int, Any] = {}
            for p in func.params:
                if is_buffer(p):
                    for d in p.shape:
                        free_vars(d, legit)
                else:
                    legit[key(p)] = p
            self._solve(col, res, set(legit))
        res.seconds = time.perf_counter() - t0
        return res

    def _solve(self, col: Collector, res: BoundsResult, legit: set[int]) -> None:
        z = _Z3Phase(self.timeout_ms)
        z.enc.known = col.known
        # Identical (path, condition) pairs -- e.g. A[i] loaded and B[i] stored with equal
        # shapes -- are one question; each access of the group is still replayed and reported.
        groups: dict[tuple[int, ...], tuple[list[Obligation], list[Any], Any]] = {}
        for ob in col.obligations:
            undefined = _undefined_vars(ob, col.bound | legit)
            if undefined:
                res.unknown.append((ob.site, f"undefined variable {undefined} (ill-formed IR)"))
                continue
            e = z.obligation(ob)
            if e is None:
                res.unknown.append((ob.site, "an index or extent is not an integer expression"))
                continue
            path, oob = e
            sig = tuple(c.get_id() for c in path) + (oob.get_id(),)
            groups.setdefault(sig, ([], path, oob))[0].append(ob)
        if not groups:
            return
        self._limits = col.iv.limits
        z.solver.add(*z.shape_constraints(list(col.buffers.values()), col.bound, col.iv.limits, self._caps))
        res.queries += 1
        if z.solver.check(z3.Or(*[z3.And(*p, o) for _, p, o in groups.values()])) == z3.unsat:
            return
        for obs, path, oob in groups.values():
            if time.perf_counter() > self._deadline:
                res.unknown += [(o.site, f"Z3 budget of {self.budget_s:g} s spent") for o in obs]
                continue
            self._check_group(z, obs, path, oob, res)

    def _check_group(self, z: _Z3Phase, obs: list[Obligation], path: list[Any], oob: Any,
                     res: BoundsResult) -> None:
        ob = obs[0]
        solver = z.solver
        solver.push()
        try:
            solver.add(*path, oob)
            why = ""
            for _ in range(REFINEMENTS):
                res.queries += 1
                answer = solver.check()
                if answer == z3.unsat:
                    return
                if answer == z3.unknown:
                    why = solver.reason_unknown()
                    if not self._undecided(z, obs, res):
                        tried = " (nor did boundary points or bit-blasting decide)" if self.retry else ""
                        res.unknown += [(o.site, f"Z3 gave up: {why}{tried}") for o in obs]
                    return
                model = solver.model()
                wit, why = _confirm(ob, model, z.trails)
                if wit is not None:
                    _record(wit, obs, model, z, res)
                    return
                if "value of load" in why:
                    break  # the index depends on loaded data: no other point can be confirmed
                # The model relied on an opaque term (a float computation) the replay computes
                # differently: exclude this point and ask again.
                terms = [t for _, t in z.trails.loop_terms(ob.trail)]
                terms += [t for _, t in z.enc.free.values() if isinstance(t, z3.BitVecRef)]
                if not terms:
                    break
                solver.add(z3.Not(z3.And(*[t == model.eval(t, model_completion=True) for t in terms])))
            res.unknown += [(o.site, f"not confirmed concretely: {why}") for o in obs]
        finally:
            solver.pop()


    def _undecided(self, z: _Z3Phase, obs: list[Obligation], res: BoundsResult) -> bool:
        """Where Z3 gave up on a group (its path and condition asserted): a confirmed witness at
        a boundary point, or bit-blasting's answer; False when neither decides."""
        if not self.retry:
            return False
        res.retried += 1

        def confirm(model: Any) -> bool:
            wit, _ = _confirm(obs[0], model, z.trails)
            if wit is not None:
                _record(wit, obs, model, z, res)
            return wit is not None

        if search_boundaries(z.solver, free_shape_vars(z.enc.free, self._limits, self._caps), confirm,
                             self.timeout_ms):
            res.decided += 1
            return True
        answer, model = bitblast(list(z.solver.assertions()), z.ctx)
        if answer == z3.unsat or (answer == z3.sat and confirm(model)):
            res.decided += 1
            return True
        return False


def _record(wit: OOBWitness, obs: list[Obligation], model: Any, z: _Z3Phase, res: BoundsResult) -> None:
    """A confirmed witness of a group's first access, and the others' at the same point."""
    res.violations.append(wit)
    for other in obs[1:]:
        w2, why2 = _confirm(other, model, z.trails)
        if w2 is not None:
            res.violations.append(w2)
        else:
            res.unknown.append((other.site, f"not confirmed concretely: {why2}"))


def _undefined_vars(ob: Obligation, known: set[int]) -> str:
    used: dict[int, Any] = {}
    for i in ob.indices:
        free_vars(i, used)
    for d in ob.buffer.shape:
        free_vars(d, used)
    for s in ob.trail:
        for x in s.exprs():
            if is_prim(x):
                free_vars(x, used)
    bad = [v.name for k, v in used.items() if k not in known and is_prim(v) and not is_buffer(v)]
    return ", ".join(sorted(set(bad)))


def check_bounds(func_or_mod: Any, timeout_ms: int = DEFAULT_TIMEOUT_MS, budget_s: float | None = None,
                 domain: Sequence[Any] = (), retry: bool = True) -> BoundsResult:
    """Check every PrimFunc of a block-free module (or one PrimFunc); ``budget_s`` bounds the
    Z3 time of the whole module (accesses past it are unknown). ``domain``: buffers of the
    original function that bound the shape vars besides the parameters (``declared_buffers``).
    ``retry=False``: where Z3 gives up, unknown at once (no boundary points, no bit-blasting)."""
    from tvm import tirx

    checker = BoundsChecker(timeout_ms, budget_s, domain, retry)
    if isinstance(func_or_mod, tirx.PrimFunc):
        return checker.check_func(func_or_mod)
    total = BoundsResult()
    for _, f in func_or_mod.functions.items():
        if isinstance(f, tirx.PrimFunc):
            total.merge(checker.check_func(f))
    return total
