"""A sound integer-interval pre-check for index expressions (the bounds checker's fast path).

Intervals are exact big-integer bounds; every intermediate result must fit its dtype, so no
wraparound can happen and the bound holds for the machine value too. Anything else (a shape
var, a loaded value, a possible overflow, a float) gives ``None``: "not proved here", and the
access goes to Z3. Guards are ignored, which only over-approximates.
"""

from __future__ import annotations

from typing import Any

from passcheck.oracles.tir_concrete import dtype_of, int_info, is_int, key

Interval = tuple[int, int] | None


def _fits(iv: tuple[int, int], dtype: str) -> Interval:
    bits, signed = int_info(dtype)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return iv if lo <= iv[0] and iv[1] <= hi else None


def _floordiv_iv(a: tuple[int, int], c: int) -> tuple[int, int]:
    return a[0] // c, a[1] // c


def _truncdiv(x: int, c: int) -> int:
    q = abs(x) // c
    return q if x >= 0 else -q


class Intervals:
    def __init__(self) -> None:
        self.env: dict[int, tuple[int, int]] = {}
        self._memo: dict[int, Interval] = {}

    def bind(self, var: Any, iv: Interval) -> None:
        if iv is None:
            self.env.pop(key(var), None)
        else:
            self.env[key(var)] = iv

    def of(self, e: Any) -> Interval:
        k = key(e)
        if k in self._memo:
            return self._memo[k]
        dt = dtype_of(e)
        r = self._of(e) if is_int(dt) else None
        if r is not None:
            r = _fits(r, dt)
        # Loop/let variables are bound once (SSA), so a node's interval never changes later.
        self._memo[k] = r
        return r

    def _of(self, e: Any) -> Interval:
        import tvm
        from tvm import tirx

        t = type(e)
        if t is tirx.IntImm:
            v = int(e.value)
            return v, v
        if t is tvm.ir.Var or t is tirx.Var:
            return self.env.get(key(e))
        if t in (tirx.Add, tirx.Sub, tirx.Mul, tirx.Min, tirx.Max):
            a, b = self.of(e.a), self.of(e.b)
            if a is None or b is None:
                return None
            if t is tirx.Add:
                return a[0] + b[0], a[1] + b[1]
            if t is tirx.Sub:
                return a[0] - b[1], a[1] - b[0]
            if t is tirx.Mul:
                ps = [x * y for x in a for y in b]
                return min(ps), max(ps)
            if t is tirx.Min:
                return min(a[0], b[0]), min(a[1], b[1])
            return max(a[0], b[0]), max(a[1], b[1])
        if t in (tirx.FloorDiv, tirx.FloorMod, tirx.Div, tirx.Mod):
            a, b = self.of(e.a), self.of(e.b)
            if a is None or b is None or b[0] != b[1] or b[0] <= 0:
                return None
            c = b[0]
            if t is tirx.FloorDiv:
                return _floordiv_iv(a, c)
            if t is tirx.Div:
                return _truncdiv(a[0], c), _truncdiv(a[1], c)
            if t is tirx.FloorMod:
                q = a[0] // c
                return (a[0] - q * c, a[1] - q * c) if a[1] // c == q else (0, c - 1)
            if a[0] >= 0:  # truncmod of a non-negative value
                return a if a[1] < c else (0, c - 1)
            return -(c - 1), c - 1
        if t is tirx.Select:
            a, b = self.of(e.true_value), self.of(e.false_value)
            return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
        if t is tirx.Cast:
            src = dtype_of(e.value)
            if not is_int(src):
                return None
            return self.of(e.value)  # the caller checks it fits the target dtype
        if t is tirx.Let:
            self.bind(e.var, self.of(e.value))
            return self.of(e.body)
        if t is tvm.ir.Call:
            name = getattr(e.op, "name", "")
            if name == "prim.if_then_else":
                a, b = self.of(e.args[1]), self.of(e.args[2])
                return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
            if name in ("prim.likely", "tirx.likely"):
                return self.of(e.args[0])
        return None

    def loop(self, var: Any, lo: Any, extent: Any) -> None:
        """Bind a loop variable ranging over [lo, lo + extent)."""
        a, b = self.of(lo), self.of(extent)
        if a is None or b is None:
            self.bind(var, None)
            return
        end_hi = a[1] + b[1]
        if _fits((a[0], end_hi), dtype_of(var)) is None:
            self.bind(var, None)
            return
        self.bind(var, (a[0], max(a[0], end_hi - 1)))
