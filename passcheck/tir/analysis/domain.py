"""Symbolic domain checks of a scheduled (block) PrimFunc against the unscheduled one.

A block of the result is compared with the block of the same name in the original when both
have the same iterator variables (by name) over the same domains -- i.e. the schedule moved or
re-looped the block but did not redefine it. For such a block, over its *instance set* (the
values its iterators take at every point of its loop nest where all enclosing predicates and
conditions hold):

* ``outside``: no instance lies outside the original iteration domain (Z3, exact, symbolic);
* ``twice``: no instance is executed at two different loop points (Z3 over two copies of the
  loop nest) -- only for blocks a primitive did not relocate (compute_at may legitimately
  recompute overlapping regions);
* ``missing``: every instance of the original domain is executed (numpy enumeration of the
  loop nest when extents are concrete; together with ``outside`` and ``twice`` this is the
  bijection between the original and the transformed iteration space);
* ``guard``: every ``if_then_else``/``if`` condition of the original block body that the
  result no longer has holds at every executed instance (Z3): a dropped guard is re-proved.

A block split by a primitive into several blocks (loop_partition's copies, decompose_reduction's
``_update``) is checked as the union of its pieces. Every Z3 witness is replayed concretely
before it is reported; a timeout is ``unknown``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import z3

from passcheck.tir.analysis.concrete import EvalError, Evaluator, VecEvaluator, dtype_of, int_info, key, wrap
from passcheck.tir.analysis.encode import Encoder, to_width

ENUM_LIMIT = 1 << 20  # loop points enumerated at most (larger nests skip the count check)
Step = tuple[Any, ...]


@dataclass
class Site:
    """One realization of a block in a loop nest."""

    name: str
    block: Any
    realize: Any
    trail: tuple[Step, ...]  # ("for", var, min, extent) | ("bind", var, value) | ("guard", cond, polarity)

    @property
    def iter_names(self) -> tuple[str, ...]:
        return tuple(iv.var.name for iv in self.block.iter_vars)


@dataclass
class DomainIssue:
    kind: str  # "outside" | "twice" | "missing" | "guard"
    block: str
    message: str

    def describe(self) -> str:
        return f"block {self.block!r} ({self.kind}): {self.message}"


@dataclass
class DomainResult:
    issues: list[DomainIssue] = field(default_factory=list)
    unknown: list[tuple[str, str]] = field(default_factory=list)
    blocks_checked: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.issues


# --------------------------------------------------------------------------------------------
# Collecting block sites
# --------------------------------------------------------------------------------------------


def block_sites(func: Any) -> list[Site]:
    """Every block realization of ``func`` (except the root) with the trail that reaches it."""
    from tvm import s_tir, tirx

    out: list[Site] = []

    def stmt(s: Any, trail: tuple[Step, ...]) -> None:
        t = type(s)
        if t is tirx.SeqStmt:
            cur = trail
            for x in s.seq:
                if type(x) is tirx.Bind:
                    cur = cur + (("bind", x.var, x.value),)
                else:
                    stmt(x, cur)
        elif t is tirx.For:
            stmt(s.body, trail + (("for", s.loop_var, s.min, s.extent),))
        elif t is tirx.IfThenElse:
            stmt(s.then_case, trail + (("guard", s.condition, True),))
            if s.else_case is not None:
                stmt(s.else_case, trail + (("guard", s.condition, False),))
        elif t is s_tir.SBlockRealize:
            blk = s.block
            inner = trail + (("guard", s.predicate, True),)
            if blk.name_hint != "root":
                out.append(Site(blk.name_hint, blk, s, inner))
            binds = tuple(("bind", iv.var, v) for iv, v in zip(blk.iter_vars, s.iter_values, strict=True))
            stmt(blk.body, inner + binds)
        elif t is tirx.AttrStmt:
            stmt(s.body, trail)
        elif t is tirx.While:
            stmt(s.body, trail + (("guard", s.condition, True),))

    stmt(func.body, ())
    return out


def _guards(block: Any) -> dict[str, Any]:
    """Conditions guarding expressions/statements in a block body, by their printed form."""
    import tvm
    import tvm_ffi
    from tvm import tirx

    found: dict[str, Any] = {}

    def on_call(c: Any) -> None:
        if getattr(c.op, "name", "") == "prim.if_then_else":
            found.setdefault(str(c.args[0]), c.args[0])

    def on_if(s: Any) -> None:
        found.setdefault(str(s.condition), s.condition)

    tvm_ffi.structural_walk(block.body, [(tvm.ir.Call, on_call), (tirx.IfThenElse, on_if)])
    return found


def _doms(block: Any) -> dict[str, tuple[str, str]]:
    return {iv.var.name: (str(iv.dom.min), str(iv.dom.extent)) for iv in block.iter_vars}


# --------------------------------------------------------------------------------------------
# Z3 encoding of a site's path
# --------------------------------------------------------------------------------------------


class _PathZ3:
    def __init__(self, ctx: z3.Context, shared: dict[int, Any], tag: str) -> None:
        self.enc = Encoder(ctx=ctx, tag=tag)
        self.enc.env.update(shared)  # shape vars are the same constants in every copy
        self.loop_terms: list[tuple[Any, Any]] = []

    def path(self, trail: tuple[Step, ...]) -> list[Any]:
        cons = []
        for s in trail:
            if s[0] == "for":
                var, lo_e, ext_e = s[1], s[2], s[3]
                dt = dtype_of(var)
                lo, ext = self.enc.enc(lo_e), self.enc.enc(ext_e)
                v = self.enc.fresh_bv(var.name, dt)
                self.enc.bind(var, v)
                self.loop_terms.append((var, v))
                end = lo + ext
                cons.append(z3.And(lo <= v, v < end) if int_info(dt)[1] else z3.And(z3.ULE(lo, v), z3.ULT(v, end)))
            elif s[0] == "bind":
                v = self.enc.enc(s[2])
                if v is None:
                    raise EvalError("non-integer binding")
                self.enc.bind(s[1], v)
            else:
                c = self.enc.enc(s[1])
                if not isinstance(c, z3.BoolRef):
                    raise EvalError("non-boolean guard")
                cons.append(c if s[2] else z3.Not(c))
        return cons


def _replay(trail: tuple[Step, ...], values: dict[str, int], env0: dict[int, int]) -> Evaluator | None:
    """Concretely walk ``trail`` with loop variables taking ``values`` (by name, in order);
    returns the evaluator at the block (None when the point is not actually executed)."""
    ev = Evaluator(dict(env0))
    try:
        for s in trail:
            if s[0] == "for":
                var = s[1]
                lo = ev(s[2])
                end = wrap(lo + ev(s[3]), dtype_of(var))
                v = values[var.name]
                if not lo <= v < end:
                    return None
                ev.env[key(var)] = v
            elif s[0] == "bind":
                ev.env[key(s[1])] = ev(s[2])
            elif bool(ev(s[1])) != s[2]:
                return None
    except (EvalError, KeyError):
        return None
    return ev


def _in_dom(ev: Evaluator, orig_block: Any, values: list[int]) -> int:
    """Index of the first iterator outside the original domain, or -1."""
    for i, (iv, v) in enumerate(zip(orig_block.iter_vars, values, strict=True)):
        lo, ext = ev(iv.dom.min), ev(iv.dom.extent)
        if not lo <= v < lo + ext:
            return i
    return -1


# --------------------------------------------------------------------------------------------
# The checker
# --------------------------------------------------------------------------------------------


class DomainChecker:
    def __init__(self, original: Any, after: Any, *, moved: set[str] = frozenset(),
                 consumers: set[str] = frozenset(), restricted: set[str] = frozenset(),
                 sizes: dict[str, int] | None = None, timeout_ms: int = 2000) -> None:
        self.original, self.after = original, after
        self.moved, self.restricted = set(moved), set(restricted)
        self.consumers = set(consumers)
        self.sizes = sizes or {}
        self.timeout_ms = timeout_ms
        self.res = DomainResult()
        self.ctx = z3.Context()
        self.shared: dict[int, Any] = {}
        self.shape_env: dict[int, int] = {}
        self.shape_cons: list[Any] = []
        self._shape_vars()
        from passcheck.tir.analysis.bounds import shape_var_limits

        # One table for both functions: a schedule keeps the shape var objects, but a custom
        # pass might not, and every key an interval mentions must have a limit.
        self.limits = {**shape_var_limits(original), **shape_var_limits(after)}

    def _shape_vars(self) -> None:
        """Shape vars: one Z3 constant each (>= 1), and their run-time sizes for enumeration."""
        import tvm
        import tvm_ffi

        found: dict[int, Any] = {}

        def visit(v: Any) -> None:
            found.setdefault(key(v), v)

        for p in self.after.params:
            for d in getattr(p, "shape", []):
                tvm_ffi.structural_walk(d, [(tvm.ir.Var, visit)])
        for k, v in found.items():
            bits = int_info(dtype_of(v))[0]
            term = z3.BitVec(v.name, bits, ctx=self.ctx)
            self.shared[k] = term
            self.shape_cons += [term >= 1, term <= (1 << 20)]  # realistic sizes keep the search finite
            if v.name in self.sizes:
                self.shape_env[k] = self.sizes[v.name]
        # The same shape var object appears in the original: map it by name.
        for p in self.original.params:
            for d in getattr(p, "shape", []):
                def alias(v: Any) -> None:
                    for k2, v2 in found.items():
                        if v2.name == v.name:
                            self.shared.setdefault(key(v), self.shared[k2])
                            if k2 in self.shape_env:
                                self.shape_env.setdefault(key(v), self.shape_env[k2])

                tvm_ffi.structural_walk(d, [(tvm.ir.Var, alias)])

    def solver(self) -> z3.Solver:
        s = z3.Solver(ctx=self.ctx)
        s.set("timeout", self.timeout_ms)
        s.add(*self.shape_cons)
        return s

    # groups ------------------------------------------------------------------------------------
    def groups(self) -> list[tuple[Site, list[Site]]]:
        orig = {s.name: s for s in block_sites(self.original)}
        after = block_sites(self.after)
        out = []
        for name, o in orig.items():
            doms = _doms(o.block)
            pieces = [s for s in after if _is_piece(s.name, name) and _doms(s.block) == doms]
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
        probe = DomainChecker(self.original, self.original, sizes=self.sizes, timeout_ms=self.timeout_ms)
        probe.shape_env, probe.shared, probe.shape_cons = self.shape_env, self.shared, self.shape_cons
        probe.ctx = self.ctx
        probe._check_group(o, [o])
        return bool(probe.res.issues or probe.res.unknown)

    def _check_group(self, o: Site, pieces: list[Site]) -> None:
        self.res.blocks_checked += 1
        # A relocated consumer (reverse_compute_at) may be re-run at every step of the loop
        # it was moved under: harmless for a spatial block (it rewrites the same values),
        # double counting for a reduction.
        spatial = not any(int(iv.iter_type) == 2 for iv in o.block.iter_vars)
        once = o.name not in self.moved | self.restricted and not (o.name in self.consumers and spatial)
        for p in pieces:
            self.outside(o, p)
            self.guards(o, p)
            self.region(o, p)
        # Enumerating the loop nests at the run-time sizes settles "twice" and "missing"
        # exactly; Z3 is asked about "twice" only when the nests are too large for that.
        # A relocated producer computes only what its consumers read, so its coverage is
        # required only when it writes a function output.
        need_cover = o.name not in self.restricted and (
            once or o.name in self.consumers or _writes_param(o, self.original))
        counted = self.count(o, pieces, exact=once, cover=need_cover) if (once or need_cover) else True
        if once and not counted:
            for i, a in enumerate(pieces):
                for b in pieces[i:]:
                    self.twice(o, a, b)


    # checks ------------------------------------------------------------------------------------
    def _bindings(self, pz: _PathZ3, site: Site, o: Site) -> list[Any]:
        by_name = {iv.var.name: v for iv, v in zip(site.block.iter_vars, site.realize.iter_values, strict=True)}
        return [pz.enc.enc(by_name[iv.var.name]) for iv in o.block.iter_vars]

    def _values(self, model: Any, pz: _PathZ3) -> dict[str, int]:
        return {var.name: wrap(model.eval(t, model_completion=True).as_long(), dtype_of(var))
                for var, t in pz.loop_terms}

    def _shape_values(self, model: Any) -> dict[int, int]:
        return {k: model.eval(t, model_completion=True).as_long() for k, t in self.shared.items()}

    def _check(self, s: z3.Solver, what: str, block: str) -> Any:
        r = s.check()
        if r == z3.unknown:
            self.res.unknown.append((block, f"{what}: Z3 gave up ({s.reason_unknown()})"))
            return None
        return s.model() if r == z3.sat else None

    def outside(self, o: Site, p: Site) -> None:
        # Fast path: interval bounds of the bindings within the original domain prove it.
        iv = _site_intervals(p.trail, self.limits)
        by_name = {x.var.name: v for x, v in zip(p.block.iter_vars, p.realize.iter_values, strict=True)}
        ov = _site_intervals((), self.limits)
        if all(_within(iv.of(by_name[x.var.name]), ov.of(x.dom.min), ov.of(x.dom.extent), iv)
               for x in o.block.iter_vars):
            return
        try:
            pz = _PathZ3(self.ctx, self.shared, "_a")
            cons = pz.path(p.trail)
            binds = self._bindings(pz, p, o)
            out = []
            for iv, b in zip(o.block.iter_vars, binds, strict=True):
                # A nested block's domain may mention enclosing block iterators: encode it in
                # the same environment as the path, where those are bound.
                lo, ext = pz.enc.enc(iv.dom.min), pz.enc.enc(iv.dom.extent)
                w = max(b.size(), lo.size())
                bw, low, extw = to_width(b, "int64", w), to_width(lo, "int64", w), to_width(ext, "int64", w)
                out.append(z3.Or(bw < low, bw >= low + extw))
        except (EvalError, KeyError, z3.Z3Exception) as e:
            self.res.unknown.append((p.name, f"outside: not encodable ({e})"))
            return
        s = self.solver()
        s.add(*cons, z3.Or(*out))
        model = self._check(s, "outside", p.name)
        if model is None:
            return
        values, env0 = self._values(model, pz), self._shape_values(model)
        ev = _replay(p.trail, values, env0)
        if ev is None:
            self.res.unknown.append((p.name, "outside: witness not confirmed concretely"))
            return
        by_name = {iv.var.name: v for iv, v in zip(p.block.iter_vars, p.realize.iter_values, strict=True)}
        try:
            vals = [ev(by_name[iv.var.name]) for iv in o.block.iter_vars]
            bad = _in_dom(ev, o.block, vals)
        except EvalError:
            bad = -1
        if bad < 0:
            self.res.unknown.append((p.name, "outside: witness not confirmed concretely"))
            return
        iv = o.block.iter_vars[bad]
        self.res.issues.append(DomainIssue("outside", p.name, (
            f"iterator {iv.var.name} = {vals[bad]} is outside its original domain "
            f"[{iv.dom.min}, {iv.dom.min} + {iv.dom.extent}) at {_fmt(values)}")))

    def twice(self, o: Site, a: Site, b: Site) -> None:
        try:
            pa, pb = _PathZ3(self.ctx, self.shared, "_a"), _PathZ3(self.ctx, self.shared, "_b")
            ca, cb = pa.path(a.trail), pb.path(b.trail)
            ba, bb = self._bindings(pa, a, o), self._bindings(pb, b, o)
        except (EvalError, KeyError, z3.Z3Exception) as e:
            self.res.unknown.append((a.name, f"twice: not encodable ({e})"))
            return
        same = [x == y for x, y in zip(ba, bb, strict=True)]
        s = self.solver()
        s.add(*ca, *cb, *same)
        if a is b:  # the same site: the two loop points must differ
            s.add(z3.Or(*[x != y for (_, x), (_, y) in zip(pa.loop_terms, pb.loop_terms, strict=True)])
                  if pa.loop_terms else z3.BoolVal(False, ctx=self.ctx))
        model = self._check(s, "twice", a.name)
        if model is None:
            return
        va, vb, env0 = self._values(model, pa), self._values(model, pb), self._shape_values(model)
        ea, eb = _replay(a.trail, va, env0), _replay(b.trail, vb, env0)
        if ea is None or eb is None:
            self.res.unknown.append((a.name, "twice: witness not confirmed concretely"))
            return
        na = {iv.var.name: v for iv, v in zip(a.block.iter_vars, a.realize.iter_values, strict=True)}
        nb = {iv.var.name: v for iv, v in zip(b.block.iter_vars, b.realize.iter_values, strict=True)}
        try:
            xa = [ea(na[iv.var.name]) for iv in o.block.iter_vars]
            xb = [eb(nb[iv.var.name]) for iv in o.block.iter_vars]
        except EvalError:
            xa, xb = [0], [1]
        if xa != xb or (a is b and va == vb):
            self.res.unknown.append((a.name, "twice: witness not confirmed concretely"))
            return
        where = f"{_fmt(va)} and {_fmt(vb)}" + ("" if a is b else f" (in {a.name!r} and {b.name!r})")
        self.res.issues.append(DomainIssue("twice", o.name, (
            f"instance ({', '.join(f'{iv.var.name}={x}' for iv, x in zip(o.block.iter_vars, xa, strict=True))}) "
            f"is executed twice, at {where}")))

    def region(self, o: Site, p: Site) -> None:
        """Every access of the scheduled block to a buffer the original block also accessed
        (same name and shape) stays within the hull of the original block's accesses to it."""
        hull = _access_hull(o, self.original)
        if not hull:
            return
        own = tuple(("bind", iv.var, v) for iv, v in zip(p.block.iter_vars, p.realize.iter_values, strict=True))
        ivs = _site_intervals(p.trail + own, self.limits)
        for node, buf, body_guards in _block_accesses(p.block):
            h = hull.get((buf.name, str(list(buf.shape))))
            if h is None:
                continue
            if all(b is None or _inside(ivs.of(i), b, ivs) for i, b in zip(node.indices, h, strict=True)):
                continue  # proved by intervals
            guards = own + body_guards
            try:
                pz = _PathZ3(self.ctx, self.shared, "_a")
                cons = pz.path(p.trail + guards)
                outside = []
                for d, (i, bound) in enumerate(zip(node.indices, h, strict=True)):
                    if bound is None:
                        continue
                    it = pz.enc.enc(i)
                    lo, hi = (self._aff(a, it.size()) for a in bound)
                    iw = to_width(it, dtype_of(i), it.size())
                    outside.append((d, z3.Or(iw < lo, iw > hi)))
            except (EvalError, KeyError, z3.Z3Exception, AttributeError) as e:
                self.res.unknown.append((p.name, f"region: not encodable ({e})"))
                continue
            if not outside:
                continue
            s = self.solver()
            s.add(*cons, z3.Or(*[c for _, c in outside]))
            model = self._check(s, "region", p.name)
            if model is None:
                continue
            values = self._values(model, pz)
            env0 = self._shape_values(model)
            ev = _replay(p.trail + guards, values, env0)
            try:
                idx = [ev(i) for i in node.indices] if ev is not None else None
            except EvalError:
                idx = None
            if idx is None:
                self.res.unknown.append((p.name, "region: witness not confirmed concretely"))
                continue
            shape_vals = {k: v for k, v in env0.items()}
            for d, bound in enumerate(h):
                if bound is None:
                    continue
                lo, hi = (_aff_value(a, shape_vals) for a in bound)
                if not lo <= idx[d] <= hi:
                    self.res.issues.append(DomainIssue("region", p.name, (
                        f"accesses {buf.name}{idx} (dim {d} = {idx[d]}) at {_fmt(values)}, outside the "
                        f"original block's access region [{lo}, {hi}] in that dim")))
                    break
            else:
                self.res.unknown.append((p.name, "region: witness not confirmed concretely"))

    def _aff(self, a: Any, bits: int) -> Any:
        t = z3.BitVecVal(a.c, bits, ctx=self.ctx)
        for k, x in a.k:
            v = self.shared[k]
            t = t + to_width(v, "int64", bits) * x if v.size() <= bits else t + z3.Extract(bits - 1, 0, v) * x
        return t

    def guards(self, o: Site, p: Site) -> None:
        before, after = _guards(o.block), _guards(p.block)
        for text, cond in before.items():
            if text in after:
                continue
            if after:
                # The block still has conditions, just not this text: rewritten (cache_index
                # turns `1 <= v` into loads of an index buffer), not dropped. Equivalence of
                # rewritten guards is not decided here; execution and bounds cover them.
                self.res.unknown.append((p.name, f"guard `{text}` rewritten, not compared"))
                continue
            try:
                pz = _PathZ3(self.ctx, self.shared, "_a")
                cons = pz.path(p.trail)
                # The original condition speaks of the original block's iterators: bind them
                # to this piece's bindings by name.
                by_name = {iv.var.name: v for iv, v in zip(p.block.iter_vars, p.realize.iter_values, strict=True)}
                for iv in o.block.iter_vars:
                    pz.enc.bind(iv.var, pz.enc.enc(by_name[iv.var.name]))
                c = pz.enc.enc(cond)
                if not isinstance(c, z3.BoolRef):
                    raise EvalError("non-boolean guard")
            except (EvalError, KeyError, z3.Z3Exception) as e:
                self.res.unknown.append((p.name, f"guard: not encodable ({e})"))
                continue
            s = self.solver()
            s.add(*cons, z3.Not(c))
            model = self._check(s, "guard", p.name)
            if model is None:
                continue
            values = self._values(model, pz)
            ev = _replay(p.trail, values, self._shape_values(model))
            try:
                confirmed = ev is not None and not _eval_with(ev, o, p, cond)
            except EvalError:
                confirmed = False
            if not confirmed:
                self.res.unknown.append((p.name, "guard: witness not confirmed concretely"))
                continue
            self.res.issues.append(DomainIssue("guard", p.name, (
                f"the original guard `{text}` was removed but is false at {_fmt(values)}")))

    def count(self, o: Site, pieces: list[Site], exact: bool, cover: bool) -> bool:
        """Enumerate every piece's loop nest at the run-time sizes: the distinct instances must
        be the whole original domain (``cover``) and, when ``exact``, each executed once.
        Returns False when the nests cannot be enumerated."""
        try:
            dom = _enumerate_domain(o, self.shape_env)
            rows = []
            for p in pieces:
                r = _enumerate_site(p, o, self.shape_env)
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


