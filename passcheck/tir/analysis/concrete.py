"""Concrete evaluation of TIR expressions with machine semantics, in plain Python.

This is deliberately a second, independent implementation of the integer semantics that
``encode`` encodes for Z3: a Z3 witness is only reported after this evaluator agrees that the
index really is out of bounds at that point. Integers wrap to their dtype's width; ``//`` and
``%`` of TIR are floordiv/floormod, ``Div``/``Mod`` truncate like C; casts narrow by wrapping.
Division by zero and other undefined behaviour raise ``EvalError`` (never a confirmed witness).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class EvalError(Exception):
    """The expression has no defined value here (undefined behaviour or unsupported node)."""


def key(node: Any) -> int:
    """Identity of a TVM object (``==`` on PrimExprs builds an expression, so never use it)."""
    return int(node.__chandle__())


def dtype_of(expr: Any) -> str:
    return str(expr.ty.dtype)


def int_info(dtype: str) -> tuple[int, bool]:
    """(bits, signed) of an integer or bool dtype."""
    if dtype == "bool":
        return 1, False
    if dtype.startswith("int"):
        return int(dtype[3:] or 32), True
    if dtype.startswith("uint"):
        return int(dtype[4:] or 32), False
    raise EvalError(f"not an integer dtype: {dtype}")


def is_int(dtype: str) -> bool:
    return dtype.startswith(("int", "uint")) and "x" not in dtype


def is_float(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat")) and "x" not in dtype


def wrap(v: int, dtype: str) -> int:
    bits, signed = int_info(dtype)
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


_NP_FLOAT = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


def _fl(v: Any, dtype: str) -> Any:
    try:
        return _NP_FLOAT[dtype](v)
    except KeyError:
        raise EvalError(f"float dtype {dtype} not modelled") from None


def _truncdiv(a: int, b: int) -> int:
    if b == 0:
        raise EvalError("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


class Evaluator:
    """Evaluates TIR PrimExprs given values for variables (``env``, keyed by ``key(var)``) and
    for opaque leaves such as data loads (``opaque``, keyed by ``key(node)``)."""

    def __init__(self, env: dict[int, Any] | None = None, opaque: dict[int, Any] | None = None,
                 known: dict[int, Any] | None = None) -> None:
        self.env: dict[int, Any] = dict(env or {})
        self.opaque: dict[int, Any] = dict(opaque or {})
        # key(load) -> tables.Table: loads whose value is the table's stored expression
        self.known: dict[int, Any] = dict(known or {})

    def __call__(self, e: Any) -> Any:
        return self.eval(e)

    def eval(self, e: Any) -> Any:
        import tvm
        from tvm import tirx

        t = type(e)
        if t is tirx.IntImm:
            return int(e.value)
        if t is tirx.FloatImm:
            return _fl(e.value, dtype_of(e))
        if t is tvm.ir.Var or t is tirx.Var:
            try:
                return self.env[key(e)]
            except KeyError:
                raise EvalError(f"unbound variable {e.name}") from None
        fn = _BINARY.get(t)
        if fn is not None:
            return fn(self, e)
        if t is tirx.Cast:
            return self.cast(self.eval(e.value), dtype_of(e.value), dtype_of(e))
        if t is tirx.Not:
            return not self.eval(e.a)
        if t is tirx.Select:
            c = self.eval(e.condition)
            return self.eval(e.true_value if c else e.false_value)
        if t is tirx.Let:
            self.env[key(e.var)] = self.eval(e.value)
            return self.eval(e.body)
        if t is tirx.BitwiseNot:
            return wrap(~self.eval(e.a), dtype_of(e))
        if t is tvm.ir.TensorLoad:
            table = self.known.get(key(e))
            if table is not None:
                sub = Evaluator(self.env, self.opaque, self.known)
                for var, i in zip(table.loop_vars, e.indices, strict=True):
                    if var is not None:
                        sub.env[key(var)] = wrap(self.eval(i), dtype_of(var))
                return wrap(sub.eval(table.value), str(table.buffer.dtype))
            try:
                return self.opaque[key(e)]
            except KeyError:
                raise EvalError(f"value of load {e.source.name} unknown") from None
        if t is tvm.ir.Call:
            return self.call(e)
        raise EvalError(f"cannot evaluate {t.__name__}")

    # ---------------------------------------------------------------------------------------
    def cast(self, v: Any, src: str, dst: str) -> Any:
        if dst == "bool":
            return bool(v)
        if is_int(dst):
            if is_float(src):
                if not np.isfinite(v):
                    raise EvalError("cast of a non-finite float to int")
                v = int(np.trunc(v))
                bits, signed = int_info(dst)
                lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
                if not lo <= v <= hi:  # out-of-range float->int is undefined in C/LLVM
                    raise EvalError("float to int cast out of range")
                return v
            return wrap(int(v), dst)
        if is_float(dst):
            return _fl(v, dst)
        raise EvalError(f"cast to {dst} not modelled")

    def call(self, e: Any) -> Any:
        name = e.op.name if hasattr(e.op, "name") else ""
        args = e.args
        if name == "prim.if_then_else":
            return self.eval(args[1] if self.eval(args[0]) else args[2])
        if name in ("prim.likely", "tirx.likely"):
            return self.eval(args[0])
        unary = _FLOAT_CALLS.get(name.split(".")[-1])
        if unary is not None:
            v = self.eval(args[0])
            return _fl(unary(v), dtype_of(e))
        raise EvalError(f"call {name} not modelled")


def _arith(op: str) -> Any:
    def f(ev: Evaluator, e: Any) -> Any:
        a, b = ev.eval(e.a), ev.eval(e.b)
        dt = dtype_of(e)
        if is_float(dt):
            with np.errstate(all="ignore"):
                return _fl({"+": a + b, "-": a - b, "*": a * b}[op] if op in "+-*" else _float_div(a, b), dt)
        if op == "+":
            return wrap(a + b, dt)
        if op == "-":
            return wrap(a - b, dt)
        return wrap(a * b, dt)

    return f


def _float_div(a: Any, b: Any) -> Any:
    with np.errstate(all="ignore"):
        return a / b


def _div(kind: str) -> Any:
    def f(ev: Evaluator, e: Any) -> Any:
        a, b = ev.eval(e.a), ev.eval(e.b)
        dt = dtype_of(e)
        if is_float(dt):
            if kind == "trunc":
                return _fl(_float_div(a, b), dt)
            if kind == "floor":
                return _fl(np.floor(_float_div(a, b)), dt)
            raise EvalError("float modulo not modelled")
        if b == 0:
            raise EvalError("division by zero")
        if kind == "trunc":
            return wrap(_truncdiv(a, b), dt)
        if kind == "truncmod":
            return wrap(a - b * _truncdiv(a, b), dt)
        if kind == "floor":
            return wrap(a // b, dt)
        return wrap(a % b, dt)  # floormod: Python's % takes the divisor's sign

    return f


def _cmp(op: Any) -> Any:
    return lambda ev, e: bool(op(ev.eval(e.a), ev.eval(e.b)))


def _bit(op: Any) -> Any:
    def f(ev: Evaluator, e: Any) -> Any:
        a, b = ev.eval(e.a), ev.eval(e.b)
        dt = dtype_of(e)
        if op in ("<<", ">>"):
            bits, signed = int_info(dt)
            if not 0 <= b < bits:
                raise EvalError("shift amount out of range")
            if op == "<<":
                return wrap(a << b, dt)
            return a >> b if signed else (a % (1 << bits)) >> b
        return wrap({"&": a & b, "|": a | b, "^": a ^ b}[op], dt)

    return f


def _minmax(pick: Any) -> Any:
    return lambda ev, e: pick(ev.eval(e.a), ev.eval(e.b))


def _build_tables() -> dict[type, Any]:
    import operator

    from tvm import tirx

    return {
        tirx.Add: _arith("+"),
        tirx.Sub: _arith("-"),
        tirx.Mul: _arith("*"),
        tirx.Div: _div("trunc"),
        tirx.Mod: _div("truncmod"),
        tirx.FloorDiv: _div("floor"),
        tirx.FloorMod: _div("floormod"),
        tirx.Min: _minmax(min),
        tirx.Max: _minmax(max),
        tirx.EQ: _cmp(operator.eq),
        tirx.NE: _cmp(operator.ne),
        tirx.LT: _cmp(operator.lt),
        tirx.LE: _cmp(operator.le),
        tirx.GT: _cmp(operator.gt),
        tirx.GE: _cmp(operator.ge),
        tirx.And: lambda ev, e: bool(ev.eval(e.a)) & bool(ev.eval(e.b)),
        tirx.Or: lambda ev, e: bool(ev.eval(e.a)) | bool(ev.eval(e.b)),
        tirx.BitwiseAnd: _bit("&"),
        tirx.BitwiseOr: _bit("|"),
        tirx.BitwiseXor: _bit("^"),
        tirx.LShift: _bit("<<"),
        tirx.RShift: _bit(">>"),
    }


class _LazyTable(dict):
    """The dispatch table, built on first use so importing this module does not import TVM."""

    def get(self, k: Any, default: Any = None) -> Any:  # type: ignore[override]
        if not self:
            self.update(_build_tables())
        return super().get(k, default)


_BINARY: dict[type, Any] = _LazyTable()

_FLOAT_CALLS = {
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": np.rint,
    "nearbyint": np.rint,
    "fabs": np.abs,
}


class VecEvaluator:
    """Integer TIR expressions evaluated elementwise over numpy int64 arrays (one row per
    point of an enumerated loop nest). Same semantics as ``Evaluator`` for the integer subset;
    anything else raises ``EvalError``. Division by zero anywhere raises too."""

    def __init__(self, env: dict[int, np.ndarray]) -> None:
        self.env = env

    def __call__(self, e: Any) -> np.ndarray:
        return self.eval(e)

    def _wrap(self, v: np.ndarray, dtype: str) -> np.ndarray:
        if dtype == "bool":
            return v.astype(bool)
        bits, signed = int_info(dtype)
        if bits >= 64:
            return v  # int64 arithmetic wraps natively
        m = np.int64(1) << np.int64(bits)
        v = v & (m - 1)
        return v - m * (v >= (m >> 1)) if signed else v

    def eval(self, e: Any) -> np.ndarray:
        import tvm
        from tvm import tirx

        t = type(e)
        dt = dtype_of(e)
        if not (is_int(dt) or dt == "bool"):
            raise EvalError(f"non-integer {t.__name__}")
        if t is tirx.IntImm:
            return np.int64(int(e.value)) if dt != "bool" else np.bool_(bool(e.value))
        if t is tvm.ir.Var:
            try:
                return self.env[key(e)]
            except KeyError:
                raise EvalError(f"unbound variable {e.name}") from None
        with np.errstate(all="ignore"):
            if t in (tirx.Add, tirx.Sub, tirx.Mul):
                a, b = self.eval(e.a), self.eval(e.b)
                r = a + b if t is tirx.Add else a - b if t is tirx.Sub else a * b
                return self._wrap(np.asarray(r, dtype=np.int64), dt)
            if t in (tirx.FloorDiv, tirx.FloorMod, tirx.Div, tirx.Mod):
                a, b = np.asarray(self.eval(e.a), np.int64), np.asarray(self.eval(e.b), np.int64)
                if np.any(b == 0):
                    raise EvalError("division by zero")
                if t is tirx.FloorDiv:
                    return self._wrap(a // b, dt)
                if t is tirx.FloorMod:
                    return self._wrap(a % b, dt)
                q = np.abs(a) // np.abs(b) * np.sign(a) * np.sign(b)
                return self._wrap(q if t is tirx.Div else a - b * q, dt)
            if t in (tirx.Min, tirx.Max):
                a, b = self.eval(e.a), self.eval(e.b)
                return np.minimum(a, b) if t is tirx.Min else np.maximum(a, b)
            cmp = {tirx.EQ: np.equal, tirx.NE: np.not_equal, tirx.LT: np.less, tirx.LE: np.less_equal,
                   tirx.GT: np.greater, tirx.GE: np.greater_equal}.get(t)
            if cmp is not None:
                return cmp(self.eval(e.a), self.eval(e.b))
            if t is tirx.And:
                return np.logical_and(self.eval(e.a), self.eval(e.b))
            if t is tirx.Or:
                return np.logical_or(self.eval(e.a), self.eval(e.b))
            if t is tirx.Not:
                return np.logical_not(self.eval(e.a))
            if t is tirx.Select:
                return np.where(self.eval(e.condition), self.eval(e.true_value), self.eval(e.false_value))
            if t is tirx.Cast:
                src = dtype_of(e.value)
                if not (is_int(src) or src == "bool"):
                    raise EvalError("cast from a non-integer")
                return self._wrap(np.asarray(self.eval(e.value), np.int64), dt)
            if t is tvm.ir.Call:
                name = getattr(e.op, "name", "")
                if name == "prim.if_then_else":
                    return np.where(self.eval(e.args[0]), self.eval(e.args[1]), self.eval(e.args[2]))
                if name in ("prim.likely", "tirx.likely"):
                    return self.eval(e.args[0])
        raise EvalError(f"cannot evaluate {t.__name__} over arrays")
