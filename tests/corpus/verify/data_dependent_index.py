"""An index read from a float buffer: neither proved nor refuted (unknown)."""

from tvm.script import tirx as T


@T.prim_func
def mod(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[T.Cast("int32", C[i])]