def _block_accesses(block: Any) -> list[tuple[Any, Any, tuple[Step, ...]]]:
    """(node, buffer, guards) of every load/store directly in a block body (not in nested
    blocks); ``guards`` are the enclosing if/if_then_else conditions as trail steps."""
    import tvm
    from tvm import s_tir, tirx

    out: list[tuple[Any, Any, tuple[Step, ...]]] = []

    def expr(e: Any, g: tuple[Step, ...]) -> None:
        t = type(e)
        if t is tvm.ir.TensorLoad:
            out.append((e, e.source, g))
            for i in e.indices:
                expr(i, g)
        elif t is tvm.ir.Call and getattr(e.op, "name", "") == "prim.if_then_else":
            c, a, b = e.args
            expr(c, g)
            expr(a, g + (("guard", c, True),))
            expr(b, g + (("guard", c, False),))
        elif t is tvm.ir.Call:
            for a in e.args:
                if hasattr(a, "ty") and hasattr(a.ty, "dtype"):
                    expr(a, g)
        else:
            for f in ("a", "b", "value", "condition", "true_value", "false_value"):
                c = getattr(e, f, None)
                if c is not None and hasattr(c, "ty") and hasattr(c.ty, "dtype"):
                    expr(c, g)

    def stmt(x: Any, g: tuple[Step, ...]) -> None:
        t = type(x)
        if t is tirx.BufferStore:
            expr(x.value, g)
            for i in x.indices:
                expr(i, g)
            out.append((x, x.buffer, g))
        elif t is tirx.SeqStmt:
            for y in x.seq:
                stmt(y, g)
        elif t is tirx.IfThenElse:
            expr(x.condition, g)
            stmt(x.then_case, g + (("guard", x.condition, True),))
            if x.else_case is not None:
                stmt(x.else_case, g + (("guard", x.condition, False),))
        elif t is tirx.Evaluate:
            expr(x.value, g)
        elif t is s_tir.SBlockRealize or t is tirx.For:
            return  # nested loops/blocks: their own sites

    stmt(block.body, ())
    return out


