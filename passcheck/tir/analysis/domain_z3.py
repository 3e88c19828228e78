"""The domain check's Z3 questions about one piece of a block -- ``outside``, ``twice``,
``region``, ``guard`` -- each asked over the piece's trail (``trail.TrailEncoder``) and each
witness replayed concretely (``trail.replay``) before it is reported; a timeout, or a witness
the replay does not confirm, is ``unknown``."""

from __future__ import annotations

import time
from typing import Any

import z3

from passcheck.tir.analysis.concrete import EvalError, Evaluator, dtype_of, int_info, key
from passcheck.tir.analysis.encode import to_width
from passcheck.tir.analysis.intervals import Intervals
from passcheck.tir.analysis.limits import leading_assertions, shape_var_limits
from passcheck.tir.analysis.nodes import free_vars
from passcheck.tir.analysis.results import DomainIssue, DomainResult
from passcheck.tir.analysis.sites import Site, access_hull, block_accesses, block_guards
from passcheck.tir.analysis.trail import Bind, Loop, Trail, TrailEncoder, by_name, model_value, replay


class ShapeSpace:
    """The shape vars of a pair of functions: one Z3 constant each, common to every copy of a
    loop nest, over the range ``limits.shape_var_limits`` gives (from 0, or what the original
    function asserts first, up to an addressable size), and their run-time sizes for
    enumeration."""

    def __init__(self, original: Any, after: Any, sizes: dict[str, int], timeout_ms: int) -> None:
        import tvm
        import tvm_ffi

        self.timeout_ms = timeout_ms
        self.ctx = z3.Context()
        self.shared: dict[int, Any] = {}
        self.shape_env: dict[int, int] = {}
        self.shape_cons: list[Any] = []
        found: dict[int, Any] = {}
        for p in after.params:
            for d in getattr(p, "shape", []):
                free_vars(d, found)
        limits = shape_var_limits(after)
        orig_limits = {v.name: r for v, r in _by_var(original).items()}
        for k, v in found.items():
            bits = int_info(dtype_of(v))[0]
            term = z3.BitVec(v.name, bits, ctx=self.ctx)
            self.shared[k] = term
            lo, hi = limits.get(k, (0, (1 << (bits - 1)) - 1))
            if v.name in orig_limits:  # the caller's contract is the original's
                lo, hi = max(lo, orig_limits[v.name][0]), min(hi, orig_limits[v.name][1])
            self.shape_cons += [term >= lo, term <= hi]
            if v.name in sizes:
                self.shape_env[k] = sizes[v.name]
        # The same shape var object appears in the original: map it by name.
        for p in original.params:
            for d in getattr(p, "shape", []):
                def alias(v: Any) -> None:
                    for k2, v2 in found.items():
                        if v2.name == v.name:
                            self.shared.setdefault(key(v), self.shared[k2])
                            if k2 in self.shape_env:
                                self.shape_env.setdefault(key(v), self.shape_env[k2])

                tvm_ffi.structural_walk(d, [(tvm.ir.Var, alias)])

        # What the original asserts before anything else holds wherever its blocks run.
        enc = self.trails("_assert")
        for cond in leading_assertions(original):
            try:
                c = enc.enc.enc(cond)
            except (EvalError, KeyError, z3.Z3Exception):
                continue  # not encodable: only its plain bounds (in the range above) are assumed
            if isinstance(c, z3.BoolRef):
                self.shape_cons.append(c)

    def solver(self) -> z3.Solver:
        s = z3.Solver(ctx=self.ctx)
        s.set("timeout", self.timeout_ms)
        s.add(*self.shape_cons)
        return s

    def trails(self, tag: str) -> TrailEncoder:
        """A fresh copy of the loop variables (tagged ``tag``) over the shared shape vars."""
        return TrailEncoder.fresh(self.ctx, tag, self.shared, strict=True)

    def shape_values(self, model: Any) -> dict[int, int]:
        return {k: model.eval(t, model_completion=True).as_long() for k, t in self.shared.items()}

    def aff(self, a: Any, bits: int) -> Any:
        """The affine form ``a`` (intervals.Aff over shape vars) as a ``bits``-wide term."""
        t = z3.BitVecVal(a.c, bits, ctx=self.ctx)
        for k, x in a.k:
            v = self.shared[k]
            t = t + to_width(v, "int64", bits) * x if v.size() <= bits else t + z3.Extract(bits - 1, 0, v) * x
        return t


