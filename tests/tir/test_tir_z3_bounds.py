"""Unit tests of the Z3 bounds checker: exact machine-integer modelling, guards, bindings,
symbolic extents, confirmed witnesses, and unknown (never a violation) when Z3 gives up.

Each kernel here is plain (block-free) TIR, so the checker reads it as written. Every test
that expects a violation also checks the witness: the loop point and the evaluated index.
"""

from __future__ import annotations

import pytest
from oob_corpus import CASES, split, sym_guarded
from oob_corpus import bind_oob as bind_out_of_bounds
from oob_corpus import floordiv_oob as floordiv_negative
from oob_corpus import if_then_else_safe as guarded_expr
from oob_corpus import int8_wrap_oob as int8_wrap_negative
from oob_corpus import int8_wrap_safe as int8_wrap_in_bounds
from oob_corpus import int32_mul_wraps_safe as int32_product_wraps
from oob_corpus import int64_mul_oob as int64_product_does_not_wrap
from oob_corpus import select_oob as select_is_no_guard
from oob_corpus import sym_fused_safe as sym_fused
from oob_corpus import sym_oob as sym_shifted
from oob_corpus import truncmod_oob as truncmod_negative
from tvm.script import tirx as T

from passcheck.tir.analysis import check_bounds


def _only_violation(func):  # noqa: ANN001, ANN202
    res = check_bounds(func)
    assert not res.unknown, res.unknown
    assert len(res.violations) >= 1, "expected an out-of-bounds access"
    return res.violations[0]


def _safe(func) -> None:  # noqa: ANN001
    res = check_bounds(func)
    assert res.safe, ([v.describe() for v in res.violations], res.unknown)


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
    w = _only_violation(unguarded)
    assert w.site.buffer == "A" and w.site.kind == "load"
    assert dict(w.point) == {"i": 15}
    assert (w.index_value, w.extent_value) == (16, 16)
    assert "i=15" in w.describe() and "16" in w.describe()


@pytest.mark.parametrize("func", [guarded, guarded_else, guarded_expr], ids=["if", "if-else", "if_then_else"])
def test_guards_are_honoured(func) -> None:  # noqa: ANN001
    _safe(func)


def test_select_evaluates_both_operands() -> None:
    # T.Select is not lazy: the generated code loads A[16] at i == 15 even though it is discarded.
    w = _only_violation(select_is_no_guard)
    assert dict(w.point) == {"i": 15} and w.index_value == 16


# --- machine integers --------------------------------------------------------------------------


def test_narrowing_cast_wraps_and_stays_in_bounds() -> None:
    _safe(int8_wrap_in_bounds)  # unbounded integers would claim i + 8 reaches 23


def test_narrowing_cast_wraps_negative() -> None:
    w = _only_violation(int8_wrap_negative)
    i = dict(w.point)["i"]
    assert i >= 8 and w.index_value == ((i * 16 + 128) % 256 - 128) // 16 < 0


def test_int32_multiplication_wraps() -> None:
    _safe(int32_product_wraps)


def test_int64_multiplication_does_not_wrap() -> None:
    w = _only_violation(int64_product_does_not_wrap)
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
    w = _only_violation(floordiv_negative)
    assert dict(w.point)["i"] in (0, 1, 2) and w.index_value == -1


def test_truncdiv_rounds_to_zero_on_negatives() -> None:
    _safe(truncdiv_negative)


def test_floormod_is_never_negative() -> None:
    _safe(floormod_negative)


def test_truncmod_takes_the_dividend_sign() -> None:
    w = _only_violation(truncmod_negative)
    i = dict(w.point)["i"]
    assert i in (0, 1, 2) and w.index_value == i - 3


@T.prim_func
def clamped(A: T.Buffer((16,), "float32"), B: T.Buffer((20,), "float32")):
    for i in range(20):
        B[i] = A[T.min(T.max(i - 2, 0), 15)]


def test_min_max_clamp() -> None:
    _safe(clamped)


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
    _safe(bind_in_bounds)


def test_bind_out_of_bounds_reports_the_bound_value() -> None:
    w = _only_violation(bind_out_of_bounds)
    assert dict(w.point) == {"i": 0, "j": 16} and w.index_value == 16