def _access_hull(o: Site, func: Any) -> dict[tuple[str, str], list[tuple[Any, Any] | None]]:
    """Per (buffer, shape): per dim an affine [lo, hi] covering every access of the original
    block over its iteration domain (intervals; guards ignored, so it over-approximates)."""
    from passcheck.tir.analysis.bounds import shape_var_limits
    from passcheck.tir.analysis.intervals import Intervals

    iv = Intervals(limits=shape_var_limits(func))
    for v in o.block.iter_vars:
        iv.loop(v.var, v.dom.min, v.dom.extent)
    hull: dict[tuple[str, str], list[tuple[Any, Any] | None]] = {}
    for node, buf, _ in _block_accesses(o.block):
        k = (buf.name, str(list(buf.shape)))
        dims = [iv.of(i) for i in node.indices]
        if k not in hull:
            hull[k] = dims
            continue
        merged = []
        for a, b in zip(hull[k], dims, strict=True):
            merged.append(None if a is None or b is None else (iv._lower(a[0], b[0]), iv._upper(a[1], b[1])))
        hull[k] = merged
    return hull


def _within(b: Any, lo: Any, ext: Any, iv: Any) -> bool:
    """Interval ``b`` inside [lo, lo + ext) for every shape-var value."""
    if b is None or lo is None or ext is None:
        return False
    return iv.le(lo[1], b[0]) and iv.hi_val(b[1] - (lo[0] + ext[0])) <= -1


