"""TVM 0.27 bugs that ``passcheck schedule --target cuda:sm_90 --examples 500`` (seed 2026) found
in what the CUDA build makes of schedules TVM accepted, each kept as an expected finding: the
tests fail on purpose once TVM fixes the bug. All cross-compiled: no GPU needed (NVRTC from the
``passcheck[cuda]`` extra compiles the CUDA C here).

Also here: the memory-safety bugs kept for the CPU (tests/tir/test_tvm_bugs_memory_safety.py)
show up again in the GPU kernels of the same schedules and are recognised there.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

SUBJECT = "schedule@cuda:sm_90"


def _cuda(func: object) -> str:
    """The CUDA C TVM writes for ``func``."""
    import tvm

    lib = tvm.tirx.build(tvm.IRModule({"main": func}), target=tvm.target.Target({"kind": "cuda", "arch": "sm_90"},
                                                                               host="llvm"))
    return "\n".join(m.inspect_source() for m in lib.imports)


def _vectorized(lanes: int, same_index: bool) -> object:
    """One thread adds 1 to ``lanes`` floats in a vectorized loop; ``same_index`` stores every
    lane to S[0] (the index is a broadcast of 0), else lane i to B[i]."""
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((lanes,), "float32"), B: T.Buffer((lanes,), "float32"), S: T.Buffer((1,), "float32")):
        for _bx in T.thread_binding(1, thread="blockIdx.x"):
            for _tx in T.thread_binding(1, thread="threadIdx.x"):
                for v in T.vectorized(lanes):
                    with T.sblock("b"):
                        i = T.axis.spatial(lanes, v)
                        if same_index:
                            S[i * 0] = A[i]
                        else:
                            B[i] = A[i] + T.float32(1)

    return f


# --- an 8-lane broadcast written as make_(u)longlong4 with eight arguments --------------------


def test_cuda_codegen_writes_an_8_lane_broadcast_with_eight_arguments() -> None:
    """CUDA has no 8-lane vector of 32-bit values: TVM packs one in a (u)longlong4 (two lanes per
    64-bit field), but writes a broadcast into it as make_(u)longlong4 with one argument per
    lane. Both a float constant (A[i] + 1) and an index that is the same for every lane (an
    int32x8 broadcast of 0) do it: any 8-lane vectorize over 32-bit values with a constant."""
    from passcheck.tir.gpu.build import cubin_size

    for same_index in (False, True):  # the control: 4 lanes compile
        cubin_size(_cuda(_vectorized(4, same_index)), "sm_90")
    for same_index, made in ((False, "make_ulonglong4(0x1p+0f"), (True, "make_longlong4(0, 0, 0, 0, 0, 0, 0, 0)")):
        source = _cuda(_vectorized(8, same_index))
        assert made in source, source
        with pytest.raises(RuntimeError, match="too many arguments in function call"):
            cubin_size(source, "sm_90")


def test_the_8_lane_broadcast_is_registered() -> None:
    # A shared copy of `pre`'s 17 rows compacted to one element, written under a vectorized loop
    # of 8 rows: every lane stores to index 0.
    spec = PrimFuncSpec(kind="reshape", shape=(17, 1), attrs=(("out_shape", (17, 1, 1)),), index_dtype="int32",
                        prologue=True, epilogue=True, seed=118, epilogue_op="bias")
    example = ScheduleExample(spec, (
        Step("cache_write", "pre", (), (("buffer", 0), ("scope", "local"))),
        Step("cache_shared", "pre", (7,), (("buffer", 0), ("threads", 64), ("cooperative", False))),
        Step("bind_threads", "pre", (0,), (("threads", 8), ("axis", "x"))),
        Step("vectorize", "pre", (1,), ()),
        Step("bind_rest", "", (), (("threads", 7),))))
    assert_recognised(SUBJECT, "builds_for_gpu", example,
                      "test_cuda_codegen_writes_an_8_lane_broadcast_with_eight_arguments", ir="tir")


# --- no CUDA type for float vectors of 5, 12 or 16 lanes --------------------------------------


def test_cuda_codegen_has_no_type_for_a_float_vector_of_5_12_or_16_lanes() -> None:
    import tvm

    for lanes in (2, 4, 6, 8):  # the control: these have a type (8 then fails in NVRTC, above)
        _cuda(_vectorized(lanes, same_index=False))
    for lanes, message in ((5, "only support even lane for float type with lanes > 4"),
                           (12, "Cannot convert type T.float32x12 to CUDA type"),
                           (16, "Cannot convert type T.float32x16 to CUDA type")):
        with pytest.raises(tvm.error.InternalError, match=message):
            _cuda(_vectorized(lanes, same_index=False))


def test_the_missing_vector_type_is_registered() -> None:
    spec = PrimFuncSpec(kind="transpose", shape=(1, 12), attrs=(("perm", (0, 1)),), index_dtype="int32",
                        prologue=True, epilogue=True, seed=1101, epilogue_op="relu_shift")
    example = ScheduleExample(spec, (Step("vectorize", "pre", (1,), ()), Step("bind_rest", "", (), (("threads", 16),))))
    assert_recognised(SUBJECT, "builds_for_gpu", example,
                      "test_cuda_codegen_has_no_type_for_a_float_vector_of_5_12_or_16_lanes", ir="tir")


# --- pad_einsum's padded buffers wrap int32 ---------------------------------------------------


def test_pad_einsum_pads_an_int32_buffer_past_the_largest_size() -> None:
    """X is (n, 12), indexed with int32: legal up to n = 178956970 (2147483640 elements).
    pad_einsum pads the rows to a multiple of 4 in new int32-indexed buffers, 178956972 * 12 =
    2147483664 elements there: the GPU kernel's flattened size and index wrap (Z3 witness)."""
    import passcheck.properties.tir_gpu as G

    from passcheck.core.errors import Violation
    from passcheck.core.known import recognise_example
    from passcheck.core.subject import Options, resolve

    spec = PrimFuncSpec("elementwise", (5, 12), (("depth", 1),), "int32", symbolic=True)
    example = ScheduleExample(spec, (Step("pad_einsum", "ew0", (), (("padding", (4, 1)),)),
                                     Step("bind_rest", "", (), (("threads", 8),))))
    subject = resolve(SUBJECT, "tir")
    # Z3 given time enough that a loaded machine cannot turn the witness into an unknown
    case = subject.make_case(example, None, Options(extra=(("z3_timeout_ms", 30000),)))
    with pytest.raises(Violation) as e:
        G.gpu_bounds_safe_z3(case)
    assert "(shape [cse_v" in str(e.value) and "outside [0, -" in str(e.value), str(e.value)
    found = recognise_example(subject, "gpu_bounds_safe_z3", example, str(e.value), case.input_script(),
                              case.output_script())
    assert found is not None and found.name == "test_pad_einsum_pads_an_int32_buffer_past_the_largest_size", found


