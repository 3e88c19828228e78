"""Tensor intrinsics for ``tensorize`` on a plain CPU: dot products written in plain TIR.

No intrinsic TVM ships applies to float32 on plain LLVM, so passcheck registers its own: the
description is ``C[0, 0] += A[0, k] * B[k, 0]`` over ``k < K`` (the inner reduction of a matmul
``out[i, j] += X[i, k] * Y[k, j]``), the implementation the same sum as an unrolled loop. The
implementation is ordinary code, so a tensorized kernel compiles and runs anywhere and must
compute bit for bit what the original did: what tensorize itself gets wrong (the matched
regions, strides and offsets of the buffers it binds) shows up in the output.
"""

from __future__ import annotations

MAX_DOT = 16  # longest dot product drawn
_registered: set[str] = set()


def dot_name(k: int, index_dtype: str) -> str:
    return f"passcheck_dot{k}_{'i64' if index_dtype == 'int64' else 'i32'}"


def ensure_dot(k: int, index_dtype: str) -> str:
    """Register (once per process) the ``k``-long dot product for ``index_dtype`` indices."""
    name = dot_name(k, index_dtype)
    if name in _registered:
        return name
    from tvm import s_tir, tirx
    from tvm.script import tirx as T

    one = tirx.IntImm(index_dtype, 1)
    kk = tirx.IntImm(index_dtype, k)
    zero = tirx.IntImm(index_dtype, 0)

    @T.prim_func(s_tir=True)
    def desc(a: T.handle, b: T.handle, c: T.handle) -> None:
        sa = T.int32()
        sb = T.int32()
        sc = T.int32()
        A = T.match_buffer(a, (one, kk), "float32", offset_factor=1, strides=[sa, 1])
        B = T.match_buffer(b, (kk, one), "float32", offset_factor=1, strides=[sb, 1])
        C = T.match_buffer(c, (one, one), "float32", offset_factor=1, strides=[sc, 1])
        with T.sblock("root"):
            T.reads(C[zero, zero], A[zero, zero:kk], B[zero:kk, zero])
            T.writes(C[zero, zero])
            for r in range(kk):
                with T.sblock("update"):
                    vk = T.axis.remap("R", [r])
                    C[zero, zero] = C[zero, zero] + A[zero, vk] * B[vk, zero]

    @T.prim_func(s_tir=True)
    def impl(a: T.handle, b: T.handle, c: T.handle) -> None:
        sa = T.int32()
        sb = T.int32()
        sc = T.int32()
        A = T.match_buffer(a, (one, kk), "float32", offset_factor=1, strides=[sa, 1])
        B = T.match_buffer(b, (kk, one), "float32", offset_factor=1, strides=[sb, 1])
        C = T.match_buffer(c, (one, one), "float32", offset_factor=1, strides=[sc, 1])
        with T.sblock("root"):
            T.reads(C[zero, zero], A[zero, zero:kk], B[zero:kk, zero])
            T.writes(C[zero, zero])
            for r in T.unroll(kk):
                C[zero, zero] = C[zero, zero] + A[zero, r] * B[r, zero]

    try:
        s_tir.TensorIntrin.register(name, desc, impl)
    except Exception:  # noqa: BLE001 - registered before by another import of this module
        s_tir.TensorIntrin.get(name)
    _registered.add(name)
    return name