def _inside(b: Any, hull: tuple[Any, Any], iv: Any) -> bool:
    return b is not None and iv.le(hull[0], b[0]) and iv.le(b[1], hull[1])


def _site_intervals(trail: tuple[Step, ...], limits: dict[int, int]) -> Any:
    """Interval bounds of the loop/binding variables along ``trail`` (guards ignored)."""
    from passcheck.tir.analysis.intervals import Intervals

    iv = Intervals(limits=limits)
    for s in trail:
        if s[0] == "for":
            iv.loop(s[1], s[2], s[3])
        elif s[0] == "bind":
            iv.bind(s[1], iv.of(s[2]))
    return iv


def _aff_value(a: Any, shape_vals: dict[int, int]) -> int:
    return a.c + sum(x * shape_vals[k] for k, x in a.k)


def _is_piece(name: str, original: str) -> bool:
    """Is block ``name`` (a piece of) the original block: itself, decompose_reduction's
    ``X_update``, or a loop_partition copy ``X_<loop><k>``? Other derived blocks (``_init``,
    ``_rf``, caches, ``_pad_const`` fills) compute something else."""
    if name in (original, original + "_update"):
        return True
    return re.fullmatch(re.escape(original) + r"_[A-Za-z_]*[0-9]+", name) is not None


