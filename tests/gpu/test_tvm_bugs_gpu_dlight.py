"""TVM 0.27 bugs of DLight, the default GPU schedules of TVM's CUDA pipeline, on tensors with a
dimension of size 0: the reduction rules fail on them instead of scheduling an empty kernel, so
`tvm.compile(..., target="cuda")` cannot build a Relax graph that reduces an empty tensor
(the same graph builds for llvm, and the same rules schedule the non-empty tensor). Found by
`passcheck FuseOps --target cuda:sm_90 --examples 60 --seed 2027` (relax_builds_for_gpu, 10 of
60 examples: an argmax, a sum over an input of shape (0, n, 5, 2)). Expected findings: they
fail once TVM fixes the bug."""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.gpu import GpuTarget
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _argmax(rows: int):  # noqa: ANN202
    from tvm import te, topi

    x = te.placeholder((rows, 4, 5, 2), "float32", name="X")
    return te.create_prim_func([x, topi.argmax(x, axis=2)])


def _row_sum(rows: int):  # noqa: ANN202
    from tvm import te

    x = te.placeholder((rows, 5), "float32", name="X")
    k = te.reduce_axis((0, 5), "k")
    return te.create_prim_func([x, te.compute((rows,), lambda i: te.sum(x[i, k], axis=k), name="Y")])


def _schedule(func: object, rule: str) -> None:
    import tvm
    from tvm.s_tir import dlight as dl

    with GpuTarget().tvm_target():
        dl.ApplyDefaultSchedule(getattr(dl.gpu, rule)())(tvm.IRModule({"main": func}))


def test_dlight_general_reduction_of_an_empty_tensor_fails_in_compute_at() -> None:
    from tvm.s_tir import ScheduleError

    _schedule(_argmax(3), "GeneralReduction")  # three rows: scheduled
    with pytest.raises(ScheduleError, match="All the statements in the scope are schedulable statements"):
        _schedule(_argmax(0), "GeneralReduction")  # no row


def test_dlight_reduction_of_an_empty_tensor_fails_an_internal_check() -> None:
    import tvm

    _schedule(_row_sum(3), "Reduction")
    with pytest.raises(tvm.error.InternalError, match=r"info\.dom\.IsNothing\(\)"):
        _schedule(_row_sum(0), "Reduction")


ARGMAX = GraphSpec(
    inputs=(TensorDecl(name="p1", shape=(0, "n", 5, 2), dtype="float32", const=False, lo=-1.0, hi=1.0,
                       style="uniform", seed=12581),),
    nodes=(Node(op="argmax", args=(0,), attrs=(("axis", 2), ("keepdims", False)), shape=(0, "n", 2), dtype="int64"),),
    outputs=(1,), sym_sizes=(("n", 5),), input_seed=0, tensor_inputs=False)


def test_the_cuda_pipeline_cannot_build_an_argmax_of_an_empty_tensor() -> None:
    msg = assert_recognised("FuseOps@cuda:sm_90", "relax_builds_for_gpu", ARGMAX,
                            "test_dlight_general_reduction_of_an_empty_tensor_fails_in_compute_at")
    assert "ScheduleError" in msg


def test_dlight_fallback_inlines_an_epilogue_into_a_unit_reduction_twice() -> None:
    """A reduction over an axis of extent 1 whose result an epilogue adds to another value
    (``join = red + side``): DLight's Fallback normalizes the block (the unit reduction loop
    goes, the init stays) and inlines the epilogue into it, into the init *and* the update, so
    ``side`` is added twice. Found by `passcheck dlight --target cuda:sm_90` (seed 0: 8 of 500
    examples), as wrong values of the kernel emulated as launched; over an axis of extent 3 the
    same kernel is right."""
    from tvm import s_tir
    from tvm.s_tir.dlight.analysis import normalize_prim_func
    from tvm.s_tir.dlight.base import try_inline

    from passcheck.tir.gpu.dlight import DlightExample
    from passcheck.tir.kernels import PrimFuncSpec, build_primfunc

    spec = PrimFuncSpec("reduce_beside", (4, 1), (("op", "sum"),))
    sch = s_tir.Schedule(build_primfunc(spec))
    try_inline(sch, normalize_prim_func(sch))
    script = sch.mod["main"].script()
    side = "Y[v0] * T.float32(2.0) + T.float32(-0.5)"
    assert f"join[v0] = T.Add(T.float32(0.0), {side})" in script  # the init: 0 + side ...
    assert f"join[v0] = join[v0] + X[v0, 0] + ({side})" in script  # ... and the update adds side again
    msg = assert_recognised("dlight@cuda:sm_90", "gpu_emulated_matches_cpu", DlightExample(spec),
                            "test_dlight_fallback_inlines_an_epilogue_into_a_unit_reduction_twice", ir="tir")
    assert "computes different values" in msg
    # any epilogue: a 1x1 matmul followed by max(x, 0) - 0.25 (the second run of 500, 2 examples)
    mm = PrimFuncSpec("matmul", (1, 1), (("n", 1),), symbolic=True, epilogue=True, seed=2, epilogue_op="relu_shift")
    msg = assert_recognised("dlight@cuda:sm_90", "gpu_emulated_matches_cpu", DlightExample(mm, ("Matmul", "Fallback")),
                            "test_dlight_fallback_inlines_an_epilogue_into_a_unit_reduction_twice", ir="tir")
    assert "computes different values" in msg


ZERO_INSIDE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(11, 0, 7, 2), dtype="float32", const=False, style="wide", seed=16933),
            TensorDecl(name="p2", shape=(), dtype="float32", const=False, style="narrow", seed=722)),
    nodes=(Node(op="add", args=(1, 0), attrs=(), shape=(11, 0, 7, 2), dtype="float32"),),
    outputs=(2,), input_seed=65535, tensor_inputs=True)


def test_fuse_of_loops_one_of_extent_zero_divides_by_zero() -> None:
    """``sch.fuse`` of loops (4, 0): the fused loop's index is split back by the inner extents, 0,
    and the simplifier's check fails; a leading 0, (0, 4), fuses. DLight's Fallback fuses every
    spatial loop of an elementwise kernel, so the CUDA pipeline cannot build ``p2 + p0`` of an
    input of shape (11, 0, 7, 2). Found by `passcheck FuseOps --target cuda:sm_90` (seed 0, 2 of
    500 examples)."""
    import tvm
    from tvm import s_tir, te

    def fuse(shape: tuple[int, ...]) -> None:
        x = te.placeholder(shape, "float32", name="X")
        sch = s_tir.Schedule(te.create_prim_func([x, te.compute(shape, lambda i, j: x[i, j] + 1.0, name="Y")]))
        sch.fuse(*sch.get_loops(sch.get_sblock("Y")))

    fuse((0, 4))
    with pytest.raises(tvm.error.InternalError, match="Divide by zero"):
        fuse((4, 0))
    msg = assert_recognised("FuseOps@cuda:sm_90", "relax_builds_for_gpu", ZERO_INSIDE,
                            "test_fuse_of_loops_one_of_extent_zero_divides_by_zero")
    assert "Divide by zero" in msg
