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
