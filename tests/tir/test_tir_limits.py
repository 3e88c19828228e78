"""Shape var limits from buffers whose extent is linear in one var (``n + 3``): the buffer must
be addressable, so the extent cannot wrap. Without it, the GPU campaign (bind --target cuda,
500 examples, seed 2026) reported a block running instance -2**31 of [0, n + 3) after a bound
split, at n = 2**31 - 2, where the original function's own extent n + 3 already wraps: a false
alarm."""

from __future__ import annotations

from tvm.script import tirx as T

from passcheck.tir.analysis import check_domains
from passcheck.tir.analysis.limits import shape_var_limits


@T.prim_func(s_tir=True)
def padded(x: T.handle, p: T.handle):
    n = T.int32()
    X = T.match_buffer(x, (n,), "float32")
    post = T.match_buffer(p, (n + 3,), "float32")
    for i0 in range(n + 3):
        with T.sblock("post"):
            v_i0 = T.axis.spatial(n + 3, i0)
            post[v_i0] = T.if_then_else(v_i0 < n, X[v_i0], T.float32(0.0))


@T.prim_func(s_tir=True)
def padded_bound(x: T.handle, p: T.handle):
    n = T.int32()
    X = T.match_buffer(x, (n,), "float32")
    post = T.match_buffer(p, (n + 3,), "float32")
    for i0_0 in T.thread_binding(n // 2 + 2, thread="blockIdx.x"):
        for i0_1 in T.thread_binding(2, thread="threadIdx.x"):
            with T.sblock("post"):
                v_i0 = T.axis.spatial(n + 3, i0_0 * 2 + i0_1)
                T.where(i0_0 * 2 + i0_1 < n + 3)
                post[v_i0] = T.if_then_else(v_i0 < n, X[v_i0], T.float32(0.0))


@T.prim_func(s_tir=True)
def padded_bound_unguarded(x: T.handle, p: T.handle):
    n = T.int32()
    X = T.match_buffer(x, (n,), "float32")
    post = T.match_buffer(p, (n + 3,), "float32")
    for i0_0 in T.thread_binding(n // 2 + 2, thread="blockIdx.x"):
        for i0_1 in T.thread_binding(2, thread="threadIdx.x"):
            with T.sblock("post"):
                v_i0 = T.axis.spatial(n + 3, i0_0 * 2 + i0_1)
                post[v_i0] = T.if_then_else(v_i0 < n, X[v_i0], T.float32(0.0))


@T.prim_func(s_tir=True)
def scaled(x: T.handle):
    n = T.int32()
    X = T.match_buffer(x, (2 * n - 1, 4), "float32")
    for i in range(2 * n - 1):
        X[i, 0] = T.float32(0)


def test_a_linear_extent_bounds_its_var() -> None:
    assert list(shape_var_limits(padded).values()) == [(0, 2**31 - 4)]
    # (2n - 1) * 4 elements <= 2**31 - 1
    assert list(shape_var_limits(scaled).values()) == [(0, ((2**31 - 1) // 4 + 1) // 2)]


def test_the_bound_split_of_the_campaign_holds() -> None:
    assert check_domains(padded, padded_bound).ok


def test_an_unguarded_bound_split_is_still_caught() -> None:
    res = check_domains(padded, padded_bound_unguarded)
    assert not res.ok and "outside" in {i.kind for i in res.issues}