def test_let_expression() -> None:
    w = _only_violation(let_expr)
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


def _lowered(func):  # noqa: ANN001, ANN202
    from passcheck.tir.lowering import lower_to_loops

    return lower_to_loops(func)["main"]


def test_symbolic_extent_in_bounds() -> None:
    _safe(_lowered(sym_ok))
    _safe(_lowered(sym_guarded))
    _safe(_lowered(sym_fused))


def test_symbolic_extent_witness_names_the_shape_var() -> None:
    w = _only_violation(_lowered(sym_shifted))
    point = dict(w.point)
    assert point["n"] >= 1 and point["i"] == point["n"] - 1
    assert w.index_value == w.extent_value == point["n"]


def test_symbolic_split_without_guard() -> None:
    w = _only_violation(_lowered(sym_split_tail))
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
    quick = check_bounds(factorization, timeout_ms=1)
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


# --- index tables (what cache_index makes) -------------------------------------------------------


@T.prim_func
def table_in_bounds(X: T.Buffer((3, 16), "float32"), Y: T.Buffer((4, 12), "float32")):
    row = T.alloc_buffer((4, 12), "int32")
    col = T.alloc_buffer((4, 12), "int32")
    for a, b in T.grid(4, 12):
        row[a, b] = (a * 12 + b) // 16
    for b, a in T.grid(12, 4):  # a nest in another order still covers the table
        col[a, b] = (a * 12 + b) % 16
    for i, j in T.grid(4, 12):
        Y[i, j] = X[row[i, j], col[i, j]]


@T.prim_func
def table_unit_dim_and_widened_index(X: T.Buffer((T.int64(3), T.int64(3)), "float32"),
                                     Y: T.Buffer((T.int64(3),), "float32")):
    # cache_index on int64 kernels: an int32 loop widened to index the table, a unit dim at 0.
    t = T.alloc_buffer((T.int64(1), T.int64(3)), "int64")
    for a in range(3):
        t[T.int64(0), T.Cast("int64", a)] = T.Cast("int64", 2 - a)
    for i in range(T.int64(3)):
        Y[i] = X[t[T.int64(0), i], i]


@T.prim_func
def table_out_of_bounds(X: T.Buffer((3, 16), "float32"), Y: T.Buffer((4, 12), "float32")):
    row = T.alloc_buffer((4, 12), "int32")
    for a, b in T.grid(4, 12):
        row[a, b] = (a * 12 + b + 1) // 16
    for i, j in T.grid(4, 12):
        Y[i, j] = X[row[i, j], j]


@T.prim_func
def table_read_before_written(X: T.Buffer((3, 16), "float32"), Y: T.Buffer((4, 12), "float32")):
    row = T.alloc_buffer((4, 12), "int32")
    for i, j in T.grid(4, 12):
        Y[i, j] = X[row[i, j], j]
    for a, b in T.grid(4, 12):
        row[a, b] = (a * 12 + b) // 16


@T.prim_func
def table_written_twice(X: T.Buffer((3, 16), "float32"), Y: T.Buffer((4, 12), "float32")):
    row = T.alloc_buffer((4, 12), "int32")
    for a, b in T.grid(4, 12):
        row[a, b] = (a * 12 + b) // 16
    row[0, 0] = 7
    for i, j in T.grid(4, 12):
        Y[i, j] = X[row[i, j], j]


@T.prim_func
def table_partly_written(X: T.Buffer((3, 16), "float32"), Y: T.Buffer((4, 12), "float32")):
    row = T.alloc_buffer((4, 12), "int32")
    for a, b in T.grid(4, 11):
        row[a, b] = (a * 12 + b) // 16
    for i, j in T.grid(4, 12):
        Y[i, j] = X[row[i, j], j]


def test_loads_from_a_fully_written_table_are_its_expression() -> None:
    _safe(table_in_bounds)


def test_a_table_with_a_unit_dim_and_a_widened_loop_index() -> None:
    _safe(table_unit_dim_and_widened_index)


def test_a_table_value_out_of_range_has_a_confirmed_witness() -> None:
    w = _only_violation(table_out_of_bounds)
    assert w.site.buffer == "X" and w.dim == 0
    assert dict(w.point) == {"i": 3, "j": 11} and w.index_value == 3


