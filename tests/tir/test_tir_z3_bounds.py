"""Unit tests of the Z3 bounds checker: exact machine-integer modelling, guards, bindings,
symbolic extents, confirmed witnesses, and unknown (never a violation) when Z3 gives up.

Each kernel here is plain (block-free) TIR, so the checker reads it as written. Every test
that expects a violation also checks the witness: the loop point and the evaluated index.
"""

from __future__ import annotations

import pytest
from oob_corpus import bind_oob as bind_out_of_bounds
from oob_corpus import floordiv_oob as floordiv_negative
from oob_corpus import if_then_else_safe as guarded_expr
from oob_corpus import int8_wrap_oob as int8_wrap_negative
from oob_corpus import int8_wrap_safe as int8_wrap_in_bounds
from oob_corpus import int32_mul_wraps_safe as int32_product_wraps
from oob_corpus import int64_mul_oob as int64_product_does_not_wrap
from oob_corpus import select_oob as select_is_no_guard
from oob_corpus import split, sym_guarded
from oob_corpus import sym_fused_safe as sym_fused
from oob_corpus import sym_oob as sym_shifted
from oob_corpus import truncmod_oob as truncmod_negative
from tvm.script import tirx as T
from z3_checks import lowered, only_violation, safe

from passcheck.tir.analysis import check_bounds

# --- guards ------------------------------------------------------------------------------------


