"""The expressions of a lowered GPU kernel, evaluated for many threads at once (NumPy).

A value is an array with one row per active thread (``act``: the lanes of the machine the
statement runs on), a second axis for the lanes of a vector (``float32x4``). Integers keep
their dtype, so they wrap as the device's do; floats compute in their own dtype with NumPy's
correctly rounded operations (the comparison with the float64 reference carries the
reassociation bound, as for the GPU's own results). Where CUDA differs from C, CUDA's rules:
``min``/``max`` of floats return the operand that is not NaN (``fminf``), a float to int
conversion truncates and saturates, NaN converting to 0 (``cvt.rzi``). A construct not
modelled raises ``Unsupported``: the emulation is then unknown, never a finding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.tir.analysis.concrete import key


class Unsupported(Exception):
    """The kernel uses something the emulator does not model."""


_NP = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
       "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
       "float16": np.float16, "float32": np.float32, "float64": np.float64}


def np_dtype(dtype: str) -> Any:
    """The NumPy dtype of a TIR dtype's element (``float32x4`` -> float32)."""
    base = dtype.rsplit("x", 1)[0] if lanes_of(dtype) > 1 else dtype
    if base in _NP:
        return np.dtype(_NP[base])
    if base == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:
            raise Unsupported("bfloat16 needs ml_dtypes") from None
        return np.dtype(ml_dtypes.bfloat16)
    raise Unsupported(f"dtype {dtype}")


def lanes_of(dtype: str) -> int:
    if "x" in dtype:
        tail = dtype.rsplit("x", 1)[1]
        if tail.isdigit():
            return int(tail)
    return 1


# call_pure_extern / intrinsic names (as LowerIntrin writes them for CUDA) -> NumPy
_MATH = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10, x), "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "expm1": np.expm1, "sqrt": np.sqrt, "tanh": np.tanh, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "fabs": np.abs,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
    "round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),  # roundf: halves away from zero
    "nearbyint": np.rint, "rsqrt": lambda x: 1 / np.sqrt(x), "erf": None, "abs": np.abs,
}
_BINARY_MATH = {"pow": np.power, "fmin": np.fmin, "fmax": np.fmax, "fmod": np.fmod, "atan2": np.arctan2,
                "fdividef": np.divide, "hypot": np.hypot, "copysign": np.copysign, "nextafter": np.nextafter}


def _math_name(name: str) -> str:
    n = name.split(".")[-1].lstrip("_")
    for prefix in ("h",):  # half intrinsics: hexp, hlog, ...
        if n.startswith(prefix) and n[1:] in _MATH:
            n = n[1:]
    return n[:-1] if n.endswith("f") and n[:-1] in {**_MATH, **_BINARY_MATH} else n


def _erf(x: np.ndarray) -> np.ndarray:
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))


class Exprs:
    """Evaluates expressions for the active threads ``act`` of ``machine`` (its ``env``: one
    full-length array per variable; ``load``: memory; ``warp``: shuffles)."""

    def __init__(self, machine: Any) -> None:
        self.m = machine

    def eval(self, e: Any, act: np.ndarray) -> np.ndarray:
        import tvm
        from tvm import tirx

        t = type(e)
        n = len(act)
        if t is tirx.IntImm or t is tirx.FloatImm:
            return np.full(n, e.value, dtype=np_dtype(str(e.ty.dtype)))
        if t is tvm.ir.Var or t is tirx.Var:
            v = self.m.env.get(key(e))
            if v is None:
                raise Unsupported(f"unbound variable {e.name}")
            return v[act]
        if t is tvm.ir.TensorLoad:
            idx = [self.eval(i, act) for i in e.indices]
            return self.m.load(e.source, idx, act, str(e.ty.dtype))
        if t is tvm.ir.Call:
            return self.call(e, act)
        fn = self._table().get(t)
        if fn is not None:
            with np.errstate(all="ignore"):
                return fn(self, e, act)
        raise Unsupported(f"expression {t.__name__}")

    # -------------------------------------------------------------------------------------
    def call(self, e: Any, act: np.ndarray) -> np.ndarray:
        name = str(getattr(e.op, "name", ""))
        args = e.args
        if name == "prim.if_then_else":
            c = self.eval(args[0], act).astype(bool)
            out = np.empty((len(act), *self._lanes(e)), dtype=np_dtype(str(e.ty.dtype)))
            if c.any():
                out[c] = self.eval(args[1], act[c])
            if (~c).any():
                out[~c] = self.eval(args[2], act[~c])
            return out
        if name in ("prim.likely", "tirx.likely"):
            return self.eval(args[0], act)
        if name == "tirx.reinterpret":
            v = self.eval(args[0], act)
            return v.view(np_dtype(str(e.ty.dtype)))
        if name.startswith("tirx.cuda.__") and "shfl" in name or name.endswith("activemask"):
            return self.m.warp(name, [self.eval(a, act) for a in args], act)
        if name in ("tirx.call_pure_extern", "tirx.call_extern"):
            fname, rest = str(args[0].value), args[1:]
        else:
            fname, rest = name, args
        vals = [self.eval(a, act) for a in rest]
        out_dt = np_dtype(str(e.ty.dtype))
        base = _math_name(fname)
        if base in ("isnan", "isinf", "isfinite"):
            return getattr(np, base)(vals[0])
        with np.errstate(all="ignore"):
            if base == "erf" and len(vals) == 1:
                return _erf(vals[0]).astype(out_dt)
            if base == "sigmoid" and len(vals) == 1:
                return (1 / (1 + np.exp(-vals[0].astype(np.float64)))).astype(out_dt)
            if base in _MATH and _MATH[base] is not None and len(vals) == 1:
                return np.asarray(_MATH[base](vals[0])).astype(out_dt)
            if base in _BINARY_MATH and len(vals) == 2:
                return np.asarray(_BINARY_MATH[base](vals[0], vals[1])).astype(out_dt)
        raise Unsupported(f"call {fname}")

    @staticmethod
    def _lanes(e: Any) -> tuple[int, ...]:
        k = lanes_of(str(e.ty.dtype))
        return (k,) if k > 1 else ()

    _TABLE: dict[type, Any] = {}

    @classmethod
    def _table(cls) -> dict[type, Any]:
        if not cls._TABLE:
            cls._TABLE.update(_build_table())
        return cls._TABLE


