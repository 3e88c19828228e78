"""Garbage subgraphs a zero gates: real computation (a conv2d, a matmul, ...) over values of the
graph, which the compiler must keep, fuse and schedule although it contributes nothing.

Operands go through ``tanh`` first, so garbage is finite whatever it reads (Inf * 0 would be
NaN, not 0): a conv2d over [-1, 1] with [-1, 1] weights stays within kh * kw, a matmul within
its contraction length, far inside float16's range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.relax.mutate.relations import Garbage, Operand, register_garbage


def _weights(calc: Any, rng: np.random.Generator, shape: tuple[int, ...]) -> Any:
    return calc.const(rng.uniform(-1.0, 1.0, size=shape))


def _as_matrix(shape: tuple[int, ...]) -> tuple[int, int]:
    cols = shape[-1] if shape else 1
    rows = int(np.prod(shape, dtype=np.int64)) // max(cols, 1) if shape else 1
    return max(rows, 1), max(cols, 1)


def _binary(fn: str) -> Any:
    def make(calc: Any, ops: list[Operand], rng: np.random.Generator) -> Any:
        return getattr(calc, fn)(calc.tanh(ops[0].value), calc.tanh(ops[1].value))

    return make


def _matmul(calc: Any, ops: list[Operand], rng: np.random.Generator) -> Any:
    (a,) = ops
    assert a.shape is not None
    rows, cols = _as_matrix(a.shape)
    x = calc.reshape(calc.tanh(a.value), (rows, cols))
    return calc.matmul(x, _weights(calc, rng, (cols, 3)))


def _conv2d(calc: Any, ops: list[Operand], rng: np.random.Generator) -> Any:
    (a,) = ops
    assert a.shape is not None
    rows, cols = _as_matrix(a.shape)
    x = calc.reshape(calc.tanh(a.value), (1, 1, rows, cols))
    return calc.conv2d(x, _weights(calc, rng, (2, 1, min(3, rows), min(3, cols))))


register_garbage(Garbage("none", 0, lambda calc, ops, rng: None, "no garbage: y + Z"))
register_garbage(Garbage("add", 2, _binary("add"), "tanh(a) + tanh(b)"))
register_garbage(Garbage("multiply", 2, _binary("mul"), "tanh(a) * tanh(b)"))
register_garbage(Garbage("matmul", 1, _matmul, "tanh(a) as a matrix, times a 3-column weight", static=True))
register_garbage(Garbage("conv2d", 1, _conv2d, "tanh(a) as a 1-channel image, 3x3 (or smaller) conv2d to 2 channels",
                         static=True))