@T.prim_func
def unguarded(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[i + 1]


@T.prim_func
def guarded(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        if i < 15:
            B[i] = A[i + 1]


@T.prim_func
def guarded_else(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        if i >= 15:
            B[i] = T.float32(0)
        else:
            B[i] = A[i + 1]


def test_unguarded_access_has_a_confirmed_witness() -> None:
    w = only_violation(unguarded)
    assert w.site.buffer == "A" and w.site.kind == "load"
    assert dict(w.point) == {"i": 15}
    assert (w.index_value, w.extent_value) == (16, 16)
    assert "i=15" in w.describe() and "16" in w.describe()


@pytest.mark.parametrize("func", [guarded, guarded_else, guarded_expr], ids=["if", "if-else", "if_then_else"])
def test_guards_are_honoured(func) -> None:  # noqa: ANN001
    safe(func)


def test_select_evaluates_both_operands() -> None:
    # T.Select is not lazy: the generated code loads A[16] at i == 15 even though it is discarded.
    w = only_violation(select_is_no_guard)
    assert dict(w.point) == {"i": 15} and w.index_value == 16


# --- machine integers --------------------------------------------------------------------------


def test_narrowing_cast_wraps_and_stays_in_bounds() -> None:
    safe(int8_wrap_in_bounds)  # unbounded integers would claim i + 8 reaches 23


def test_narrowing_cast_wraps_negative() -> None:
    w = only_violation(int8_wrap_negative)
    i = dict(w.point)["i"]
    assert i >= 8 and w.index_value == ((i * 16 + 128) % 256 - 128) // 16 < 0


def test_int32_multiplication_wraps() -> None:
    safe(int32_product_wraps)


def test_int64_multiplication_does_not_wrap() -> None:
    w = only_violation(int64_product_does_not_wrap)
    i = dict(w.point)["i"]
    assert i >= 1 and w.index_value == i * 2**32 + i


@T.prim_func
def truncdiv_negative(A: T.Buffer((4,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[T.truncdiv(i - 3, 4)]


@T.prim_func
def floormod_negative(A: T.Buffer((4,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[(i - 3) % 4]


def test_floordiv_rounds_down_on_negatives() -> None:
    w = only_violation(floordiv_negative)
    assert dict(w.point)["i"] in (0, 1, 2) and w.index_value == -1


def test_truncdiv_rounds_to_zero_on_negatives() -> None:
    safe(truncdiv_negative)


def test_floormod_is_never_negative() -> None:
    safe(floormod_negative)


def test_truncmod_takes_the_dividend_sign() -> None:
    w = only_violation(truncmod_negative)
    i = dict(w.point)["i"]
    assert i in (0, 1, 2) and w.index_value == i - 3


@T.prim_func
def clamped(A: T.Buffer((16,), "float32"), B: T.Buffer((20,), "float32")):
    for i in range(20):
        B[i] = A[T.min(T.max(i - 2, 0), 15)]


def test_min_max_clamp() -> None:
    safe(clamped)


# --- bindings ----------------------------------------------------------------------------------


@T.prim_func
def bind_in_bounds(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        j = T.Bind(15 - i)
        B[i] = A[j]


@T.prim_func
def let_expr(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        x = T.int32()
        B[i] = A[T.Let(x + 1, where={x: i})]


def test_bind_in_bounds() -> None:
    safe(bind_in_bounds)


def test_bind_out_of_bounds_reports_the_bound_value() -> None:
    w = only_violation(bind_out_of_bounds)
    assert dict(w.point) == {"i": 0, "j": 16} and w.index_value == 16


def test_let_expression() -> None:
    w = only_violation(let_expr)
    assert dict(w.point)["i"] == 15 and w.index_value == 16


# --- symbolic extents --------------------------------------------------------------------------


@T.prim_func
def sym_ok(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i]


@T.prim_func
def sym_split_tail(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for io, ii in T.grid((n + 3) // 4, 4):
        B[io * 4 + ii] = A[io * 4 + ii]



def test_symbolic_extent_in_bounds() -> None:
    safe(lowered(sym_ok))
    safe(lowered(sym_guarded))
    safe(lowered(sym_fused))


def test_symbolic_extent_witness_names_the_shape_var() -> None:
    w = only_violation(lowered(sym_shifted))
    point = dict(w.point)
    assert point["n"] >= 1 and point["i"] == point["n"] - 1
    assert w.index_value == w.extent_value == point["n"]


def test_symbolic_split_without_guard() -> None:
    w = only_violation(lowered(sym_split_tail))
    point = dict(w.point)
    assert point["n"] % 4 != 0 and w.index_value >= point["n"]


# --- unknown is never a violation ----------------------------------------------------------------


@T.prim_func
def data_dependent(A: T.Buffer((16,), "float32"), Idx: T.Buffer((16,), "int32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[Idx[i]]


@T.prim_func
def factorization(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(1),), "float32")):
    for i, j in T.grid(T.int64(1048576), T.int64(1048576)):
        if i * j == T.int64(1000001) and i > T.int64(1) and j > T.int64(1):
            B[0] = A[i * j - T.int64(1000000) + T.int64(15)]


def test_data_dependent_index_is_unknown_not_a_violation() -> None:
    res = check_bounds(data_dependent)
    assert not res.violations
    assert res.unknown and res.unknown[0][0].buffer == "A"


def test_timeout_is_unknown_and_a_real_witness_is_found_given_time() -> None:
    quick = check_bounds(factorization, timeout_ms=1, retry=False)  # (the retries: test_tir_z3_undecided.py)
    assert not quick.violations and quick.unknown and "Z3" in quick.unknown[0][1]
    full = check_bounds(factorization, timeout_ms=60000)
    w = full.violations[0]
    p = dict(w.point)
    assert p["i"] * p["j"] == 1000001 and w.index_value == 16


# --- lowering of scheduled IR --------------------------------------------------------------------


@pytest.mark.parametrize("no_guard", [False, True])
def test_non_dividing_split(no_guard: bool) -> None:
    from passcheck.tir.lowering import lower_to_loops

    res = check_bounds(lower_to_loops(split(no_guard)))
    if not no_guard:
        assert res.safe
        return
    # Both the load of A and the store to B reach index 10 and 11.
    assert {v.site.buffer for v in res.violations} == {"A", "B"}
    for v in res.violations:
        p = dict(v.point)
        assert v.index_value == p["i_0"] * 4 + p["i_1"] >= 10
