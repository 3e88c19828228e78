"""A labelled corpus of out-of-bounds cases: small kernels whose truth is known by
construction ("OOB": some execution reads or writes outside a buffer; "safe": none does).

Shared by tests/tir/test_tir_z3_bounds.py (passcheck must be right on every case) and
benchmarks/oob_comparison.py (which cases TVM's own checkers catch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tvm import s_tir
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def block_oob(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi + 1]


@T.prim_func(s_tir=True)
def vec_add(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i in range(10):
        with T.sblock("B"):
            vi = T.axis.spatial(10, i)
            B[vi] = A[vi] + T.float32(1)


def split(disable_predication: bool) -> Any:
    sch = s_tir.Schedule(vec_add)
    sch.split(sch.get_loops(sch.get_sblock("B"))[0], [None, 4], disable_predication=disable_predication)
    return sch.mod["main"]


@T.prim_func
def guarded_compound(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for io, ii in T.grid(4, 5):
        if io * 5 + ii < 15:
            B[io * 5 + ii] = A[io * 5 + ii + 1]


@T.prim_func
def int8_wrap_safe(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        # i * 16 wraps in int8: i = 8 gives -128, so the index stays within [0, 16).
        B[i] = A[T.Cast("int32", T.Cast("int8", i * 16)) // 16 + 8]


@T.prim_func
def int8_wrap_oob(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[T.Cast("int32", T.Cast("int8", i * 16)) // 16]


@T.prim_func
def int32_mul_wraps_safe(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        # 65536 * 65536 = 2**32 wraps to 0 in int32: the index is i.
        B[i] = A[i * 65536 * 65536 + i]


@T.prim_func
def int64_mul_oob(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(16),), "float32")):
    for i in range(T.int64(4)):
        B[i] = A[i * T.int64(65536) * T.int64(65536) + i]


@T.prim_func
def floordiv_oob(A: T.Buffer((4,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[(i - 3) // 4]


@T.prim_func
def truncmod_oob(A: T.Buffer((4,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[T.truncmod(i - 3, 4)]


@T.prim_func
def select_oob(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = T.Select(i < 15, A[i + 1], T.float32(0))


@T.prim_func
def if_then_else_safe(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = T.if_then_else(i < 15, A[i + 1], T.float32(0))


@T.prim_func
def bind_oob(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        j = T.Bind(16 - i)
        if j >= 4:
            B[i] = A[j]


@T.prim_func
def sym_oob(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i + 1]


@T.prim_func
def sym_guarded(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        if i + 1 < n:
            B[i] = A[i + 1]


@T.prim_func
def sym_fused_safe(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, T.int64(48)), "float32")
    B = T.match_buffer(b, (n, T.int64(48)), "float32")
    for f in range(n * T.int64(48)):
        B[f // T.int64(48), f % T.int64(48)] = A[f // T.int64(48), f % T.int64(48)]


def tvm_bug_cache_read() -> Any:
    """TVM 0.27 bug passcheck found: cache_read after compute_at drops the producer predicate."""
    from passcheck.tir.kernels import PrimFuncSpec, build_primfunc

    spec = PrimFuncSpec("conv2d", (1, 3, 6, 10), (("out_channels", 3), ("kernel", (2, 3)), ("stride", (1, 3)),
                                                  ("dilation", (2, 2)), ("padding", (2, 0))), "int64", prologue=True)
    sch = s_tir.Schedule(build_primfunc(spec))
    sch.compute_at(sch.get_sblock("pre"), sch.get_loops("pad")[2], preserve_unit_loops=True)
    sch.cache_read(sch.get_sblock("pad"), 0, "global")
    return sch.mod["main"]


def split_wraps_int32() -> Any:
    """A real split of a symbolic int32 extent: near n = 2**31 the tail index wraps (and so
    does its guard); exact machine integers are needed to see it."""
    from passcheck.tir.kernels import PrimFuncSpec, build_primfunc

    sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("pad", (1,), (("pads", ((0, 1),)),), "int32", symbolic=True)))
    sch.split(sch.get_loops("pad")[0], [None, 3], preserve_unit_iters=False)
    return sch.mod["main"]


@dataclass(frozen=True)
class Case:
    name: str
    func: Any
    oob: bool


CASES = [
    Case("block-level OOB write/read (A[vi + 1])", block_oob, True),
    Case("split, disable_predication=True", split(True), True),
    Case("split with its tail guard", split(False), False),
    Case("compound guard io*5+ii < 15", guarded_compound, False),
    Case("int8 cast wraps, stays in bounds", int8_wrap_safe, False),
    Case("int8 cast wraps to a negative index", int8_wrap_oob, True),
    Case("int32 multiply wraps to i", int32_mul_wraps_safe, False),
    Case("int64 multiply does not wrap", int64_mul_oob, True),
    Case("floordiv of a negative", floordiv_oob, True),
    Case("truncmod of a negative", truncmod_oob, True),
    Case("Select loads both operands", select_oob, True),
    Case("if_then_else guard", if_then_else_safe, False),
    Case("Bind j = 16 - i", bind_oob, True),
    Case("symbolic A[i + 1], i < n", sym_oob, True),
    Case("symbolic guarded i + 1 < n", sym_guarded, False),
    Case("symbolic fused loop f < 48n", sym_fused_safe, False),
    Case("TVM bug: cache_read after compute_at", tvm_bug_cache_read(), True),
    Case("TVM bug: symbolic int32 split tail wraps", split_wraps_int32(), True),
]
