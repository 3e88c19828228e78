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


Fn = Any  # a compiled expression: (active threads) -> values


class Exprs:
    """Evaluates expressions for the active threads ``act`` of ``machine`` (its ``env``: one
    full-length array per variable; ``load``: memory; ``warp``: shuffles). Each expression is
    compiled once into a closure over NumPy (reading a TVM node's fields is an FFI call: too
    slow to repeat for every statement a loop runs)."""

    def __init__(self, machine: Any) -> None:
        self.m = machine
        self.cache: dict[int, Fn] = {}

    def eval(self, e: Any, act: np.ndarray) -> np.ndarray:
        return self.fn(e)(act)

    def fn(self, e: Any) -> Fn:
        k = key(e)
        f = self.cache.get(k)
        if f is None:
            try:
                f = self._compile(e)
            except Unsupported as u:  # only if it is ever evaluated
                f = _raising(u)
            self.cache[k] = f
        return f

    def _compile(self, e: Any) -> Fn:
        import tvm
        from tvm import tirx

        t = type(e)
        if t is tirx.IntImm or t is tirx.FloatImm:
            v, dt = e.value, np_dtype(str(e.ty.dtype))
            return lambda act: np.full(len(act), v, dtype=dt)
        if t is tvm.ir.Var or t is tirx.Var:
            k, name, m = key(e), str(e.name), self.m

            def var(act: np.ndarray) -> np.ndarray:
                v = m.env.get(k)
                if v is None:
                    raise Unsupported(f"unbound variable {name}")
                return v[act]

            return var
        if t is tvm.ir.TensorLoad:
            idx, m = [self.fn(i) for i in e.indices], self.m
            ref = m.buffer(e.source, str(e.ty.dtype))
            return lambda act: m.load(ref, [f(act) for f in idx], act)
        if t is tvm.ir.Call:
            return self._call(e)
        make = _table().get(t)
        if make is None:
            raise Unsupported(f"expression {t.__name__}")
        return make(self, e)

    # -------------------------------------------------------------------------------------
    def _call(self, e: Any) -> Fn:
        name = str(getattr(e.op, "name", ""))
        args = list(e.args)
        out_dt = np_dtype(str(e.ty.dtype))
        lanes = lanes_of(str(e.ty.dtype))
        if name == "prim.if_then_else":
            fc, fa, fb = (self.fn(a) for a in args)

            def if_then_else(act: np.ndarray) -> np.ndarray:
                c = fc(act).astype(bool)
                out = np.empty((len(act), *((lanes,) if lanes > 1 else ())), dtype=out_dt)
                if c.any():
                    out[c] = fa(act[c])
                if (~c).any():
                    out[~c] = fb(act[~c])
                return out

            return if_then_else
        if name in ("prim.likely", "tirx.likely"):
            return self.fn(args[0])
        if name == "tirx.reinterpret":
            f = self.fn(args[0])
            return lambda act: f(act).view(out_dt)
        if name.startswith("tirx.cuda.__") and "shfl" in name or name.endswith("activemask"):
            fs, m = [self.fn(a) for a in args], self.m
            return lambda act: m.warp(name, [f(act) for f in fs], act)
        if name in ("tirx.call_pure_extern", "tirx.call_extern"):
            fname, rest = str(args[0].value), args[1:]
        else:
            fname, rest = name, args
        fs = [self.fn(a) for a in rest]
        op = _math(_math_name(fname), len(fs), out_dt)
        if op is None:
            raise Unsupported(f"call {fname}")
        return lambda act: op(*[f(act) for f in fs])


def _raising(error: Exception) -> Fn:
    def raises(act: np.ndarray) -> np.ndarray:
        raise error

    return raises


def _math(base: str, arity: int, out_dt: Any) -> Any:
    """The NumPy form of a math call (None: not modelled)."""
    if base in ("isnan", "isinf", "isfinite") and arity == 1:
        return getattr(np, base)
    if base == "erf" and arity == 1:
        return lambda x: _erf(x).astype(out_dt)
    if base == "sigmoid" and arity == 1:
        return lambda x: (1 / (1 + np.exp(-x.astype(np.float64)))).astype(out_dt)
    if base in _MATH and _MATH[base] is not None and arity == 1:
        f1 = _MATH[base]
        return lambda x: np.asarray(f1(x)).astype(out_dt)
    if base in _BINARY_MATH and arity == 2:
        f2 = _BINARY_MATH[base]
        return lambda x, y: np.asarray(f2(x, y)).astype(out_dt)
    return None


_TABLE: dict[type, Any] = {}


