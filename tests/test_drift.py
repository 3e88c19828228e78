"""Drift or logic error (relax/drift.py): two computations of one function, each against its
own reference (value and rounding bound)."""

from __future__ import annotations

import numpy as np

from passcheck.core.rounding import Approx
from passcheck.relax.drift import DRIFT, EQUAL, LOGIC, classify
from passcheck.relax.tolerance import allowed


def _ref(v: list[float], e: float) -> Approx:
    a = np.array(v, dtype=np.float64)
    return Approx(a, np.full(a.shape, e))


def test_equal_numbers_are_equal_whatever_the_sign_of_zero() -> None:
    a = np.array([0.0, 1.5], np.float32)
    b = np.array([-0.0, 1.5], np.float32)
    assert classify([a], [b], [_ref([0, 1.5], 0)], [_ref([0, 1.5], 0)]).kind == EQUAL


def test_apart_within_both_bounds_is_drift_with_error_and_bound() -> None:
    ref = _ref([1.0, 2.0], 1e-6)
    a = np.array([1.0, 2.0], np.float32)
    b = np.array([1.0000001, 2.0], np.float32)
    d = classify([a], [b], [ref], [ref], ("x", "y"))
    assert d.kind == DRIFT
    assert d.error > 0 and d.bound == float(2 * allowed(ref, "float32")[0])
    assert "within the rounding bound" in d.message and "output 0[0]" in d.message


def test_one_side_beyond_its_bound_is_a_logic_error_naming_it() -> None:
    ref = _ref([1.0, 2.0], 1e-7)
    a = np.array([1.0, 2.0], np.float32)
    b = np.array([1.0, 2.5], np.float32)
    d = classify([a], [b], [ref], [ref], ("pass(m)", "pass(T(m))"))
    assert d.kind == LOGIC and d.message.startswith("pass(T(m)) is wrong")


def test_structural_differences_are_logic_errors() -> None:
    ref = _ref([1.0], 1.0)
    one = np.array([1.0], np.float32)
    assert classify([one], [one, one], [ref], [ref, ref]).kind == LOGIC
    assert classify([one], [one.reshape(1, 1)], [ref], [ref]).kind == LOGIC
    assert classify([one], [one.astype(np.float16)], [ref], [ref]).kind == LOGIC


def test_integers_allow_no_rounding() -> None:
    ref = _ref([1.0, 2.0], 10.0)
    d = classify([np.array([1, 2], np.int64)], [np.array([1, 3], np.int64)], [ref], [ref])
    assert d.kind == LOGIC and "no rounding allowed" in d.message


def test_a_difference_where_the_reference_is_not_finite_is_a_logic_error() -> None:
    ref = _ref([np.inf, 2.0], 1e-6)
    a = np.array([np.inf, 2.0], np.float32)
    b = np.array([np.nan, 2.0], np.float32)
    assert classify([a], [b], [ref], [ref]).kind == LOGIC