@pytest.mark.parametrize("func", [table_read_before_written, table_written_twice, table_partly_written],
                         ids=["read-first", "written-twice", "partly-written"])
def test_a_table_that_is_not_plainly_written_first_stays_data(func) -> None:  # noqa: ANN001
    res = check_bounds(func)
    assert not res.violations
    assert [s.buffer for s, _ in res.unknown] == ["X"]


# --- the labelled corpus the OOB benchmark compares TVM's checkers on ----------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_passcheck_is_right_on_the_labelled_oob_corpus(case) -> None:  # noqa: ANN001
    from passcheck.tir.lowering import has_blocks, lower_to_loops

    func = lower_to_loops(case.func)["main"] if has_blocks(case.func) else case.func
    res = check_bounds(func)
    assert not res.unknown, res.unknown
    assert bool(res.violations) == case.oob, [v.describe() for v in res.violations]


# --- the range of a shape var: from 0 (unless asserted), up to an addressable buffer ------------


@T.prim_func
def last_element(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (1,), "float32")
    B[0] = A[n - 1]


@T.prim_func
def last_element_asserted(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (1,), "float32")
    assert n >= 1, "empty input"
    B[0] = A[n - 1]


@T.prim_func
def last_element_assumed(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (1,), "float32")
    T.evaluate(T.assume(0 < n))
    B[0] = A[n - 1]


@T.prim_func
def last_element_asserted_too_late(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (2,), "float32")
    B[0] = A[n - 1]
    assert n >= 1, "empty input"
    B[1] = A[n - 1]


@T.prim_func
def last_element_in_loop(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[n - 1]


def test_a_shape_var_may_be_zero() -> None:
    """Correct for every n >= 1, out of bounds for the empty input."""
    w = _only_violation(last_element)
    assert dict(w.point) == {"n": 0} and (w.index_value, w.extent_value) == (-1, 0)
    _safe(last_element_in_loop)  # the loop does not run at n = 0


@pytest.mark.parametrize("func", [last_element_asserted, last_element_assumed], ids=["assert", "T.assume"])
def test_what_the_function_asserts_first_bounds_its_shape_vars(func) -> None:  # noqa: ANN001
    _safe(func)
    _safe(_lowered(func))


def test_an_assertion_covers_only_what_comes_after_it() -> None:
    res = check_bounds(last_element_asserted_too_late)
    assert [(dict(v.point), v.site.kind) for v in res.violations] == [({"n": 0}, "load")]


def test_asserted_bounds_reach_the_interval_pass() -> None:
    from passcheck.tir.analysis.limits import shape_var_limits

    assert list(shape_var_limits(last_element).values()) == [(0, 2**31 - 1)]
    assert list(shape_var_limits(last_element_asserted).values()) == [(1, 2**31 - 1)]
    assert list(shape_var_limits(last_element_assumed).values()) == [(1, 2**31 - 1)]
    assert list(shape_var_limits(last_element_asserted_too_late).values()) == [(0, 2**31 - 1)]


@T.prim_func
def int64_narrowed_index(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[T.Cast("int64", T.Cast("int32", i))]


@T.prim_func
def int64_beyond_2_to_the_31(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        if i >= T.int64(2**31):
            B[i] = A[i - T.int64(2**31)] + A[i]


def test_an_int64_buffer_may_hold_more_than_2_to_the_31_elements() -> None:
    """Narrowing an int64 index to int32 is wrong only past 2**31 elements: the witness is
    there, and replayed. Indexing that far, with int64 arithmetic, is proved safe."""
    w = _only_violation(int64_narrowed_index)
    p = dict(w.point)
    assert p["i"] >= 2**31 and p["n"] > p["i"] and w.index_value == (p["i"] + 2**31) % 2**32 - 2**31 < 0
    _safe(int64_beyond_2_to_the_31)


def test_an_addressable_buffer_bounds_the_shape_vars() -> None:
    from passcheck.tir.analysis.limits import ADDRESS_BYTES, shape_var_limits

    # float32, int64 dims: 2**48 bytes of address space hold 2**46 elements.
    assert list(shape_var_limits(int64_narrowed_index).values()) == [(0, ADDRESS_BYTES // 4)]
