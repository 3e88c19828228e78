"""A vectorized copy whose load is shifted by one: lane 3 of the last iteration reads A[16]."""

from tvm.script import tirx as T


@T.prim_func
def mod(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4 + 1, 1, 4)] + T.Broadcast(T.float32(1), 4)
