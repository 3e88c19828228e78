"""Block form whose index overflows int32 once: vi + 2**31 wraps to a negative index."""

from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def mod(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi + 2147483647 + 1]
