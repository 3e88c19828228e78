"""A block-form matmul + relu with a tail-guarded split, as a Python file defining ``Before``."""

from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def Before(A: T.Buffer((10, 6), "float32"), B: T.Buffer((6, 7), "float32"), D: T.Buffer((10, 7), "float32")):
    C = T.sblock_alloc_buffer((10, 7))
    for i, j, k in T.grid(10, 7, 6):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(10, 7):
        with T.sblock("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(C[vi, vj], T.float32(0))
