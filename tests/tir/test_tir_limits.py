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


# The intermediates of the unscheduled function bound the shape vars too. The schedule campaign
# for a GPU (schedule --target cuda:sm_90, 500 examples, seed 2026) reported a conv2d whose
# X (n, 1, 8, 9) allows n up to 29826161 while its own padded intermediate (n, 1, 8, 11) can be
# indexed only up to n = 24403223: the flattened kernel's index into it wrapped at n = 28201697,
# where the unscheduled function cannot run either. A false alarm.

@T.prim_func(s_tir=True)
def widened(x: T.handle, y: T.handle):
    n = T.int32()
    X = T.match_buffer(x, (n, 3), "float32")
    Y = T.match_buffer(y, (n, 3), "float32")
    P = T.sblock_alloc_buffer((n, 4))
    for i, j in T.grid(n, 4):
        with T.sblock("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = T.if_then_else(vj < 3, X[vi, vj], T.float32(0))
    for i, j in T.grid(n, 3):
        with T.sblock("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = P[vi, vj]


@T.prim_func
def widened_flat(x: T.handle, y: T.handle):
    # `widened` as a GPU build flattens it: P's size is a let-bound product (CSE), so only the
    # parameters bound n.
    n = T.int32()
    X = T.match_buffer(x, (n * 3,), "float32")
    Y = T.match_buffer(y, (n * 3,), "float32")
    size: T.let[T.int32] = n * 4
    P = T.decl_buffer((size,), "float32")
    for i, j in T.grid(n, 4):
        P[i * 4 + j] = T.if_then_else(j < 3, X[i * 3 + j], T.float32(0))
    for i, j in T.grid(n, 3):
        Y[i * 3 + j] = P[i * 4 + j]


def test_the_original_s_intermediates_bound_the_shape_vars() -> None:
    from passcheck.tir.analysis import declared_buffers

    assert [b.name for b in declared_buffers(widened)] == ["X", "Y", "P"]
    assert list(shape_var_limits(widened).values()) == [(0, (2**31 - 1) // 3)]
    assert list(shape_var_limits(widened, declared_buffers(widened)).values()) == [(0, (2**31 - 1) // 4)]


def test_a_flattened_intermediate_is_checked_where_the_original_runs() -> None:
    import tvm

    from passcheck.tir.analysis import check_bounds

    wrapped = check_bounds(widened_flat)  # n up to (2**31 - 1) // 3: P's index wraps
    assert wrapped.violations and "P[i * 4 + j]" in wrapped.violations[0].describe()
    n = widened_flat.params[0].shape[0].a
    domain = [tvm.tirx.decl_buffer((n, 3), "float32", "X"), tvm.tirx.decl_buffer((n, 4), "float32", "P")]
    res = check_bounds(widened_flat, domain=domain)
    assert not res.violations and not res.unknown, res
