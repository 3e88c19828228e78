"""Obscure conditions: scalars-to-be that are zero on the example's inputs (MT-DLCOMP's UOC and
PIOC). Each is declared once and written against ``calc`` (IR or float64 reference)."""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.relax.mutate.relations import Condition, Operand, register_condition


def _relu_of_negated_square(calc: Any, ops: list[Operand]) -> Any:
    # -(a - b)^2 <= 0 for any finite a, b, so its relu is exactly 0: no rounding can move it
    d = calc.sub(ops[0].value, ops[1].value)
    return calc.relu(calc.neg(calc.mul(d, d)))


def _sin_plus_log(calc: Any, ops: list[Operand]) -> Any:
    # d = a - a is exactly 0 (one value read twice); sin(0) + log(1 + 0^2) = 0 for a correct
    # libm, within a few units of roundoff for any faithful one (the bound says how many)
    d = calc.sub(ops[0].value, ops[0].value)
    return calc.add(calc.sin(d), calc.log(calc.add(calc.const(np.ones(())), calc.mul(d, d))))


def _minus_recorded(calc: Any, ops: list[Operand]) -> Any:
    # zero on the recorded input only, and only up to how differently v is computed now: the
    # drift the paper warns about, bounded by v's own rounding bound
    (v,) = ops
    assert v.recorded is not None, "a per-input condition needs the value recorded on the input"
    return calc.sub(v.value, calc.const(v.recorded))


register_condition(Condition(
    "uoc-relu", 2, _relu_of_negated_square, "relu(-(a - b)^2): zero for every input (universal)"))
register_condition(Condition(
    "uoc-sinlog", 1, _sin_plus_log, "sin(a - a) + log(1 + (a - a)^2): zero for every input (universal)"))
register_condition(Condition(
    "pioc", 1, _minus_recorded, "v - v(x0), v's value recorded on the example's input x0 (per-input)",
    universal=False, static=True))