class Questions:
    """The Z3 questions about pieces of original blocks; findings go to ``res``."""

    def __init__(self, space: ShapeSpace, res: DomainResult, limits: dict[int, tuple[int, int]],
                 original: Any, deadline: float = float("inf")) -> None:
        self.space, self.res, self.limits, self.original = space, res, limits, original
        # (time.perf_counter) past it, questions not yet asked are unknown: each may take the
        # solver's timeout, and a fused nest of symbolic extents made every one of them time out
        # (four 2 s questions per block: the example outran the run's time limit)
        self.deadline = deadline

    def _check(self, s: z3.Solver, what: str, block: str) -> Any:
        left_ms = int((self.deadline - time.perf_counter()) * 1000)
        if left_ms <= 0:
            self.res.unknown.append((block, f"{what}: the domain check's Z3 budget is spent"))
            return None
        if left_ms < self.space.timeout_ms:
            s.set("timeout", left_ms)
        r = s.check()
        if r == z3.unknown:
            self.res.unknown.append((block, f"{what}: Z3 gave up ({s.reason_unknown()})"))
            return None
        return s.model() if r == z3.sat else None

    def outside(self, o: Site, p: Site) -> None:
        # Fast path: interval bounds of the bindings within the original domain prove it.
        iv = _intervals_along(p.trail, self.limits)
        binding = p.bindings()
        ov = _intervals_along((), self.limits)
        if all(_within(iv.of(binding[x.var.name]), ov.of(x.dom.min), ov.of(x.dom.extent), iv)
               for x in o.block.iter_vars):
            return
        try:
            pz = self.space.trails("_a")
            cons = pz.path(p.trail)
            binds = _bindings(pz, p, o)
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
        s = self.space.solver()
        s.add(*cons, z3.Or(*out))
        model = self._check(s, "outside", p.name)
        if model is None:
            return
        values = _values(model, pz)
        ev = replay(p.trail, by_name(values), self.space.shape_values(model)).ev
        if ev is None:
            self.res.unknown.append((p.name, "outside: witness not confirmed concretely"))
            return
        try:
            vals = [ev(binding[iv.var.name]) for iv in o.block.iter_vars]
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
            pa, pb = self.space.trails("_a"), self.space.trails("_b")
            ca, cb = pa.path(a.trail), pb.path(b.trail)
            ba, bb = _bindings(pa, a, o), _bindings(pb, b, o)
        except (EvalError, KeyError, z3.Z3Exception) as e:
            self.res.unknown.append((a.name, f"twice: not encodable ({e})"))
            return
        same = [x == y for x, y in zip(ba, bb, strict=True)]
        s = self.space.solver()
        s.add(*ca, *cb, *same)
        if a is b:  # the same site: the two loop points must differ
            la, lb = pa.loop_terms(), pb.loop_terms()
            s.add(z3.Or(*[x != y for (_, x), (_, y) in zip(la, lb, strict=True)])
                  if la else z3.BoolVal(False, ctx=self.space.ctx))
        model = self._check(s, "twice", a.name)
        if model is None:
            return
        va, vb, env0 = _values(model, pa), _values(model, pb), self.space.shape_values(model)
        ea, eb = replay(a.trail, by_name(va), env0).ev, replay(b.trail, by_name(vb), env0).ev
        if ea is None or eb is None:
            self.res.unknown.append((a.name, "twice: witness not confirmed concretely"))
            return
        na, nb = a.bindings(), b.bindings()
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
        hull = access_hull(o, self.original)
        if not hull:
            return
        own = p.own_binds()
        ivs = _intervals_along(p.trail + own, self.limits)
        for node, buf, body_guards in block_accesses(p.block):
            h = hull.get((buf.name, str(list(buf.shape))))
            if h is None:
                continue
            if all(b is None or _inside(ivs.of(i), b, ivs) for i, b in zip(node.indices, h, strict=True)):
                continue  # proved by intervals
            guards = own + body_guards
            try:
                pz = self.space.trails("_a")
                cons = pz.path(p.trail + guards)
                outside = []
                for d, (i, bound) in enumerate(zip(node.indices, h, strict=True)):
                    if bound is None:
                        continue
                    it = pz.enc.enc(i)
                    lo, hi = (self.space.aff(a, it.size()) for a in bound)
                    iw = to_width(it, dtype_of(i), it.size())
                    outside.append((d, z3.Or(iw < lo, iw > hi)))
            except (EvalError, KeyError, z3.Z3Exception, AttributeError) as e:
                self.res.unknown.append((p.name, f"region: not encodable ({e})"))
                continue
            if not outside:
                continue
            s = self.space.solver()
            s.add(*cons, z3.Or(*[c for _, c in outside]))
            model = self._check(s, "region", p.name)
            if model is None:
                continue
            values = _values(model, pz)
            shape_vals = self.space.shape_values(model)
            ev = replay(p.trail + guards, by_name(values), shape_vals).ev
            try:
                idx = [ev(i) for i in node.indices] if ev is not None else None
            except EvalError:
                idx = None
            if idx is None:
                self.res.unknown.append((p.name, "region: witness not confirmed concretely"))
                continue
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

    def guards(self, o: Site, p: Site) -> None:
        before, after = block_guards(o.block), block_guards(p.block)
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
                pz = self.space.trails("_a")
                cons = pz.path(p.trail)
                # The original condition speaks of the original block's iterators: bind them
                # to this piece's bindings by name.
                binding = p.bindings()
                for iv in o.block.iter_vars:
                    pz.enc.bind(iv.var, pz.enc.enc(binding[iv.var.name]))
                c = pz.enc.enc(cond)
                if not isinstance(c, z3.BoolRef):
                    raise EvalError("non-boolean guard")
            except (EvalError, KeyError, z3.Z3Exception) as e:
                self.res.unknown.append((p.name, f"guard: not encodable ({e})"))
                continue
            s = self.space.solver()
            s.add(*cons, z3.Not(c))
            model = self._check(s, "guard", p.name)
            if model is None:
                continue
            values = _values(model, pz)
            ev = replay(p.trail, by_name(values), self.space.shape_values(model)).ev
            try:
                confirmed = ev is not None and not _eval_with(ev, o, p, cond)
            except EvalError:
                confirmed = False
            if not confirmed:
                self.res.unknown.append((p.name, "guard: witness not confirmed concretely"))
                continue
            self.res.issues.append(DomainIssue("guard", p.name, (
                f"the original guard `{text}` was removed but is false at {_fmt(values)}")))