def test_pad_einsum_keeps_int32_indices_for_the_padded_buffer() -> None:
    from tvm import s_tir

    from passcheck.tir.kernels import build_primfunc

    sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("elementwise", (5, 12), (("depth", 1),), "int32", symbolic=True)))
    sch.pad_einsum(sch.get_sblock("ew0"), [4, 1])
    (x_pad,) = [b for b in sch.mod["main"].body.block.alloc_buffers if b.name == "X_pad"]
    assert str(x_pad.shape[0]) == "(n + 3) // 4 * 4" and x_pad.shape[0].ty.dtype == "int32"


# --- CPU memory-safety bugs, seen in the GPU kernels ------------------------------------------


def test_blockize_dropping_the_split_predicate_is_recognised_in_the_gpu_kernel() -> None:
    """tests/tir's test_blockize_drops_the_predicate_of_the_loop_it_wraps, reached through a
    bound split of a unit loop (cache_local): the GPU kernel's threads 1..3 read X past its row."""
    spec = PrimFuncSpec(kind="pool", shape=(1, 4, 5, 9), attrs=(("op", "avg"), ("kernel", (1, 1)), ("stride", (1, 2)),
                                                                 ("padding", (0, 0))),
                        index_dtype="int64", prologue=True, seed=494, epilogue_op="clip")
    example = ScheduleExample(spec, (Step("cache_local", "pre", (0,), (("threads", 4),)),
                                     Step("blockize", "pre", (2,), (("preserve_unit_iters", False),)),
                                     Step("bind_rest", "", (), (("threads", 4),))))
    assert_recognised(SUBJECT, "gpu_bounds_safe_z3", example, "test_blockize_drops_the_predicate_of_the_loop_it_wraps",
                      ir="tir")


# --- CPU bugs of wrong values and builds, seen in the GPU kernels -----------------------------


