"""Bounds safety of block-free TIR, decided by Z3 over machine integers, witnesses confirmed.

For every load and store the question is: is there ANY point of the loop nest -- loop
variables within their ranges, every enclosing ``if`` condition (or its negation in the else
branch), every ``if_then_else`` condition guarding the expression, ``Bind``/``Let`` values, thread
extents, shape vars within realistic sizes -- at which some index lies outside ``[0, extent)``?
Integers are bit-vectors of their dtype (see ``tir_z3``). ``Select`` and ``&&``/``||`` are NOT
guards: the generated code evaluates both operands.

Cost: a sound interval pass (``tir_intervals``) proves most accesses without Z3. The rest go
to Z3 as one disjunction first (the safe case costs one check); only when that is
satisfiable are they asked one by one. A model is replayed by the concrete evaluator (loop
ranges, guards, bindings, the index itself) and reported only when the replay agrees;
otherwise the point is excluded and Z3 asked again a few times, after which the access is
*unknown* -- as is a Z3 timeout. Unknowns are never violations.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import z3

from passcheck.tir.analysis.concrete import EvalError, Evaluator, dtype_of, int_info, is_int, key, wrap
from passcheck.tir.analysis.encode import Encoder, to_width
from passcheck.tir.analysis.intervals import Intervals
from passcheck.tir.analysis.tables import Table, find_tables

DEFAULT_TIMEOUT_MS = 2000
REFINEMENTS = 6
ELEMENT_LIMIT = {32: 2**31 - 1, 64: 2**40}  # realistic buffer sizes when shapes are symbolic


@dataclass(frozen=True)
class AccessSite:
    kind: str  # "load" | "store"
    buffer: str
    indices: str
    shape: str

    def __str__(self) -> str:
        return f"{self.kind} {self.buffer}[{self.indices}] (shape [{self.shape}])"


@dataclass(frozen=True)
class OOBWitness:
    site: AccessSite
    dim: int
    index_value: int
    extent_value: int
    point: tuple[tuple[str, int], ...]  # shape vars, then loop/thread/let variables, outer first

    def describe(self) -> str:
        at = ", ".join(f"{n}={v}" for n, v in self.point) or "(no loop variables)"
        return (
            f"{self.site}: index {self.dim} evaluates to {self.index_value}, outside "
            f"[0, {self.extent_value}), at {at}"
        )


@dataclass
class BoundsResult:
    violations: list[OOBWitness] = field(default_factory=list)
    unknown: list[tuple[AccessSite, str]] = field(default_factory=list)
    accesses: int = 0
    by_intervals: int = 0  # accesses proved by the interval pass alone
    queries: int = 0
    seconds: float = 0.0

    @property
    def safe(self) -> bool:
        """Proved in bounds everywhere (no violation, nothing unknown)."""
        return not self.violations and not self.unknown

    def merge(self, other: BoundsResult) -> None:
        self.violations += other.violations
        self.unknown += other.unknown
        self.accesses += other.accesses
        self.by_intervals += other.by_intervals
        self.queries += other.queries
        self.seconds += other.seconds

    def summary(self) -> str:
        head = "in bounds" if self.safe else f"{len(self.violations)} out-of-bounds, {len(self.unknown)} unknown"
        return f"{head} ({self.accesses} accesses, {self.queries} Z3 queries, {self.seconds * 1000:.1f} ms)"


# --------------------------------------------------------------------------------------------
# Collecting obligations (no Z3 here)
# --------------------------------------------------------------------------------------------

Step = tuple[Any, ...]  # ("for", var, min, extent, step) | ("bind", var, value) | ("guard", cond, polarity)


@dataclass
class _Obligation:
    site: AccessSite
    node: Any  # the TensorLoad / BufferStore
    buffer: Any
    trail: tuple[Step, ...]


class _Collector:
    """Walks statements keeping the trail (loops, binds, guards) of the current point; an
    access the interval pass cannot prove becomes an obligation."""

    def __init__(self, limits: dict[int, int] | None = None, tables: dict[int, Table] | None = None,
                 positions: dict[int, int] | None = None) -> None:
        self.tables = tables or {}
        self.positions = positions or {}
        self.top = -1  # the top-level statement being walked
        self.known: dict[int, Table] = {}  # key(load) -> the table it reads, already written
        self.trail: tuple[Step, ...] = ()
        self.iv = Intervals(limits=dict(limits or {}))
        self.obligations: list[_Obligation] = []
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
            self.scoped(("for", s.loop_var, s.min, s.extent, getattr(s, "step", None)), s.body)
        elif t is tirx.IfThenElse:
            self.expr(s.condition)
            self.scoped(("guard", s.condition, True), s.then_case)
            if s.else_case is not None:
                self.scoped(("guard", s.condition, False), s.else_case)
        elif t is tirx.Bind:
            self.expr(s.value)
            self.iv.bind(s.var, self.iv.of(s.value) if is_int(dtype_of(s.var)) else None)
            self.bound.add(key(s.var))
            self.trail = self.trail + (("bind", s.var, s.value),)
        elif t is tirx.BufferStore:
            self.expr(s.value)
            for i in s.indices:
                self.expr(i)
            self.access("store", s, s.buffer, s.indices)
        elif t is tirx.Evaluate:
            self.expr(s.value)
        elif t is tirx.AttrStmt:
            if _is_prim(s.value):
                self.expr(s.value)
            if s.attr_key in ("thread_extent", "virtual_thread") and isinstance(s.node, tirx.IterVar):
                zero = tirx.IntImm(dtype_of(s.node.var), 0)
                self.iv.loop(s.node.var, zero, s.value)
                self.scoped(("for", s.node.var, zero, s.value, None), s.body)
            else:
                self.stmt(s.body)
        elif t is tirx.AssertStmt:
            self.expr(s.condition)
            # Execution continues past an assert only when it holds.
            self.trail = self.trail + (("guard", s.condition, True),)
        elif t is tirx.While:
            self.expr(s.condition)
            self.scoped(("guard", s.condition, True), s.body)
        elif t in (tirx.AllocBuffer, tirx.DeclBuffer):
            self.buffers[key(s.buffer)] = s.buffer
        elif t in (tirx.Break, tirx.Continue):
            pass
        else:
            raise TypeError(f"z3_bounds: unsupported statement {t.__name__} (lower the blocks first)")

    def scoped(self, step: Step, body: Any, expr: bool = False) -> None:
        if step[0] in ("for", "bind"):
            self.bound.add(key(step[1]))
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
                self.scoped(("guard", cond, True), a, expr=True)
                self.scoped(("guard", cond, False), b, expr=True)
                return
            for a in e.args:
                if _is_prim(a):
                    self.expr(a)
            return
        if t is tirx.Let:
            self.expr(e.value)
            self.iv.bind(e.var, self.iv.of(e.value) if is_int(dtype_of(e.var)) else None)
            self.scoped(("bind", e.var, e.value), e.body, expr=True)
            return
        for f in ("a", "b", "value", "condition", "true_value", "false_value", "base", "stride"):
            c = getattr(e, f, None)
            if c is not None and _is_prim(c):
                self.expr(c)

    def access(self, kind: str, node: Any, buffer: Any, indices: Any) -> None:
        self.accesses += 1
        self.buffers.setdefault(key(buffer), buffer)
        shape, idx = list(buffer.shape), list(indices)
        if len(shape) == len(idx) and all(self.proved(i, d) for i, d in zip(idx, shape, strict=True)):
            return
        site = AccessSite(kind, buffer.name, ", ".join(str(i) for i in idx), ", ".join(str(d) for d in shape))
        self.obligations.append(_Obligation(site, node, buffer, self.trail))

    def proved(self, index: Any, extent: Any) -> bool:
        return self.iv.proved(index, extent)


def _is_prim(x: Any) -> bool:
    return hasattr(x, "ty") and hasattr(x.ty, "dtype")


def _is_const(x: Any) -> bool:
    from tvm import tirx

    return isinstance(x, tirx.IntImm)


# --------------------------------------------------------------------------------------------
# Z3 encoding of obligations
# --------------------------------------------------------------------------------------------


class _Z3Phase:
    def __init__(self, timeout_ms: int) -> None:
        self.ctx = z3.Context()
        self.enc = Encoder(ctx=self.ctx)
        self.wide = Encoder(ctx=self.ctx, wide=True, tag="_w")
        self.solver = z3.Solver(ctx=self.ctx)
        self.solver.set("timeout", timeout_ms)
        self.step_terms: dict[tuple[int, bool], Any] = {}

    def step(self, s: Step) -> Any:
        """Z3 constraint of one trail step (memoized: a loop or binding is encoded once)."""
        if s[0] == "for":
            k = (key(s[1]), True)
            if k not in self.step_terms:
                self.step_terms[k] = self._loop(*s[1:])
            return self.step_terms[k]
        if s[0] == "bind":
            k = (key(s[1]), True)
            if k not in self.step_terms:
                v = self.enc.enc(s[2])
                if v is None:
                    v = self.enc._opaque(s[1], "non-integer binding")
                self.enc.bind(s[1], v)
                self.step_terms[k] = None
            return None
        k = (key(s[1]), bool(s[2]))
        if k not in self.step_terms:
            c = self.enc.enc(s[1])
            if not isinstance(c, z3.BoolRef):
                c = self.enc._opaque(s[1], "non-boolean condition")
            self.step_terms[k] = c if s[2] else z3.Not(c)
        return self.step_terms[k]

    def _loop(self, var: Any, lo_e: Any, ext_e: Any, step_e: Any) -> Any:
        dt = dtype_of(var)
        lo, ext = self.enc.enc(lo_e), self.enc.enc(ext_e)
        v = self.enc.fresh_bv(var.name, dt)
        self.enc.bind(var, v)
        # The generated loop is `for (v = min; v < min + extent; v += step)` in v's dtype.
        end = lo + ext
        within = z3.And(lo <= v, v < end) if int_info(dt)[1] else z3.And(z3.ULE(lo, v), z3.ULT(v, end))
        if step_e is not None and not (_is_const(step_e) and int(step_e.value) == 1):
            within = z3.And(within, z3.URem(v - lo, self.enc.enc(step_e)) == 0)
        return within

    def obligation(self, ob: _Obligation) -> tuple[list[Any], Any] | None:
        """(path constraints, out-of-range condition), or None if not encodable."""
        path = [c for c in (self.step(s) for s in ob.trail) if c is not None]
        shape, idx = list(ob.buffer.shape), list(ob.node.indices)
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

    def shape_constraints(self, buffers: list[Any], bound: set[int]) -> list[Any]:
        """Shape vars are >= 1; every symbolic buffer dim is >= 0 and computed without
        overflow, and the buffer holds at most ELEMENT_LIMIT elements (a realistic array)."""
        out = []
        symbolic = []
        shape_vars: dict[int, Any] = {}
        for buf in buffers:
            used: dict[int, Any] = {}
            for d in buf.shape:
                _free_vars(d, used)
            # Only buffers sized by shape vars: an allocation sized by loop or let variables
            # says nothing about the function's inputs.
            if used and not (set(used) & bound):
                symbolic.append(buf)
                shape_vars.update(used)
        for var in shape_vars.values():
            term = self.enc.var_term(var)
            if isinstance(term, z3.BitVecRef):
                wide_term = self.wide.var_term(var)
                out += [term >= 1, wide_term == to_width(term, dtype_of(var), wide_term.size())]
        for buf in symbolic:
            dims = list(buf.shape)
            limit = ELEMENT_LIMIT[32 if max(int_info(dtype_of(d))[0] for d in dims) <= 32 else 64]
            total = None
            for d in dims:
                nat, wd = self.enc.enc(d), self.wide.enc(d)
                if not isinstance(nat, z3.BitVecRef) or not isinstance(wd, z3.BitVecRef):
                    continue
                out += [to_width(nat, dtype_of(d), wd.size()) == wd, wd >= 0]
                total = wd if total is None else total * wd
                out.append(total <= limit)
        return out


def _free_vars(e: Any, into: dict[int, Any]) -> None:
    import tvm
    import tvm_ffi

    def visit(n: Any) -> None:
        into.setdefault(key(n), n)

    tvm_ffi.structural_walk(e, [((tvm.ir.Var,), visit)])


# --------------------------------------------------------------------------------------------
# Confirmation
# --------------------------------------------------------------------------------------------


def _model_value(model: Any, term: Any, dtype: str) -> Any:
    v = model.eval(term, model_completion=True)
    if isinstance(v, z3.BoolRef):
        return bool(z3.is_true(v))
    return wrap(v.as_long(), dtype)


def _replay(ob: _Obligation, model: Any, enc: Encoder) -> tuple[OOBWitness | None, str]:
    """Concretely replay the obligation's trail at the model's point; the confirmed witness,
    or None with the reason the replay disagrees."""
    # Opaque values are NOT taken from the model: a witness must follow from the loop point
    # alone (an index that depends on loaded data cannot be confirmed statically).
    env: dict[int, Any] = {}
    point: list[tuple[str, int]] = []
    for k, (var, term) in enc.free.items():
        if is_int(dtype_of(var)):
            env[k] = _model_value(model, term, dtype_of(var))
            point.append((var.name, env[k]))
    ev = Evaluator(env, known=enc.known)
    try:
        for s in ob.trail:
            if s[0] == "for":
                _, var, lo_e, ext_e, step_e = s
                dt = dtype_of(var)
                v = _model_value(model, enc.env[key(var)], dt)
                lo = ev(lo_e)
                end = wrap(lo + ev(ext_e), dt)
                if not lo <= v < end:
                    return None, f"{var.name}={v} outside [{lo}, {end})"
                if step_e is not None and not (_is_const(step_e) and int(step_e.value) == 1):
                    if (v - lo) % ev(step_e) != 0:
                        return None, f"{var.name}={v} is not on the loop's step"
                ev.env[key(var)] = v
                point.append((var.name, v))
            elif s[0] == "bind":
                _, var, value = s
                ev.env[key(var)] = ev(value)
                if is_int(dtype_of(var)):
                    point.append((var.name, ev.env[key(var)]))
            elif bool(ev(s[1])) != s[2]:
                return None, f"guard {s[1]} is not {s[2]} there"
        for d, (i, ext) in enumerate(zip(ob.node.indices, ob.buffer.shape, strict=True)):
            iv, xv = ev(i), ev(ext)
            if not 0 <= iv < xv:
                return OOBWitness(ob.site, d, int(iv), int(xv), tuple(point)), ""
        return None, "every index is in range at the model's point"
    except EvalError as e:
        return None, f"not evaluable concretely: {e}"


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


class BoundsChecker:
    def __init__(self, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self.timeout_ms = timeout_ms

    def check_func(self, func: Any) -> BoundsResult:
        t0 = time.perf_counter()
        col = _Collector(shape_var_limits(func), *find_tables(func))
        for p in func.params:
            if _is_buffer(p):
                col.buffers[key(p)] = p
        col.stmt(func.body)
        res = BoundsResult(accesses=col.accesses, by_intervals=col.accesses - len(col.obligations))
        if col.obligations:
            # Variables free in the function body are legitimate only as shape vars of the
            # parameters or scalar parameters; any other is an undefined variable.
            legit: dict[int, Any] = {}
            for p in func.params:
                if _is_buffer(p):
                    for d in p.shape:
                        _free_vars(d, legit)
                else:
                    legit[key(p)] = p
            self._solve(col, res, set(legit))
        res.seconds = time.perf_counter() - t0
        return res

    def _solve(self, col: _Collector, res: BoundsResult, legit: set[int]) -> None:
        z = _Z3Phase(self.timeout_ms)
        z.enc.known = col.known
        # Identical (path, condition) pairs -- e.g. A[i] loaded and B[i] stored with equal
        # shapes -- are one question; each access of the group is still replayed and reported.
        groups: dict[tuple[int, ...], tuple[list[_Obligation], list[Any], Any]] = {}
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
        z.solver.add(*z.shape_constraints(list(col.buffers.values()), col.bound))
        res.queries += 1
        if z.solver.check(z3.Or(*[z3.And(*p, o) for _, p, o in groups.values()])) == z3.unsat:
            return
        for obs, path, oob in groups.values():
            self._check_group(z, obs, path, oob, res)

    def _check_group(self, z: _Z3Phase, obs: list[_Obligation], path: list[Any], oob: Any,
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
                    res.unknown += [(o.site, f"Z3 gave up: {solver.reason_unknown()}") for o in obs]
                    return
                model = solver.model()
                wit, why = _replay(ob, model, z.enc)
                if wit is not None:
                    res.violations.append(wit)
                    for other in obs[1:]:
                        w2, why2 = _replay(other, model, z.enc)
                        if w2 is not None:
                            res.violations.append(w2)
                        else:
                            res.unknown.append((other.site, f"not confirmed concretely: {why2}"))
                    return
                if "value of load" in why:
                    break  # the index depends on loaded data: no other point can be confirmed
                # The model relied on an opaque term (a float computation) the replay computes
                # differently: exclude this point and ask again.
                terms = [z.enc.env[key(s[1])] for s in ob.trail if s[0] == "for"]
                terms += [t for _, t in z.enc.free.values() if isinstance(t, z3.BitVecRef)]
                if not terms:
                    break
                solver.add(z3.Not(z3.And(*[t == model.eval(t, model_completion=True) for t in terms])))
            res.unknown += [(o.site, f"not confirmed concretely: {why}") for o in obs]
        finally:
            solver.pop()


def shape_var_limits(func: Any) -> dict[int, int]:
    """Largest value of each shape var under the realism assumption (a parameter buffer holds
    at most ELEMENT_LIMIT elements; every shape var is >= 1). The interval pass and the Z3
    encoding assume the same."""
    import tvm

    limits: dict[int, int] = {}
    found: dict[int, Any] = {}
    for p in func.params:
        if not _is_buffer(p):
            continue
        dims = list(p.shape)
        for d in dims:
            _free_vars(d, found)
        if not dims:
            continue
        limit = ELEMENT_LIMIT[32 if max(int_info(dtype_of(d))[0] for d in dims) <= 32 else 64]
        if all(_is_const(d) or type(d) is tvm.ir.Var for d in dims):
            const = 1
            for d in dims:
                const *= int(d.value) if _is_const(d) else 1
            for d in dims:
                if type(d) is tvm.ir.Var:
                    k = key(d)
                    limits[k] = min(limits.get(k, limit), limit // max(const, 1))
    for k, v in found.items():
        if is_int(dtype_of(v)):
            bits = int_info(dtype_of(v))[0]
            limits.setdefault(k, ELEMENT_LIMIT[32 if bits <= 32 else 64])
    return limits


def _undefined_vars(ob: _Obligation, known: set[int]) -> str:
    used: dict[int, Any] = {}
    for i in ob.node.indices:
        _free_vars(i, used)
    for d in ob.buffer.shape:
        _free_vars(d, used)
    for s in ob.trail:
        for x in s[2:] if s[0] == "for" else s[1:2] if s[0] == "guard" else s[2:3]:
            if x is not None and _is_prim(x):
                _free_vars(x, used)
    bad = [v.name for k, v in used.items() if k not in known and _is_prim(v) and not _is_buffer(v)]
    return ", ".join(sorted(set(bad)))


def _is_buffer(p: Any) -> bool:
    return type(getattr(p, "ty", None)).__name__ == "BufferType"


def check_bounds(func_or_mod: Any, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> BoundsResult:
    """Check every PrimFunc of a block-free module (or one PrimFunc)."""
    from tvm import tirx

    checker = BoundsChecker(timeout_ms)
    if isinstance(func_or_mod, tirx.PrimFunc):
        return checker.check_func(func_or_mod)
    total = BoundsResult()
    for _, f in func_or_mod.functions.items():
        if isinstance(f, tirx.PrimFunc):
            total.merge(checker.check_func(f))
    return total
