"""Block form whose index adds int32 constants that overflow and wrap back to vi: TVM's
simplifier refuses to fold them; the index is in bounds as the machine computes it."""

from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def mod(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi + 2147483647 + 2147483647 + 2]