def test_a_non_injective_layout_is_recognised_in_the_emulated_gpu_kernel() -> None:
    """tests/tir's test_transform_layout_accepts_a_non_injective_index_map (i -> i // 3 on an
    intermediate): the kernel as launched, emulated, computes the same wrong values."""
    example = ScheduleExample(
        PrimFuncSpec("branch2", (3, 6, 8), (("left", 1), ("right", 2), ("join", "max")), "int64", epilogue=True,
                     seed=352),
        (Step("transform_layout", "join", (), (("kind", "write"), ("buffer", 0), ("map", ("collapse", 1, 3)),
                                               ("pad_value", "callable"), ("intermediate", True))),
         Step("bind_rest", "", (), (("threads", 2),))))
    assert "computes different values" in assert_recognised(
        SUBJECT, "gpu_emulated_matches_cpu", example, "test_transform_layout_accepts_a_non_injective_index_map",
        ir="tir")


def test_unroll_of_a_symbolic_loop_is_recognised_when_the_gpu_build_fails() -> None:
    """tests/tir's test_unroll_of_a_symbolic_loop_does_not_build: the CUDA build fails alike."""
    example = ScheduleExample(PrimFuncSpec("broadcast", (7,), (("bdims", (False,)),), symbolic=True),
                              (Step("unroll", "bcast", (2,)),))
    assert "Cannot unroll non-constant loop" in assert_recognised(
        SUBJECT, "builds_for_gpu", example, "test_unroll_of_a_symbolic_loop_does_not_build", ir="tir")


def test_a_shared_cache_of_a_symbolic_kernel_is_allocated_with_a_negative_size() -> None:
    """cache_read of X (n x 6) into shared memory at the blockIdx loop of a split by 2: each block
    needs 2 rows, 12 floats. Lowering allocates the compacted cache with size -6, and the CUDA
    codegen then fails 'bad optional access' (a non-positive allocation has no constant size).
    A static n, or a 1-D X, builds. Found by schedule --target cuda:sm_90 at 500 examples (seed 0)."""
    import tvm
    from tvm.tirx.build import split_host_device_mods

    from passcheck.core.subject import Options, resolve

    example = ScheduleExample(PrimFuncSpec("elementwise", (9, 6), (("depth", 1),), symbolic=True, seed=1),
                              (Step("cache_shared", "ew0", (0,), (("buffer", 0), ("threads", 2),
                                                                   ("cooperative", False))),
                               Step("bind_rest", "", (), (("threads", 32),))))
    assert "bad optional access" in assert_recognised(
        SUBJECT, "builds_for_gpu", example, "test_a_shared_cache_of_a_symbolic_kernel_is_allocated_with_a_negative_size",
        ir="tir")
    after = resolve(SUBJECT, "tir").make_case(example, None, Options()).after
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90"}, host="llvm")
    pipeline, _, finalize_device = tvm.tirx.get_default_tir_pipeline(target)
    _, device = split_host_device_mods(pipeline(tvm.tirx.transform.BindTarget(target)(after)))
    kernels = "\n".join(finalize_device()(m).script() for m in device.values())
    assert "T.alloc_shared((-6,))" in kernels


def test_a_lowering_failure_of_a_kept_bug_is_recognised_when_the_gpu_build_fails() -> None:
    """tests/tir's test_write_at_after_reverse_compute_at_and_cache_read_does_not_lower, reached
    through cache_local (cache_write + reverse_compute_at) then write_at: the GPU build runs the
    same lowering and fails alike (a bundle entry of the first GPU run, rebuilt today; the patterns
    read subjects as \\w+, which schedule@cuda:sm_90 is not)."""
    example = ScheduleExample(
        PrimFuncSpec("matmul", (2, 6), (("n", 11),), epilogue=True, seed=1417, epilogue_op="bias"),
        (Step("cache_local", "matmul", (1,), (("threads", 4),)),
         Step("decompose_reduction_bound", "matmul", (2,), (("threads", 4),)),
         Step("write_at", "matmul", (7,), (("buffer", 0), ("scope", "local"))), Step("bind_rest", "", (), (("threads", 1024),))))
    for prop in ("well_formed_before_after", "builds_for_gpu"):
        assert "block->writes.size() == 1" in assert_recognised(
            SUBJECT, prop, example, "test_write_at_after_reverse_compute_at_and_cache_read_does_not_lower", ir="tir")
