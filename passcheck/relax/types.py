"""Type oracles for Relax: structural signature comparison, symbolic shapes proved with Z3.

Two shape expressions over symbolic dims are equal when Z3 proves them equal for every
non-negative assignment; otherwise the model Z3 finds is the assignment that separates them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3


@dataclass
class TypeMismatch:
    where: str
    before: str
    after: str
    separating: dict[str, int] | None = None

    def describe(self) -> str:
        s = f"{self.where}: {self.before} became {self.after}"
        if self.separating:
            s += " (they differ at " + ", ".join(f"{k}={v}" for k, v in sorted(self.separating.items())) + ")"
        return s


def _to_z3(e: Any, env: dict[str, Any]) -> Any:
    from tvm import tirx

    if isinstance(e, int):
        return z3.IntVal(e)
    if isinstance(e, tirx.IntImm):
        return z3.IntVal(int(e.value))
    if isinstance(e, tirx.Var) or type(e).__name__ == "Var":
        name = e.name
        if name not in env:
            env[name] = z3.Int(name)
        return env[name]
    bin_ops = {
        "Add": lambda a, b: a + b,
        "Sub": lambda a, b: a - b,
        "Mul": lambda a, b: a * b,
        "FloorDiv": lambda a, b: _floordiv(a, b),
        "FloorMod": lambda a, b: a - b * _floordiv(a, b),
        "Min": lambda a, b: z3.If(a <= b, a, b),
        "Max": lambda a, b: z3.If(a >= b, a, b),
    }
    kind = type(e).__name__
    if kind in bin_ops:
        return bin_ops[kind](_to_z3(e.a, env), _to_z3(e.b, env))
    if kind == "Cast":
        return _to_z3(e.value, env)
    raise NotImplementedError(f"shape expression {e} ({kind})")


_CALLS = {"ceil": "ceil", "floor": "floor", "round": "rint", "nearbyint": "rint", "trunc": "trunc"}


def constant_value(e: Any) -> Any:
    """The value of a shape expression without variables, computed in its own dtypes (NumPy), or
    None where it has a variable or a node this does not know. Relax types an arange's length
    from float bounds as ``ceil(cast(float32, f16(2) - f16(1)))``, which a pass may fold to 1:
    neither Z3 (integers only) nor structural equality can say the two are equal."""
    import numpy as np
    from tvm import tirx

    kind = type(e).__name__
    if isinstance(e, tirx.IntImm | tirx.FloatImm):
        try:
            return np.array(e.value, dtype=str(e.ty))[()]
        except TypeError:  # (bfloat16: no NumPy dtype)
            return None
    if kind == "Cast":
        v = constant_value(e.value)
        try:
            return None if v is None else np.array(v).astype(str(e.ty))[()]
        except TypeError:
            return None
    if kind in ("Add", "Sub", "Mul", "Div", "FloorDiv", "FloorMod", "Min", "Max"):
        a, b = constant_value(e.a), constant_value(e.b)
        if a is None or b is None or (kind in ("Div", "FloorDiv", "FloorMod") and b == 0):
            return None
        with np.errstate(all="ignore"):
            if kind == "Div" and np.issubdtype(np.asarray(a).dtype, np.integer):
                return np.asarray(np.trunc(a / b)).astype(np.asarray(a).dtype)[()]
            return {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
                    "FloorDiv": np.floor_divide, "FloorMod": np.mod, "Min": np.minimum, "Max": np.maximum}[kind](a, b)
    if kind == "Call" and len(e.args) == 1:
        fn = _CALLS.get(str(e.op.name).rsplit(".", 1)[-1])
        v = constant_value(e.args[0])
        return None if fn is None or v is None else getattr(np, fn)(v)
    return None


def _floordiv(a: Any, b: Any) -> Any:
    # Z3's integer division is Euclidean; floor division differs for negative divisors.
    return z3.If(b > 0, a / b, -((-a) / b))


def dims_equal(a: Any, b: Any) -> tuple[bool, dict[str, int] | None]:
    """(True, None) if a == b for every assignment of the free dims; else (False, witness)."""
    from tvm import tirx

    if isinstance(a, tirx.IntImm) and isinstance(b, tirx.IntImm):
        return int(a.value) == int(b.value), None  # the common case needs no solver
    import tvm_ffi

    if tvm_ffi.structural_equal(a, b):
        return True, None
    env: dict[str, Any] = {}
    try:
        za, zb = _to_z3(a, env), _to_z3(b, env)
    except NotImplementedError:
        import tvm_ffi

        va, vb = constant_value(a), constant_value(b)
        if va is not None and vb is not None:
            return bool(va == vb), None
        return bool(tvm_ffi.structural_equal(a, b)), None
    s = z3.Solver()
    s.set("timeout", 2000)
    for v in env.values():
        s.add(v >= 0)
    s.add(za != zb)
    r = s.check()
    if r == z3.unsat:
        return True, None
    if r == z3.sat:
        m = s.model()
        return False, {k: m.eval(v, model_completion=True).as_long() for k, v in env.items()}
    import tvm_ffi

    return bool(tvm_ffi.structural_equal(a, b)), None


def compare_types(before: Any, after: Any, where: str) -> TypeMismatch | None:
    """Compare two Relax types (TensorType, TupleType, ...) with symbolic shapes proved."""
    from tvm import relax

    tb, ta = type(before).__name__, type(after).__name__
    if tb != ta:
        return TypeMismatch(where, str(before), str(after))
    if isinstance(before, relax.TensorType):
        if str(before.dtype) != str(after.dtype) or before.ndim != after.ndim:
            return TypeMismatch(where, str(before), str(after))
        if before.shape is None or after.shape is None:
            if (before.shape is None) != (after.shape is None):
                return TypeMismatch(where, str(before), str(after))
            return None
        sb, sa = list(before.shape.values), list(after.shape.values)
        if len(sb) != len(sa):
            return TypeMismatch(where, str(before), str(after))
        for i, (x, y) in enumerate(zip(sb, sa)):
            eq, wit = dims_equal(x, y)
            if not eq:
                return TypeMismatch(f"{where} dim {i}", str(before), str(after), wit)
        return None
    fields_b = getattr(before, "fields", None)
    if fields_b is not None:
        fields_a = after.fields
        if len(fields_b) != len(fields_a):
            return TypeMismatch(where, str(before), str(after))
        for i, (x, y) in enumerate(zip(fields_b, fields_a)):
            m = compare_types(x, y, f"{where}[{i}]")
            if m:
                return m
        return None
    import tvm_ffi

    if not tvm_ffi.structural_equal(before, after, map_free_vars=True):
        return TypeMismatch(where, str(before), str(after))
    return None


def compare_signatures(before_fn: Any, after_fn: Any) -> TypeMismatch | None:
    if len(before_fn.params) != len(after_fn.params):
        return TypeMismatch("parameters", str(len(before_fn.params)), str(len(after_fn.params)))
    for i, (pb, pa) in enumerate(zip(before_fn.params, after_fn.params)):
        m = compare_types(pb.ty, pa.ty, f"parameter {i} ({pb.name})")
        if m:
            return m
    m = compare_types(before_fn.ret_ty, after_fn.ret_ty, "return type")
    if m is not None and _refines(before_fn, after_fn):
        # A coarse declared return type (R.Tensor(ndim=2)) made precise (R.Tensor((2, 4))):
        # callers still get what was promised; TVM's own passes (CanonicalizeBindings) do it.
        return None
    return m


def _refines(before_fn: Any, after_fn: Any) -> bool:
    """The output's return type is a special case of the input's (its parameters unchanged)."""
    try:
        return bool(before_fn.ret_ty.is_base_of(after_fn.ret_ty))
    except Exception:  # noqa: BLE001 - not decidable: not a refinement
        return False
