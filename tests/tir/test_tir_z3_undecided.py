"""Where Z3 answers unknown, two more tries before the access is unknown
(passcheck/tir/analysis/undecided.py): the shape vars at their boundary points, then the question
bit-blasted to SAT. Each kernel here makes the default solver give up (nonlinear products of
int64 shape vars); the retries find the violation it hides, confirmed concretely, and unknown
stays unknown (never a violation) where they find nothing."""

from __future__ import annotations

from tvm.script import tirx as T

from passcheck.tir.analysis import check_bounds
from passcheck.tir.analysis.undecided import boundary_points, boundary_values


@T.prim_func
def narrowed_product(a: T.handle, b: T.handle):
    """A flattened index narrowed to int32: out of bounds once n * m passes 2^31."""
    n = T.int64()
    m = T.int64()
    A = T.match_buffer(a, (n * m,), "float32")
    B = T.match_buffer(b, (n, m), "float32")
    for i, j in T.grid(n, m):
        B[i, j] = A[T.Cast("int64", T.Cast("int32", i * m + j))]


@T.prim_func
def product_safe(a: T.handle, b: T.handle):
    n = T.int64()
    m = T.int64()
    A = T.match_buffer(a, (n * m,), "float32")
    B = T.match_buffer(b, (n, m), "float32")
    for i, j in T.grid(n, m):
        B[i, j] = A[i * m + j]


@T.prim_func
def factorization(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(1),), "float32")):
    for i, j in T.grid(T.int64(1048576), T.int64(1048576)):
        if i * j == T.int64(1000001) and i > T.int64(1) and j > T.int64(1):
            B[0] = A[i * j - T.int64(1000000) + T.int64(15)]


def test_boundary_values_surround_the_dtype_limits() -> None:
    values = boundary_values(0, 2**63 - 1)
    for k in (8, 16, 31, 32):
        assert {2**k - 1, 2**k, 2**k + 1} <= set(values)
    assert values[0] == 0 and values[-1] == 2**63 - 1
    assert boundary_values(3, 10) == [3, 4, 9, 10]
    points = list(boundary_points([("n", 0, 300), ("m", 1, 2)]))
    assert points[0] == [("n", 0), ("m", 1)] and [("n", 256), ("m", 2)] in points
    assert [("n", 300), ("m", 1)] in points  # one var alone at a value, the others at 1


def test_a_narrowed_index_z3_gives_up_on_is_found_at_the_boundary() -> None:
    # A 1 ms budget: Z3 gives up on every run (with the default budget it sometimes decides the
    # query itself, and then there is nothing to retry)
    before = check_bounds(narrowed_product, timeout_ms=1, retry=False)
    assert not before.violations and before.unknown and "Z3 gave up" in before.unknown[0][1]
    res = check_bounds(narrowed_product, timeout_ms=1)
    assert res.violations and not res.unknown and res.decided == res.retried == 1
    w = res.violations[0]
    point = dict(w.point)
    assert point["n"] * point["m"] >= 2**31  # past int32's range, where the cast wraps
    assert w.index_value < 0 and w.index_value == (point["i"] * point["m"] + point["j"] + 2**31) % 2**32 - 2**31


def test_bit_blasting_decides_what_z3_gave_up_on() -> None:
    """No boundary point reaches i * j == 1000001 (there are no shape vars); bit-blasting does."""
    res = check_bounds(factorization, timeout_ms=1)
    assert res.violations and res.decided == 1
    p = dict(res.violations[0].point)
    assert p["i"] * p["j"] == 1000001 and res.violations[0].index_value == 16


def test_still_undecided_is_unknown_never_a_violation() -> None:
    res = check_bounds(product_safe, timeout_ms=1)
    assert not res.violations and res.retried == 1
    # (whether bit-blasting proves it within its budget depends on the machine: proved, or unknown)
    assert bool(res.unknown) != bool(res.decided)
    assert all("nor did boundary points or bit-blasting decide" in why for _, why in res.unknown)
