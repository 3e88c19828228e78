"""A sound interval pre-check for index expressions (the bounds checker's fast path).

Bounds are affine forms in the shape vars (``c + sum a_i * n_i``), each shape var ranging over
``[lo_i, hi_i]`` (``limits.shape_var_limits``: 0 up to an addressable size, the range the Z3
encoding states too), so the common
symbolic patterns -- ``i < n`` against an extent ``n``, a fused loop ``f < n * 48`` divided by
48 -- are proved without Z3. Every intermediate result must fit its dtype over the whole box
of shape-var values, so no wraparound can happen and the bound holds for the machine value.
Anything else (a loaded value, a possible overflow, a float) gives ``None``: "not proved
here", and the access goes to Z3. Guards are ignored, which only over-approximates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from passcheck.tir.analysis.concrete import dtype_of, int_info, is_int, key


@dataclass(frozen=True)
class Aff:
    """``c + sum(k[v] * v)`` over shape vars ``v`` (keys of TVM vars)."""

    c: int
    k: tuple[tuple[int, int], ...] = ()

    @staticmethod
    def const(v: int) -> Aff:
        return Aff(v)

    def coefs(self) -> dict[int, int]:
        return dict(self.k)

    def _make(self, c: int, k: dict[int, int]) -> Aff:
        return Aff(c, tuple(sorted((v, a) for v, a in k.items() if a)))

    def __add__(self, o: Aff) -> Aff:
        k = self.coefs()
        for v, a in o.k:
            k[v] = k.get(v, 0) + a
        return self._make(self.c + o.c, k)

    def scale(self, s: int) -> Aff:
        return self._make(self.c * s, {v: a * s for v, a in self.k})

    def __sub__(self, o: Aff) -> Aff:
        return self + o.scale(-1)


@dataclass
class Intervals:
    """Interval bounds of integer expressions; ``limits`` maps shape vars to their range
    ``(lo, hi)``. Where an extent may be 0 a loop's interval is empty for some shape values:
    its body does not run there, so what is claimed about it there is vacuous."""

    limits: dict[int, tuple[int, int]] = field(default_factory=dict)
    env: dict[int, tuple[Aff, Aff]] = field(default_factory=dict)
    _memo: dict[int, tuple[Aff, Aff] | None] = field(default_factory=dict)

    # numeric extremes of an affine form over the shape-var box ---------------------------------
    def lo_val(self, a: Aff) -> int:
        return a.c + sum(x * self.limits[v][0 if x > 0 else 1] for v, x in a.k)

    def hi_val(self, a: Aff) -> int:
        return a.c + sum(x * self.limits[v][1 if x > 0 else 0] for v, x in a.k)

    def le(self, a: Aff, b: Aff) -> bool:
        """a <= b for every shape-var value."""
        return self.hi_val(a - b) <= 0

    def _fits(self, iv: tuple[Aff, Aff], dtype: str) -> tuple[Aff, Aff] | None:
        bits, signed = int_info(dtype)
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        ok = lo <= self.lo_val(iv[0]) and self.hi_val(iv[1]) <= hi
        # Every point between the bounds must fit too (not just the bounds themselves).
        return iv if ok and lo <= self.lo_val(iv[1]) and self.hi_val(iv[0]) <= hi else None

    # binding ---------------------------------------------------------------------------------
    def bind(self, var: Any, iv: tuple[Aff, Aff] | None) -> None:
        if iv is None:
            self.env.pop(key(var), None)
        else:
            self.env[key(var)] = iv

    def loop(self, var: Any, lo: Any, extent: Any) -> None:
        """Bind a loop variable ranging over [lo, lo + extent)."""
        a, b = self.of(lo), self.of(extent)
        if a is None or b is None:
            self.bind(var, None)
            return
        end = (a[1] + b[1], a[1] + b[1])
        if self._fits((a[0], end[1]), dtype_of(var)) is None:
            self.bind(var, None)
            return
        self.bind(var, (a[0], a[1] + b[1] - Aff.const(1)))

    def proved(self, index: Any, extent: Any) -> bool:
        """0 <= index < extent for every point and every shape-var value."""
        a, b = self.of(index), self.of(extent)
        return a is not None and b is not None and self.lo_val(a[0]) >= 0 and self.hi_val(a[1] - b[0]) <= -1

    # evaluation ------------------------------------------------------------------------------
    def of(self, e: Any) -> tuple[Aff, Aff] | None:
        k = key(e)
        if k in self._memo:
            return self._memo[k]
        dt = dtype_of(e)
        r = self._of(e) if is_int(dt) else None
        if r is not None:
            r = self._fits(r, dt)
        # Loop/let variables are bound once (SSA), so a node's interval never changes later.
        self._memo[k] = r
        return r

    def _num(self, lo: int, hi: int) -> tuple[Aff, Aff]:
        return Aff.const(lo), Aff.const(hi)

    def _lower(self, a: Aff, b: Aff) -> Aff:
        """An affine lower bound of both ``a`` and ``b``."""
        if self.le(a, b):
            return a
        if self.le(b, a):
            return b
        return Aff.const(min(self.lo_val(a), self.lo_val(b)))

    def _upper(self, a: Aff, b: Aff) -> Aff:
        if self.le(a, b):
            return b
        if self.le(b, a):
            return a
        return Aff.const(max(self.hi_val(a), self.hi_val(b)))

    def _of(self, e: Any) -> tuple[Aff, Aff] | None:
        import tvm
        from tvm import tirx

        t = type(e)
        if t is tirx.IntImm:
            v = int(e.value)
            return self._num(v, v)
        if t is tvm.ir.Var:
            k = key(e)
            if k in self.limits:
                a = Aff(0, ((k, 1),))
                return a, a
            return self.env.get(k)
        if t in (tirx.Add, tirx.Sub, tirx.Mul, tirx.Min, tirx.Max):
            a, b = self.of(e.a), self.of(e.b)
            if a is None or b is None:
                return None
            if t is tirx.Add:
                return a[0] + b[0], a[1] + b[1]
            if t is tirx.Sub:
                return a[0] - b[1], a[1] - b[0]
            if t is tirx.Mul:
                return self._mul(a, b)
            if t is tirx.Min:
                # min(x, y) <= x <= a.hi and <= b.hi: either upper bound is sound.
                return self._lower(a[0], b[0]), (b[1] if self.le(b[1], a[1]) else a[1])
            return (b[0] if self.le(a[0], b[0]) else a[0]), self._upper(a[1], b[1])
        if t in (tirx.FloorDiv, tirx.FloorMod, tirx.Div, tirx.Mod):
            return self._div(t, e)
        if t is tirx.Select:
            return self._union(self.of(e.true_value), self.of(e.false_value))
        if t is tirx.Cast:
            return self.of(e.value) if is_int(dtype_of(e.value)) else None  # caller checks the fit
        if t is tirx.Let:
            self.bind(e.var, self.of(e.value))
            return self.of(e.body)
        if t is tvm.ir.Call:
            name = getattr(e.op, "name", "")
            if name == "prim.if_then_else":
                return self._union(self.of(e.args[1]), self.of(e.args[2]))
            if name in ("prim.likely", "tirx.likely"):
                return self.of(e.args[0])
        return None

    def _union(self, a: tuple[Aff, Aff] | None, b: tuple[Aff, Aff] | None) -> tuple[Aff, Aff] | None:
        if a is None or b is None:
            return None
        return self._lower(a[0], b[0]), self._upper(a[1], b[1])

    def _mul(self, a: tuple[Aff, Aff], b: tuple[Aff, Aff]) -> tuple[Aff, Aff] | None:
        if not a[0].k and not a[1].k and a[0].c == a[1].c:
            a, b = b, a
        if not b[0].k and not b[1].k and b[0].c == b[1].c:  # times a constant
            s = b[0].c
            return (a[0].scale(s), a[1].scale(s)) if s >= 0 else (a[1].scale(s), a[0].scale(s))
        if all(not x.k for x in (*a, *b)):
            ps = [x.c * y.c for x in a for y in b]
            return self._num(min(ps), max(ps))
        return None

    def _div(self, t: type, e: Any) -> tuple[Aff, Aff] | None:
        from tvm import tirx

        a, b = self.of(e.a), self.of(e.b)
        if a is None or b is None or b[0].k or b[1].k or b[0].c != b[1].c or b[0].c <= 0:
            return None
        c = b[0].c
        nonneg = self.lo_val(a[0]) >= 0
        if t is tirx.FloorDiv or (t is tirx.Div and nonneg):
            lo, hi = self._floordiv(a[0], c), self._floordiv(a[1], c)
            if lo is None or hi is None:  # floor is monotone: numeric bounds are sound
                return self._num(self.lo_val(a[0]) // c, self.hi_val(a[1]) // c)
            return lo, hi
        if t is tirx.Div:  # truncation of a possibly negative value: numeric bounds
            lo, hi = self.lo_val(a[0]), self.hi_val(a[1])
            tr = [(abs(x) // c) * (1 if x >= 0 else -1) for x in (lo, hi)]
            return self._num(min(tr), max(tr))
        if t is tirx.FloorMod or nonneg:
            lo, hi = self.lo_val(a[0]), self.hi_val(a[1])
            if not a[0].k and not a[1].k and lo // c == hi // c:
                q = lo // c
                return self._num(lo - q * c, hi - q * c)
            return self._num(0, c - 1)
        return self._num(-(c - 1), c - 1)  # truncmod of a possibly negative value

    def _floordiv(self, a: Aff, c: int) -> Aff | None:
        """floor(a / c) exactly, when ``c`` divides every coefficient (then the shape-var part
        divides exactly and only the constant is floored)."""
        if all(x % c == 0 for _, x in a.k):
            return Aff(a.c // c, tuple((v, x // c) for v, x in a.k))
        return None
