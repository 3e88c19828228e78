"""TVM 0.27 bug: ``bind`` lets a reduction loop of symbolic extent be bound to threadIdx; the
schedule is accepted and verify_well_formed passes, but the CUDA build's cross-thread allreduce
lowering needs a constant thread extent and fails an internal check, ``InternalError: Check
failed: (ptr) is false: Need constant extent for reduce set``, instead of bind refusing with a
ScheduleError (or the build raising a user error). The same reduction over a constant extent
builds. Found by ``passcheck bind --target cuda:sm_90 --examples 500`` (seed 2026,
builds_for_gpu), shrunk to one reduction block. Cross-compiled: no GPU needed."""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised


def _column_sum(symbolic: bool) -> object:
    from tvm import s_tir, te

    n = te.var("n") if symbolic else 8
    a = te.placeholder((n, 9), name="A")
    k = te.reduce_axis((0, n), "k")
    b = te.compute((9,), lambda i: te.sum(a[k, i], axis=k), name="B")
    sch = s_tir.Schedule(te.create_prim_func([a, b]))
    i, kk = sch.get_loops(sch.get_sblock("B"))
    sch.bind(kk, "threadIdx.x")  # accepted for both
    sch.bind(i, "blockIdx.x")
    assert s_tir.analysis.verify_well_formed(sch.mod, assert_mode=False)
    return sch.mod


def _build(mod: object) -> None:
    import tvm

    tvm.compile(mod, target=tvm.target.Target({"kind": "cuda", "arch": "sm_90"}, host="llvm"))


def test_a_symbolic_reduction_bound_to_threads_does_not_build() -> None:
    import tvm

    _build(_column_sum(symbolic=False))  # the control builds
    with pytest.raises(tvm.error.InternalError, match="Need constant extent for reduce set"):
        _build(_column_sum(symbolic=True))


def test_registered_as_a_known_bug() -> None:
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    spec = PrimFuncSpec("reduce", (9, 9), (("axes", (0,)), ("op", "sum")), "int32", symbolic=True, seed=0)
    example = ScheduleExample(spec, (Step("bind", "red", (1,), (("thread", "threadIdx.x"),)),
                                     Step("bind_rest", "", (), (("threads", 1),))))
    assert_recognised("bind@cuda:sm_90", "builds_for_gpu", example,
                      "test_bind_accepts_a_symbolic_reduction_it_cannot_build", ir="tir")