def _writes_param(o: Site, func: Any) -> bool:
    params = {key(p) for p in func.params}
    return any(key(w.source) in params for w in o.block.writes)


def _eval_with(ev: Evaluator, o: Site, p: Site, cond: Any) -> bool:
    by_name = {iv.var.name: v for iv, v in zip(p.block.iter_vars, p.realize.iter_values, strict=True)}
    for iv in o.block.iter_vars:
        ev.env[key(iv.var)] = ev(by_name[iv.var.name])
    return bool(ev(cond))


def _fmt(values: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "(no loops)"


def _enumerate_domain(o: Site, shape_env: dict[int, int]) -> np.ndarray | None:
    ev = Evaluator(dict(shape_env))
    axes = []
    for iv in o.block.iter_vars:
        lo, ext = ev(iv.dom.min), ev(iv.dom.extent)
        axes.append(np.arange(lo, lo + max(ext, 0), dtype=np.int64))
    total = int(np.prod([len(a) for a in axes])) if axes else 1
    if total > ENUM_LIMIT:
        return None
    if not axes:
        return np.zeros((1, 0), np.int64)
    grids = np.meshgrid(*axes, indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1)


def _enumerate_site(p: Site, o: Site, shape_env: dict[int, int]) -> np.ndarray | None:
    """Instances (rows of original-iterator values) the site executes, enumerating its trail."""
    env: dict[int, np.ndarray] = {k: np.array([v], np.int64) for k, v in shape_env.items()}
    n = 1
    mask = np.ones(1, bool)
    for s in p.trail:
        ev = VecEvaluator(env)
        if s[0] == "for":
            lo = np.broadcast_to(np.asarray(ev(s[2]), np.int64), (n,))
            ext = np.broadcast_to(np.asarray(ev(s[3]), np.int64), (n,))
            ext = np.where(mask, np.maximum(ext, 0), 0)
            total = int(ext.sum())
            if total > ENUM_LIMIT:
                return None
            rep = np.repeat(np.arange(n), ext)
            offs = np.arange(total) - np.repeat(np.cumsum(ext) - ext, ext)
            env = {k: (v[rep] if np.ndim(v) and len(v) == n else v) for k, v in env.items()}
            env[key(s[1])] = lo[rep] + offs
            mask = mask[rep]
            n = total
        elif s[0] == "bind":
            env[key(s[1])] = np.broadcast_to(np.asarray(ev(s[2]), np.int64), (n,)).copy()
        else:
            c = np.broadcast_to(np.asarray(ev(s[1]), bool), (n,))
            mask = mask & (c if s[2] else ~c)
    ev = VecEvaluator(env)
    by_name = {iv.var.name: v for iv, v in zip(p.block.iter_vars, p.realize.iter_values, strict=True)}
    cols = [np.broadcast_to(np.asarray(ev(by_name[iv.var.name]), np.int64), (n,)) for iv in o.block.iter_vars]
    if not cols:
        return np.zeros((int(mask.sum()), 0), np.int64)
    return np.stack(cols, axis=1)[mask]


def check_domains(original: Any, after: Any, *, moved: set[str] = frozenset(), consumers: set[str] = frozenset(),
                  restricted: set[str] = frozenset(), sizes: dict[str, int] | None = None,
                  timeout_ms: int = 2000) -> DomainResult:
    """Domain checks of ``after``'s ``main`` against ``original``'s (PrimFuncs or modules)."""
    from tvm import tirx

    o = original if isinstance(original, tirx.PrimFunc) else original["main"]
    a = after if isinstance(after, tirx.PrimFunc) else after["main"]
    return DomainChecker(o, a, moved=moved, consumers=consumers, restricted=restricted, sizes=sizes,
                         timeout_ms=timeout_ms).run()
