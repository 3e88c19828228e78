"""Unit tests of the Z3 bounds checker, continued (test_tir_z3_bounds.py has machine integers,
guards, bindings, symbolic extents and unknowns): index tables read through (what cache_index
makes), the labelled out-of-bounds corpus, and the range of a shape var (from 0 unless the
function asserts more first, up to an addressable buffer).
"""

from __future__ import annotations

import pytest
from oob_corpus import CASES
from tvm.script import tirx as T
from z3_checks import lowered, only_violation, safe

from passcheck.tir.analysis import check_bounds

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
    safe(table_in_bounds)


def test_a_table_with_a_unit_dim_and_a_widened_loop_index() -> None:
    safe(table_unit_dim_and_widened_index)


def test_a_table_value_out_of_range_has_a_confirmed_witness() -> None:
    w = only_violation(table_out_of_bounds)
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
    w = only_violation(last_element)
    assert dict(w.point) == {"n": 0} and (w.index_value, w.extent_value) == (-1, 0)
    safe(last_element_in_loop)  # the loop does not run at n = 0


@pytest.mark.parametrize("func", [last_element_asserted, last_element_assumed], ids=["assert", "T.assume"])
def test_what_the_function_asserts_first_bounds_its_shape_vars(func) -> None:  # noqa: ANN001
    safe(func)
    safe(lowered(func))


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
    w = only_violation(int64_narrowed_index)
    p = dict(w.point)
    assert p["i"] >= 2**31 and p["n"] > p["i"] and w.index_value == (p["i"] + 2**31) % 2**32 - 2**31 < 0
    safe(int64_beyond_2_to_the_31)


def test_an_addressable_buffer_bounds_the_shape_vars() -> None:
    from passcheck.tir.analysis.limits import ADDRESS_BYTES, shape_var_limits

    # float32, int64 dims: 2**48 bytes of address space hold 2**46 elements.
    assert list(shape_var_limits(int64_narrowed_index).values()) == [(0, ADDRESS_BYTES // 4)]
