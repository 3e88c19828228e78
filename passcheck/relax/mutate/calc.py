"""The arithmetic a metamorphic relation inserts, on two backends: ``IRCalc`` emits it as Relax
bindings, ``RefCalc`` computes it in float64 with its rounding-error bound (``Approx``).

Each relation is written once, against this small interface, so the IR a mutant gets and the
reference it is checked against cannot disagree. ``RefCalc`` takes its error model from the op
vocabulary's own references where the op is in it (add, multiply, tanh, mean, matmul, conv2d,
...), so a mutant's bound is derived the same way as every generated graph's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.core.rounding import UNIT_ROUNDOFF, Approx, underflow
from passcheck.relax.ops.base import op_registry

# glibc's sinf/logf (what LLVM's sin/log intrinsics call on CPU) are within 1 ulp of the exact
# value: 1 ulp <= 2 u |f(x)|. tests/test_mutate.py measures TVM's kernels against this model.
_LIBM_ULPS = 2.0


class IRCalc:
    """Emits each operation as a binding of ``bb`` (inside the function's dataflow block)."""

    def __init__(self, bb: Any, dtype: str, storage: str | None = None) -> None:
        from tvm.relax import op as R

        self.bb, self.dtype, self.R = bb, dtype, R
        # constants are rounded to ``storage`` first: a float64 twin of a float32 model holds
        # the same weights as the model
        self.storage = storage or dtype

    def _emit(self, expr: Any) -> Any:
        return self.bb.emit(expr)

    def const(self, array: np.ndarray) -> Any:
        from tvm import relax

        return relax.const(np.asarray(array).astype(self.storage).astype(self.dtype), self.dtype)

    def add(self, a: Any, b: Any) -> Any:
        return self._emit(self.R.add(a, b))

    def sub(self, a: Any, b: Any) -> Any:
        return self._emit(self.R.subtract(a, b))

    def mul(self, a: Any, b: Any) -> Any:
        return self._emit(self.R.multiply(a, b))

    def neg(self, a: Any) -> Any:
        return self._emit(self.R.negative(a))

    def relu(self, a: Any) -> Any:
        return self._emit(self.R.nn.relu(a))

    def tanh(self, a: Any) -> Any:
        return self._emit(self.R.tanh(a))

    def sin(self, a: Any) -> Any:
        return self._emit(self.R.sin(a))

    def log(self, a: Any) -> Any:
        return self._emit(self.R.log(a))

    def mean(self, a: Any) -> Any:
        return self._emit(self.R.mean(a, axis=None, keepdims=False))

    def reshape(self, a: Any, shape: tuple[int, ...]) -> Any:
        return self._emit(self.R.reshape(a, list(shape)))

    def matmul(self, a: Any, b: Any) -> Any:
        return self._emit(self.R.matmul(a, b))

    def conv2d(self, a: Any, w: Any) -> Any:
        return self._emit(self.R.nn.conv2d(a, w))


class RefCalc:
    """The same operations in float64, each with the bound on what a correct implementation in
    ``dtype`` may make of it."""

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype
        self.u = UNIT_ROUNDOFF[dtype]
        self.ops = op_registry()

    def _op(self, name: str, args: list[Approx], attrs: dict[str, Any] | None = None) -> Approx:
        return self.ops[name].reference(args, attrs or {}, self.u)

    def const(self, array: np.ndarray) -> Approx:
        # the constant as the IR holds it: rounded to the dtype, then exact
        return Approx.exact(np.asarray(array).astype(self.dtype).astype(np.float64))

    def add(self, a: Approx, b: Approx) -> Approx:
        return self._op("add", [a, b])

    def sub(self, a: Approx, b: Approx) -> Approx:
        return self._op("subtract", [a, b])

    def mul(self, a: Approx, b: Approx) -> Approx:
        return self._op("multiply", [a, b])

    def neg(self, a: Approx) -> Approx:
        return Approx(-a.v, a.e.copy())  # exact: a sign flip

    def relu(self, a: Approx) -> Approx:
        return self._op("relu", [a])

    def tanh(self, a: Approx) -> Approx:
        return self._op("tanh", [a])

    def sin(self, a: Approx) -> Approx:
        v = np.sin(a.v)
        # |sin'| <= 1 carries the input's error; the kernel adds its own rounding
        return Approx(v, a.e + _LIBM_ULPS * self.u * np.abs(v) + underflow(self.u))

    def log(self, a: Approx) -> Approx:
        # only ever taken of 1 + d*d >= 1, so x - e stays away from zero
        low = np.maximum(a.v - a.e, np.finfo(np.float64).tiny)
        v = np.log(a.v)
        return Approx(v, a.e / low + _LIBM_ULPS * self.u * np.abs(v) + underflow(self.u))

    def mean(self, a: Approx) -> Approx:
        return self._op("mean", [a], {"axis": None, "keepdims": False})

    def reshape(self, a: Approx, shape: tuple[int, ...]) -> Approx:
        return Approx(a.v.reshape(shape), a.e.reshape(shape))

    def matmul(self, a: Approx, b: Approx) -> Approx:
        return self._op("matmul", [a, b])

    def conv2d(self, a: Approx, w: Approx) -> Approx:
        return self._op("conv2d", [a, w], {"strides": (1, 1), "padding": (0, 0, 0, 0), "dilation": (1, 1),
                                           "groups": 1})