def _bindings(pz: TrailEncoder, site: Site, o: Site) -> list[Any]:
    """Terms of the original block's iterators as ``site`` binds them (by name)."""
    binding = site.bindings()
    return [pz.enc.enc(binding[iv.var.name]) for iv in o.block.iter_vars]


def _values(model: Any, pz: TrailEncoder) -> dict[str, int]:
    return {var.name: model_value(model, t, dtype_of(var)) for var, t in pz.loop_terms()}


def _in_dom(ev: Evaluator, orig_block: Any, values: list[int]) -> int:
    """Index of the first iterator outside the original domain, or -1."""
    for i, (iv, v) in enumerate(zip(orig_block.iter_vars, values, strict=True)):
        lo, ext = ev(iv.dom.min), ev(iv.dom.extent)
        if not lo <= v < lo + ext:
            return i
    return -1


def _eval_with(ev: Evaluator, o: Site, p: Site, cond: Any) -> bool:
    binding = p.bindings()
    for iv in o.block.iter_vars:
        ev.env[key(iv.var)] = ev(binding[iv.var.name])
    return bool(ev(cond))


def _by_var(func: Any) -> dict[Any, tuple[int, int]]:
    """``shape_var_limits`` of ``func`` keyed by the var objects."""
    found: dict[int, Any] = {}
    for p in func.params:
        for d in getattr(p, "shape", []):
            free_vars(d, found)
    limits = shape_var_limits(func)
    return {found[k]: r for k, r in limits.items() if k in found}


def _intervals_along(trail: Trail, limits: dict[int, tuple[int, int]]) -> Intervals:
    """Interval bounds of the loop/binding variables along ``trail`` (guards ignored)."""
    iv = Intervals(limits=limits)
    for s in trail:
        if isinstance(s, Loop):
            iv.loop(s.var, s.min, s.extent)
        elif isinstance(s, Bind):
            iv.bind(s.var, iv.of(s.value))
    return iv


def _within(b: Any, lo: Any, ext: Any, iv: Intervals) -> bool:
    """Interval ``b`` inside [lo, lo + ext) for every shape-var value."""
    if b is None or lo is None or ext is None:
        return False
    return iv.le(lo[1], b[0]) and iv.hi_val(b[1] - (lo[0] + ext[0])) <= -1


def _inside(b: Any, hull: tuple[Any, Any], iv: Intervals) -> bool:
    return b is not None and iv.le(hull[0], b[0]) and iv.le(b[1], hull[1])


def _aff_value(a: Any, shape_vals: dict[int, int]) -> int:
    return a.c + sum(x * shape_vals[k] for k, x in a.k)


def _fmt(values: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "(no loops)"
