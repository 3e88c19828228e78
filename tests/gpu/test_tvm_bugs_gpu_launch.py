"""TVM 0.27 bugs in what the host code and the CUDA runtime make of a schedule, found by the
first GPU run (an H200, ../shared/gpu-runs/2026-11-27-h200): kernels every static check had
passed crashed or faulted there. Each is kept twice: a test of the evidence a CPU machine sees
(the host code TVM writes, the CUDA source, the lowered TIR) and a ``gpu`` test that runs the
kernel and sees the GPU fail (skipped, with the reason, without a CUDA device). Expected
findings: they fail once TVM fixes the bug."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from known_bug_check import assert_recognised

from passcheck.core.subject import Options, resolve
from passcheck.gpu import GpuTarget
from passcheck.gpu.device import cuda_device
from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

# --- a launch axis of extent 0 runs once ---------------------------------------------------------
#
# TVM 0.27 bug: a loop bound to blockIdx.x of extent n (a shape var) builds into a kernel whose
# launch the host code computes as n; at n = 0 TVM's CUDA runtime launches 1 block anyway
# (LaunchParamConfig::Extract, src/runtime/thread_storage_scope.h: "Guard to ensure that the
# dim size is at least 1") and the kernel has no guard for it, so block 0 reads X[0..7] and
# writes pre[0..7] of buffers with no element. The loop's semantics (no iteration) and the
# launch disagree; either the runtime must skip the launch or the codegen guard the index.
# Found by `passcheck bind --target cuda:sm_90` (bind entry 1795794671216: cudaErrorIllegalAddress
# on an H200) and `passcheck FuseOps --target cuda:sm_90` (DLight's fallback, an input of shape
# (0, n, 5, 1)); gpu_bounds_safe_z3 now ranges launch indices over what the runtime launches.

ZERO = ScheduleExample(
    PrimFuncSpec("matmul", (0, 8), (("n", 8),), "int64", symbolic=True, prologue=True, seed=527),
    (Step("bind", "pre", (0,), (("thread", "blockIdx.x"),)), Step("bind_rest", "", (), (("threads", 128),))))


def _zero_build() -> tuple[object, object]:
    from passcheck.tir.gpu.build import build

    case = resolve("bind@cuda:sm_90", "tir").make_case(ZERO, None, Options())
    return case, build(case.after, GpuTarget())


def test_a_launch_axis_of_extent_zero_runs_one_block() -> None:
    from passcheck.tir.gpu import execute
    from passcheck.tir.gpu.emulate import emulate
    from passcheck.tir.gpu.launch import host_launch_of, host_launches

    case, built = _zero_build()
    # The host code passes the shape var itself as the grid: nothing skips the launch at n = 0.
    first = host_launches(built)[0]
    assert first.kernel == "main_kernel" and str(first.extents["blockIdx.x"]) == "n"
    # ... and the kernel indexes by blockIdx.x with no guard.
    kernel = re.search(r"main_kernel\(float\* __restrict__ X_ptr[^)]*\) \{(.*?)\n\}", built.source, re.S)[1]
    assert "X_ptr[((((int64_t)blockIdx.x) * (int64_t)8) + i1)]" in kernel and "if (" not in kernel
    # Launched as the runtime launches it (one block), the kernel reads past the empty X.
    args = execute.call_args(case.spec)
    assert args[0].shape == (0, 8)
    em = emulate(built.joined["main"], args, host_launch_of(built))
    assert em.launches[0].startswith("kernel 1: grid (1, 1, 1)")
    assert em.problems.counts.get("out of bounds", 0) >= 8, em.problems.first
    msg = assert_recognised("bind@cuda:sm_90", "gpu_bounds_safe_z3", ZERO,
                            "test_a_launch_axis_of_extent_zero_runs_one_block", ir="tir")
    assert "blockIdx.x of extent n = 0" in msg


@pytest.mark.gpu
@pytest.mark.skipif(cuda_device() is None, reason="no CUDA device here: the GPU run is owed to a GPU machine")
def test_the_gpu_faults_on_a_launch_axis_of_extent_zero(tmp_path: Path) -> None:
    from passcheck.gpu.bundle import entries
    from passcheck.tir.gpu.execute import entry_for

    case, built = _zero_build()
    entry_for(case, built, str(tmp_path), "gpu_matches_cpu")
    subprocess.run([sys.executable, "-m", "passcheck.bundle", "run", str(tmp_path)], check=True, timeout=600)
    r = entries(tmp_path)[0].result()
    assert r["status"] == "error" and "cudaErrorIllegalAddress" in r["message"], r


# --- a block left on the host --------------------------------------------------------------------
#
# TVM 0.27 bug: a block under no blockIdx/threadIdx loop -- not bound at all, or bound only to
# vthread.x, which InjectVirtualThread turns into plain code -- is built for CUDA without a
# word: no kernel, the block's loads and stores in the host function, on device pointers.
# VerifyMemory exists to refuse exactly this ("Did you forget to bind?"), but it only looks at
# accesses to buffers the parameters name, and after FlattenBuffer every access goes through a
# decl_buffer alias (X_1 = X.view(...)), so it never fires. Found by `passcheck bind --target
# cuda:sm_90`: 22 kernels binding a loop to vthread.x killed the H200 runner with SIGSEGV.
# (passcheck's own part, fixed: bind_rest counted vthread.x as a GPU binding and left those
# blocks where they were; builds_for_gpu now flags host code touching device memory.)


def _copy(bind: str | None) -> object:
    from tvm import s_tir
    from tvm.script import tirx as T

    @T.prim_func(s_tir=True)
    def copy(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.sblock("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * T.float32(2)

    sch = s_tir.Schedule(copy)
    if bind:
        sch.bind(sch.get_loops(sch.get_sblock("B"))[0], bind)
    return sch.mod


@pytest.mark.parametrize("bind", [None, "vthread.x"])
def test_verify_memory_misses_host_accesses_through_flattened_buffers(bind: str | None) -> None:
    import tvm
    import tvm_ffi

    from passcheck.tir.gpu.build import build
    from passcheck.tir.gpu.launch import host_accesses

    built = build(_copy(bind), GpuTarget())  # no "Did you forget to bind?"
    assert not built.kernels() and not built.source.strip().endswith("}")  # no kernel at all
    assert host_accesses(built.joined) == ["A", "B"]
    # What VerifyMemory is given: the pipeline up to it. It passes, although the host stores B.
    seen = []

    @tvm.instrument.pass_instrument
    class Capture:
        def run_before_pass(self, mod: object, info: object) -> None:
            if info.name == "tirx.VerifyMemory":
                seen.append(mod)

    target = GpuTarget().tvm_target()
    mod = tvm.tirx.transform.BindTarget(target.with_host(target.host))(_copy(bind))
    with tvm.transform.PassContext(instruments=[Capture()]):
        tvm.tirx.get_default_tir_pipeline(target)[0](mod)
    verify = tvm_ffi.get_global_func("tirx.analysis.verify_memory")
    assert seen and verify(seen[0]["main"]), "VerifyMemory now refuses host accesses: the bug is fixed"


@pytest.mark.parametrize("bind", [None, "vthread.x"])
@pytest.mark.gpu
@pytest.mark.skipif(cuda_device() is None, reason="no CUDA device here: the GPU run is owed to a GPU machine")
def test_a_block_left_on_the_host_segfaults_when_called(tmp_path: Path, bind: str | None) -> None:
    from passcheck.tir.gpu.build import build

    built = build(_copy(bind), GpuTarget())
    built.lib.export_library(str(tmp_path / "k.so"))
    script = tmp_path / "call.py"
    script.write_text(
        "import sys, numpy as np, tvm\n"
        "from passcheck.gpu.device import ensure_cuda\n"
        "dev = ensure_cuda('sm_90')\n"
        f"lib = tvm.runtime.load_module({str(tmp_path / 'k.so')!r})\n"
        "a = tvm.runtime.tensor(np.ones(8, 'float32'), dev); b = tvm.runtime.tensor(np.zeros(8, 'float32'), dev)\n"
        "lib['main'](a, b); dev.sync(); print('called')\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=os.environ)
    assert r.returncode == -11 and "called" not in r.stdout, (r.returncode, r.stderr[-500:])


# --- a cross-thread reduction under a host loop ---------------------------------------------------
#
# TVM 0.27 bug: a sum whose reduction loop is bound to threadIdx.x while its spatial loop stays
# a host loop (one launch per row: nothing binds it, and nothing has to) is lowered by
# LowerCrossThreadReduction with the per-thread accumulator `in_thread_red` -- "local", one per
# thread -- allocated outside the kernel. The host allocates it as a device workspace and passes
# it to the kernel: all 32 threads then add into its one element at once (the CUDA source reads
# `in_thread_red_ptr[0] = in_thread_red_ptr[0] + pre_ptr[...]`), and the row sums are wrong.
# Found by emulating TVM's own cross-thread reductions (gpu_threads_ordered); passcheck's own
# part, fixed: gpu_no_lost_updates took every "local" buffer for registers and skipped it.

CROSS = ScheduleExample(PrimFuncSpec("reduce", (6, 70), (("axes", (1,)), ("op", "sum")), "int32", prologue=True, seed=2),
                        (Step("cross_thread_reduction", "red", (1,), (("threads", 32), ("rfactor", False))),
                         Step("bind_rest", "", (), (("threads", 32),))))


def test_cross_thread_reduction_under_a_host_loop_shares_its_accumulator() -> None:
    import passcheck.properties.tir_gpu as G

    from passcheck.tir.gpu.build import build

    case = resolve("cross_thread_reduction@cuda:sm_90", "tir").make_case(CROSS, None, Options())
    built = build(case.after, GpuTarget())
    joined = built.joined.script()
    # allocated in the host code, before the kernels ...
    assert joined.index("in_thread_red = T.alloc_local((1,))") < joined.index("T.launch_thread")
    # ... so the kernel gets it as a pointer, and every thread adds into element 0
    assert re.search(r"main_kernel_1\(float\* __restrict__ in_thread_red_ptr", built.source)
    assert "in_thread_red_ptr[0] = (in_thread_red_ptr[0] + pre_ptr[" in built.source
    msg = assert_recognised("cross_thread_reduction@cuda:sm_90", "gpu_no_lost_updates", CROSS,
                            "test_cross_thread_reduction_under_a_host_loop_shares_its_accumulator", ir="tir")
    assert "in_thread_red[0] is read-modified-written at once by two threads" in msg
    with pytest.raises(Exception, match=r"computes different values(.|\n)*race(.|\n)*in_thread_red"):
        G.gpu_emulated_matches_cpu(case)
    # The accumulator is named after the block: in_thread_pool of an average pooling, its spatial
    # loops left on the host (found by `schedule --target cuda:sm_90`, seed 0, 9 examples).
    built = build(resolve("schedule@cuda:sm_90", "tir").make_case(POOL, None, Options()).after, GpuTarget())
    joined = built.joined.script()
    assert joined.index("in_thread_pool = T.alloc_local((1,))") < joined.index("T.launch_thread")
    msg = assert_recognised("schedule@cuda:sm_90", "gpu_no_lost_updates", POOL,
                            "test_cross_thread_reduction_under_a_host_loop_shares_its_accumulator", ir="tir")
    assert "in_thread_pool[0] is read-modified-written at once by two threads" in msg


POOL = ScheduleExample(
    PrimFuncSpec("pool", (1, 2, 17, 17), (("op", "avg"), ("kernel", (2, 2)), ("stride", (2, 2)), ("padding", (0, 0))),
                 epilogue=True, seed=364, epilogue_op="bias"),
    (Step("cache_shared", "avg", (1,), (("buffer", 0), ("threads", 64), ("cooperative", False))),
     Step("cross_thread_reduction", "pool", (5,), (("threads", 256), ("rfactor", False))),
     Step("cache_local", "avg", (0,), (("threads", 128),)),
     Step("set_scope", "avg", (), (("buffer", 0), ("scope", "global"), ("by_name", True))),
     Step("bind_rest", "", (), (("threads", 2),))))


@pytest.mark.gpu
@pytest.mark.skipif(cuda_device() is None, reason="no CUDA device here: the GPU run is owed to a GPU machine")
def test_cross_thread_reduction_under_a_host_loop_sums_wrong_on_the_gpu() -> None:
    assert "computes different values" in on_the_gpu("cross_thread_reduction", CROSS)


def on_the_gpu(subject: str, example: ScheduleExample) -> str:
    """gpu_matches_cpu's finding on ``example``, run on this machine's GPU by the real engine."""
    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    p = plan(RunConfig(subject=f"{subject}@cuda:sm_90", ir="tir", properties=("gpu_matches_cpu",), timeout=600))
    with Evaluator(p) as evaluate:
        outcome = evaluate(example).outcomes["gpu_matches_cpu"]
    assert outcome.verdict.finding, outcome
    return outcome.message


# The wrong numbers of the first GPU run, on a GPU again: the nested binding (one index for two
# loops, tests/gpu/test_tvm_bugs_gpu.py) and reindex of a read after reverse_compute_at
# (tests/tir/test_tvm_bugs_wrong_results.py: wrong on the CPU too).
WRONG_ON_THE_GPU = {
    "nested_binding": ("bind", ScheduleExample(
        PrimFuncSpec("elementwise", (8, 8), (("depth", 1),), "int32", seed=3),
        (Step("bind", "ew0", (1,), (("thread", "threadIdx.x"),)), Step("bind", "ew0", (0,), (("thread", "threadIdx.x"),)),
         Step("bind_rest", "", (), (("threads", 1),))))),
    "reindex_read": ("schedule", ScheduleExample(
        PrimFuncSpec("reduce", (11, 2, 9), (("axes", (0, 2)), ("op", "max")), "int64", epilogue=True,
                     epilogue_op="clip", seed=5),
        (Step("reverse_compute_at", "post", (0,), (("target", "red"), ("preserve_unit_loops", False), ("index", -1))),
         Step("reindex", "post", (), (("kind", "read"), ("buffer", 0))), Step("bind_rest", "", (), (("threads", 4),))))),
}


@pytest.mark.parametrize("name", sorted(WRONG_ON_THE_GPU))
@pytest.mark.gpu
@pytest.mark.skipif(cuda_device() is None, reason="no CUDA device here: the GPU run is owed to a GPU machine")
def test_the_first_gpu_runs_wrong_numbers_on_a_gpu(name: str) -> None:
    assert "computes different values" in on_the_gpu(*WRONG_ON_THE_GPU[name])


# --- rfactor of a predicated reduction bound to threads ------------------------------------------

RF = ScheduleExample(PrimFuncSpec("matmul", (12, 2), (("n", 16),), prologue=True, seed=14709),
                     (Step("cross_thread_reduction", "matmul", (2,), (("threads", 4), ("rfactor", False))),
                      Step("rfactor", "matmul", (2,), (("factor_axis", 0),)), Step("bind_rest", "", (), (("threads", 32),))))


def test_rfactor_of_a_predicated_thread_bound_reduction_is_not_lowered_across_threads() -> None:
    """k (extent 2) split by 4, k_1 bound to threadIdx.x, then rfactor of k_0: the rf block reduces
    over the threads under a predicate (k_1 < 2), and nothing lowers that reduction across threads:
    the kernel has both threads add into the one partial, after thread 0's init, no barrier. With
    a dividing split (k = 8) LowerCrossThreadReduction does lower it (red_buf0). Found by
    schedule --target cuda:sm_90 at 500 examples (seed 0, 4 examples; there StorageRewrite had
    given the partial's memory to pre_global)."""
    from passcheck.tir.gpu.build import build

    built = build(resolve("schedule@cuda:sm_90", "tir").make_case(RF, None, Options()).after, GpuTarget())
    assert "tvm_thread_allreduce" not in built.joined.script()
    assert "matmul_rf_ptr[((i * 16) + j)] = (matmul_rf_ptr[((i * 16) + j)] + (pre_ptr[" in built.source
    msg = assert_recognised("schedule@cuda:sm_90", "gpu_no_lost_updates", RF,
                            "test_rfactor_of_a_predicated_thread_bound_reduction_is_not_lowered_across_threads", ir="tir")
    assert "matmul.rf[i * 16 + j] is read-modified-written at once by two threads" in msg


def test_nested_bindings_of_one_thread_axis_on_the_cpu() -> None:
    """The same bug in a schedule drawn for the CPU (`schedule --examples 2000 --seed 11`): both
    loops of a symbolic [n, 1] kernel bound to threadIdx.y. Lowered, one threadIdx.y of the
    larger extent (1) runs the body with no guard, so at n = 0 it loads and stores row 0 of
    empty buffers."""
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    spec = PrimFuncSpec("elementwise", (1, 1), (("depth", 1),), "int32", symbolic=True, epilogue=True)
    example = ScheduleExample(spec, (Step("bind", "post", (0,), (("thread", "threadIdx.y"),)),
                                     Step("bind", "post", (1,), (("thread", "threadIdx.y"),))))
    msg = assert_recognised("schedule", "bounds_safe_z3", example,
                            "test_bind_accepts_nested_loops_bound_to_one_thread_axis", ir="tir")
    assert "at n=0" in msg