def _arith(op: Any) -> Any:
    def f(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
        dt = np_dtype(str(e.ty.dtype))
        return op(x.eval(e.a, act), x.eval(e.b, act)).astype(dt, copy=False)

    return f


def _safe(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    zero = b == 0
    return np.where(zero, np.ones_like(b), b), zero


def _div(kind: str) -> Any:
    def f(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
        a, b = x.eval(e.a, act), x.eval(e.b, act)
        dt = np_dtype(str(e.ty.dtype))
        if np.issubdtype(dt, np.floating):
            q = a / b
            if kind in ("floor", "floormod"):
                fq = np.floor(q)
                return (fq if kind == "floor" else a - fq * b).astype(dt)
            if kind == "truncmod":
                return np.fmod(a, b).astype(dt)
            return q.astype(dt)
        # integer division by zero has no defined result on the device: those lanes get 0
        b1, zero = _safe(b)
        if kind == "floor":
            r = a // b1
        elif kind == "floormod":
            r = a % b1
        else:
            q = np.abs(a) // np.abs(b1)
            q = np.where((a < 0) != (b1 < 0), -q, q)
            r = q if kind == "trunc" else a - b1 * q
        return np.where(zero, np.zeros_like(r), r).astype(dt)

    return f


def _minmax(fl: Any, it: Any) -> Any:
    def f(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
        a, b = x.eval(e.a, act), x.eval(e.b, act)
        return (fl if np.issubdtype(a.dtype, np.floating) else it)(a, b)

    return f


def _shift(left: bool) -> Any:
    def f(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
        a, b = x.eval(e.a, act), x.eval(e.b, act)
        b = b.astype(a.dtype)
        return (np.left_shift(a, b) if left else np.right_shift(a, b)).astype(a.dtype)

    return f


def _cast(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
    v = x.eval(e.value, act)
    dt = np_dtype(str(e.ty.dtype))
    if dt == np.bool_:
        return v != 0
    if np.issubdtype(dt, np.integer) and np.issubdtype(v.dtype, np.floating):
        info = np.iinfo(dt)
        w = np.trunc(np.nan_to_num(v.astype(np.float64), nan=0.0))
        return np.clip(w, info.min, info.max).astype(dt)
    return v.astype(dt)


def _ramp(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
    base, stride = x.eval(e.base, act), x.eval(e.stride, act)
    k = np.arange(int(e.lanes), dtype=base.dtype)
    return base[:, None] + stride[:, None] * k[None, :]


def _broadcast(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
    v = x.eval(e.value, act)
    return np.repeat(v[:, None], int(e.lanes), axis=1)


def _shuffle(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
    parts = []
    for v in e.vectors:
        a = x.eval(v, act)
        parts.append(a if a.ndim == 2 else a[:, None])
    whole = np.concatenate(parts, axis=1)
    picked = whole[:, [int(i.value) for i in e.indices]]
    return picked[:, 0] if picked.shape[1] == 1 else picked


def _select(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
    return np.where(x.eval(e.condition, act), x.eval(e.true_value, act), x.eval(e.false_value, act))


def _let(x: Exprs, e: Any, act: np.ndarray) -> np.ndarray:
    x.m.assign(e.var, x.eval(e.value, act), act)
    return x.eval(e.body, act)


def _build_table() -> dict[type, Any]:
    from tvm import tirx

    return {
        tirx.Add: _arith(np.add), tirx.Sub: _arith(np.subtract), tirx.Mul: _arith(np.multiply),
        tirx.Div: _div("trunc"), tirx.Mod: _div("truncmod"), tirx.FloorDiv: _div("floor"),
        tirx.FloorMod: _div("floormod"),
        tirx.Min: _minmax(np.fmin, np.minimum), tirx.Max: _minmax(np.fmax, np.maximum),
        tirx.EQ: _arith(np.equal), tirx.NE: _arith(np.not_equal), tirx.LT: _arith(np.less),
        tirx.LE: _arith(np.less_equal), tirx.GT: _arith(np.greater), tirx.GE: _arith(np.greater_equal),
        tirx.And: _arith(np.logical_and), tirx.Or: _arith(np.logical_or),
        tirx.Not: lambda x, e, act: np.logical_not(x.eval(e.a, act)),
        tirx.BitwiseAnd: _arith(np.bitwise_and), tirx.BitwiseOr: _arith(np.bitwise_or),
        tirx.BitwiseXor: _arith(np.bitwise_xor),
        tirx.BitwiseNot: lambda x, e, act: np.invert(x.eval(e.a, act)),
        tirx.LShift: _shift(True), tirx.RShift: _shift(False),
        tirx.Cast: _cast, tirx.Ramp: _ramp, tirx.Broadcast: _broadcast, tirx.Shuffle: _shuffle,
        tirx.Select: _select, tirx.Let: _let,
    }