def _table() -> dict[type, Any]:
    if not _TABLE:
        _TABLE.update(_build_table())
    return _TABLE


def _ab(x: Exprs, e: Any) -> tuple[Fn, Fn, Any]:
    return x.fn(e.a), x.fn(e.b), np_dtype(str(e.ty.dtype))


def _arith(op: Any) -> Any:
    def make(x: Exprs, e: Any) -> Fn:
        fa, fb, dt = _ab(x, e)
        return lambda act: op(fa(act), fb(act)).astype(dt, copy=False)

    return make


def _safe(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    zero = b == 0
    return np.where(zero, np.ones_like(b), b), zero


def _divide(kind: str, a: np.ndarray, b: np.ndarray, dt: Any) -> np.ndarray:
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


def _div(kind: str) -> Any:
    def make(x: Exprs, e: Any) -> Fn:
        fa, fb, dt = _ab(x, e)
        return lambda act: _divide(kind, fa(act), fb(act), dt)

    return make


def _minmax(fl: Any, it: Any) -> Any:
    def make(x: Exprs, e: Any) -> Fn:
        fa, fb, dt = _ab(x, e)
        op = fl if np.issubdtype(dt, np.floating) else it
        return lambda act: op(fa(act), fb(act))

    return make


def _shift(left: bool) -> Any:
    def make(x: Exprs, e: Any) -> Fn:
        fa, fb, _ = _ab(x, e)
        op = np.left_shift if left else np.right_shift

        def shift(act: np.ndarray) -> np.ndarray:
            a = fa(act)
            return op(a, fb(act).astype(a.dtype)).astype(a.dtype)

        return shift

    return make


def _convert(v: np.ndarray, dt: Any) -> np.ndarray:
    if dt == np.bool_:
        return v != 0
    if np.issubdtype(dt, np.integer) and np.issubdtype(v.dtype, np.floating):
        info = np.iinfo(dt)
        w = np.trunc(np.nan_to_num(v.astype(np.float64), nan=0.0))
        return np.clip(w, info.min, info.max).astype(dt)
    return v.astype(dt)


def _cast(x: Exprs, e: Any) -> Fn:
    f, dt = x.fn(e.value), np_dtype(str(e.ty.dtype))
    return lambda act: _convert(f(act), dt)


def _ramp(x: Exprs, e: Any) -> Fn:
    fb, fs, n = x.fn(e.base), x.fn(e.stride), int(e.lanes)

    def ramp(act: np.ndarray) -> np.ndarray:
        base, stride = fb(act), fs(act)
        return base[:, None] + stride[:, None] * np.arange(n, dtype=base.dtype)[None, :]

    return ramp


def _broadcast(x: Exprs, e: Any) -> Fn:
    f, n = x.fn(e.value), int(e.lanes)
    return lambda act: np.repeat(f(act)[:, None], n, axis=1)


def _shuffle(x: Exprs, e: Any) -> Fn:
    fs, idx = [x.fn(v) for v in e.vectors], [int(i.value) for i in e.indices]

    def shuffle(act: np.ndarray) -> np.ndarray:
        parts = [a if a.ndim == 2 else a[:, None] for a in (f(act) for f in fs)]
        picked = np.concatenate(parts, axis=1)[:, idx]
        return picked[:, 0] if picked.shape[1] == 1 else picked

    return shuffle


def _select(x: Exprs, e: Any) -> Fn:
    fc, ft, ff = x.fn(e.condition), x.fn(e.true_value), x.fn(e.false_value)
    return lambda act: np.where(fc(act), ft(act), ff(act))


def _let(x: Exprs, e: Any) -> Fn:
    var, fv, fb, m = e.var, x.fn(e.value), x.fn(e.body), x.m

    def let(act: np.ndarray) -> np.ndarray:
        m.assign(var, fv(act), act)
        return fb(act)

    return let


def _unary(op: Any) -> Any:
    def make(x: Exprs, e: Any) -> Fn:
        f = x.fn(e.a)
        return lambda act: op(f(act))

    return make


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
        tirx.Not: _unary(np.logical_not),
        tirx.BitwiseAnd: _arith(np.bitwise_and), tirx.BitwiseOr: _arith(np.bitwise_or),
        tirx.BitwiseXor: _arith(np.bitwise_xor), tirx.BitwiseNot: _unary(np.invert),
        tirx.LShift: _shift(True), tirx.RShift: _shift(False),
        tirx.Cast: _cast, tirx.Ramp: _ramp, tirx.Broadcast: _broadcast, tirx.Shuffle: _shuffle,
        tirx.Select: _select, tirx.Let: _let,
    }
