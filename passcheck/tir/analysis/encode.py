"""Z3 encoding of TIR integer expressions as bit-vectors of their dtype (machine semantics).

int32/int64 values are bit-vectors of 32/64 bits: ``+ - *`` wrap, casts narrow by truncation
and widen by sign (or zero) extension, ``FloorDiv/FloorMod`` and ``Div/Mod`` (truncating) are
exact on negative operands, ``Min/Max/Select/if_then_else`` are ``If``. Anything that is not
integer arithmetic over variables (a loaded value, a float computation cast to int, an
unknown call) becomes a fresh unconstrained *opaque* term: an over-approximation, which is why
every witness is re-checked by the concrete evaluator before it is reported.

``wide=True`` evaluates every integer at 128 bits instead (no wraparound for our sizes): used
to state that shape expressions do not overflow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from passcheck.tir.analysis.concrete import dtype_of, int_info, is_float, is_int, key

WIDE = 128


@dataclass
class Opaque:
    """A leaf Z3 cannot see through; ``node`` is the TIR node whose value it stands for."""

    term: Any
    node: Any
    reason: str


@dataclass
class Encoder:
    ctx: z3.Context | None = None
    wide: bool = False
    env: dict[int, Any] = field(default_factory=dict)  # key(var) -> z3 term
    free: dict[int, tuple[Any, Any]] = field(default_factory=dict)  # key(var) -> (var, term)
    opaque: dict[int, Opaque] = field(default_factory=dict)
    tag: str = ""
    known: dict[int, Any] = field(default_factory=dict)  # key(load) -> tables.Table it reads
    _memo: dict[int, Any] = field(default_factory=dict)
    _n: int = 0

    # ---------------------------------------------------------------------------------------
    def bits(self, dtype: str) -> int:
        b, _ = int_info(dtype)
        return WIDE if (self.wide and dtype != "bool") else b

    def fresh_bv(self, name: str, dtype: str) -> Any:
        self._n += 1
        return z3.BitVec(f"{name}{self.tag}!{self._n}", self.bits(dtype), ctx=self.ctx)

    def const(self, v: int, dtype: str) -> Any:
        return z3.BitVecVal(v, self.bits(dtype), ctx=self.ctx)

    def bind(self, var: Any, term: Any) -> None:
        self.env[key(var)] = term

    def var_term(self, var: Any) -> Any:
        """The term of ``var``: bound (loop, let) or, if free (a shape var), a fresh constant."""
        k = key(var)
        t = self.env.get(k)
        if t is None:
            dt = dtype_of(var)
            if not is_int(dt) and dt != "bool":
                return self._opaque(var, "non-integer variable")
            t = z3.BitVec(f"{var.name}{self.tag}", self.bits(dt), ctx=self.ctx) if dt != "bool" else z3.Bool(
                f"{var.name}{self.tag}", ctx=self.ctx
            )
            self.env[k] = t
            self.free[k] = (var, t)
        return t

    def _opaque(self, node: Any, reason: str) -> Any:
        k = key(node)
        o = self.opaque.get(k)
        if o is None:
            dt = dtype_of(node)
            self._n += 1
            name = f"opaque{self.tag}!{self._n}"
            if dt == "bool":
                term = z3.Bool(name, ctx=self.ctx)
            elif is_int(dt):
                term = z3.BitVec(name, self.bits(dt), ctx=self.ctx)
            else:
                term = None  # a float: only ever compared, which is itself opaque
            o = Opaque(term, node, reason)
            self.opaque[k] = o
        return o.term

    # ---------------------------------------------------------------------------------------
    def enc(self, e: Any) -> Any:
        """Z3 term of ``e`` (BitVec for integers, Bool for bool); floats are not encodable and
        give None (callers turn comparisons of them into opaque Bools)."""
        k = key(e)
        hit = self._memo.get(k)
        if hit is not None:
            return hit
        t = self._enc(e)
        if t is not None:
            self._memo[k] = t
        return t

    def _enc(self, e: Any) -> Any:
        import tvm
        from tvm import tirx

        t = type(e)
        dt = dtype_of(e)
        if t is tirx.IntImm:
            if dt == "bool":
                return z3.BoolVal(bool(e.value), ctx=self.ctx)
            return self.const(int(e.value), dt)
        if t is tvm.ir.Var or t is tirx.Var:
            return self.var_term(e)
        if is_float(dt):
            return None
        fn = _OPS.get(t)
        if fn is not None:
            a, b = self.enc(e.a), self.enc(e.b)
            if a is None or b is None:  # a float comparison
                return self._opaque(e, "float comparison")
            return fn(a, b, dtype_of(e.a))
        if t is tirx.Cast:
            return self.cast(e)
        if t is tirx.Not:
            a = self.enc(e.a)
            return z3.Not(a)
        if t is tirx.Select:
            c, a, b = self.enc(e.condition), self.enc(e.true_value), self.enc(e.false_value)
            if a is None or b is None:
                return self._opaque(e, "float select")
            return z3.If(c, a, b)
        if t is tirx.Let:
            v = self.enc(e.value)
            if v is None:
                v = self._opaque(e.var, "float let")
            self.bind(e.var, v)
            return self.enc(e.body)
        if t is tirx.BitwiseNot:
            return ~self.enc(e.a)
        if t is tvm.ir.TensorLoad:
            table = self.known.get(key(e))
            if table is not None:
                return self._table_value(table, e.indices)
            return self._opaque(e, f"value loaded from {e.source.name}")
        if t is tvm.ir.Call:
            name = getattr(e.op, "name", "")
            if name == "prim.if_then_else":
                c, a, b = (self.enc(x) for x in e.args)
                if a is None or b is None:
                    return self._opaque(e, "float if_then_else")
                return z3.If(c, a, b)
            if name in ("prim.likely", "tirx.likely"):
                return self.enc(e.args[0])
            return self._opaque(e, f"call {name}")
        return self._opaque(e, f"{t.__name__} node")

    def _table_value(self, table: Any, indices: Any) -> Any:
        """The table's stored expression with its loop variables bound to the load's indices
        (a child encoder: the memo of the expression's nodes depends on those bindings)."""
        child = Encoder(ctx=self.ctx, wide=self.wide, env=dict(self.env), free=self.free, opaque=self.opaque,
                        tag=self.tag, known=self.known, _n=self._n)
        for var, i in zip(table.loop_vars, indices, strict=True):
            if var is None:
                continue
            term = self.enc(i)
            if not isinstance(term, z3.BitVecRef):
                return self._opaque(i, "non-integer table index")
            # In bounds (checked as its own access), the index is the loop variable's value.
            child.env[key(var)] = to_width(term, dtype_of(i), self.bits(dtype_of(var)))
        value = child.enc(table.value)
        self._n = child._n
        if not isinstance(value, z3.BitVecRef):
            return self._opaque(table.value, "non-integer table value")
        return to_width(value, dtype_of(table.value), self.bits(table.buffer.dtype))

    def cast(self, e: Any) -> Any:
        src, dst = dtype_of(e.value), dtype_of(e)
        if is_float(src) or not (is_int(dst) or dst == "bool"):
            return self._opaque(e, f"cast {src} -> {dst}")
        v = self.enc(e.value)
        if dst == "bool":
            return v if src == "bool" else v != 0
        if src == "bool":
            return z3.If(v, self.const(1, dst), self.const(0, dst))
        sb, db = self.bits(src), self.bits(dst)
        if db == sb:
            return v
        if db < sb:
            return z3.Extract(db - 1, 0, v)
        _, signed = int_info(src)
        return z3.SignExt(db - sb, v) if signed else z3.ZeroExt(db - sb, v)


# --- operators -------------------------------------------------------------------------------


def _signed(dtype: str) -> bool:
    return dtype == "bool" or int_info(dtype)[1]


def _floordiv(a: Any, b: Any, dt: str) -> Any:
    if not _signed(dt):
        return z3.UDiv(a, b)
    q = a / b  # bvsdiv: truncates toward zero
    # Round toward -inf when the division is inexact and the signs differ; computed this way
    # (not as (a - floormod) / b) so no intermediate overflows.
    adjust = z3.And(z3.SRem(a, b) != 0, (a < 0) != (b < 0))
    return z3.If(adjust, q - 1, q)


def _floormod(a: Any, b: Any, dt: str) -> Any:
    if not _signed(dt):
        return z3.URem(a, b)
    return a % b  # z3py % on bit-vectors is bvsmod: the result takes the divisor's sign (floormod)


def _cmp(signed_op: Any, unsigned_op: Any) -> Any:
    def f(a: Any, b: Any, dt: str) -> Any:
        if isinstance(a, z3.BoolRef):
            return signed_op(z3.If(a, 1, 0), z3.If(b, 1, 0))
        return signed_op(a, b) if _signed(dt) else unsigned_op(a, b)

    return f


def _eq(a: Any, b: Any, dt: str) -> Any:
    return a == b


def _ne(a: Any, b: Any, dt: str) -> Any:
    return a != b


def _build_ops() -> dict[type, Any]:
    from tvm import tirx

    return {
        tirx.Add: lambda a, b, dt: a + b,
        tirx.Sub: lambda a, b, dt: a - b,
        tirx.Mul: lambda a, b, dt: a * b,
        tirx.Div: lambda a, b, dt: a / b if _signed(dt) else z3.UDiv(a, b),
        tirx.Mod: lambda a, b, dt: z3.SRem(a, b) if _signed(dt) else z3.URem(a, b),
        tirx.FloorDiv: _floordiv,
        tirx.FloorMod: _floormod,
        tirx.Min: lambda a, b, dt: z3.If(a < b if _signed(dt) else z3.ULT(a, b), a, b),
        tirx.Max: lambda a, b, dt: z3.If(a > b if _signed(dt) else z3.UGT(a, b), a, b),
        tirx.EQ: _eq,
        tirx.NE: _ne,
        tirx.LT: _cmp(lambda a, b: a < b, z3.ULT),
        tirx.LE: _cmp(lambda a, b: a <= b, z3.ULE),
        tirx.GT: _cmp(lambda a, b: a > b, z3.UGT),
        tirx.GE: _cmp(lambda a, b: a >= b, z3.UGE),
        tirx.And: lambda a, b, dt: z3.And(a, b),
        tirx.Or: lambda a, b, dt: z3.Or(a, b),
        tirx.BitwiseAnd: lambda a, b, dt: a & b,
        tirx.BitwiseOr: lambda a, b, dt: a | b,
        tirx.BitwiseXor: lambda a, b, dt: a ^ b,
        tirx.LShift: lambda a, b, dt: a << b,
        tirx.RShift: lambda a, b, dt: a >> b if _signed(dt) else z3.LShR(a, b),
    }


class _LazyOps(dict):
    def get(self, k: Any, default: Any = None) -> Any:  # type: ignore[override]
        if not self:
            self.update(_build_ops())
        return super().get(k, default)


_OPS: dict[type, Any] = _LazyOps()


def to_width(t: Any, src_dtype: str, bits: int) -> Any:
    """``t`` sign- (or zero-) extended to ``bits`` so values of different widths compare exactly
    (or truncated, as a narrowing cast does, when ``bits`` is smaller)."""
    have = t.size()
    if have == bits:
        return t
    if have > bits:
        return z3.Extract(bits - 1, 0, t)
    return z3.SignExt(bits - have, t) if _signed(src_dtype) else z3.ZeroExt(bits - have, t)
