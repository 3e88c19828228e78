"""The GPU target without a GPU: cross-compilation for cuda/sm_90 (TVM's pipeline, its CUDA
codegen, NVRTC), Z3 on the kernels as the codegen sees them (thread ranges, shared buffers,
host loops), the launch limits, and the deliberately buggy GPU schedules caught by Z3."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gpu_buggy_passes as bug
import passcheck.properties.tir_gpu as G
import passcheck.properties.tir_schedule as S
import pytest

from passcheck.core.errors import Discard, Unknown, Violation
from passcheck.core.subject import Options, resolve
from passcheck.gpu import GpuTarget, parse_target, split_subject
from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step
from passcheck.tir.subjects import CustomExample

OPTS = Options()
SM90 = GpuTarget("cuda", "sm_90")
ELEMENTWISE_10 = PrimFuncSpec("elementwise", (10,), (("depth", 1),), "int32", seed=3)
MATMUL = PrimFuncSpec("matmul", (7, 5), (("n", 6),), "int32", seed=4)
REST = Step("bind_rest", "", (), (("threads", 32),))


def case_of(subject: str, example: object, impl: object = None) -> object:
    return resolve(f"{subject}@cuda:sm_90", "tir").make_case(example, impl, OPTS)


def test_target_names() -> None:
    assert parse_target("llvm") is None and parse_target(None) is None
    assert parse_target("cuda:sm_80") == GpuTarget("cuda", "sm_80")
    assert parse_target("cuda", local_arch=lambda: None) == SM90
    assert split_subject("bind@cuda:sm_90") == ("bind", SM90)
    assert split_subject("my.py:fn@cuda:sm_90") == ("my.py:fn", SM90)
    assert split_subject("my.py:fn") == ("my.py:fn", None)


def test_cross_compiles_for_sm90_and_nvrtc_accepts_it(tmp_path: Path) -> None:
    from passcheck.tir.gpu.build import build, cubin_size

    case = case_of("bind_threads", ScheduleExample(MATMUL, (Step("bind_threads", "matmul", (0,), (("threads", 4),
                                                                                               ("axis", "x"))), REST)))
    built = build(case.after, SM90)
    assert "__global__" in built.source and "__launch_bounds__" in built.source
    assert built.kernels() and cubin_size(built.source, "sm_90") > 0
    built.lib.export_library(str(tmp_path / "k.so"))
    assert (tmp_path / "k.so").stat().st_size > 0
    G.builds_for_gpu(case)
    G.launch_within_device_limits(case)


def test_a_worker_that_ends_without_cleanup_leaves_no_precompiled_header_behind(tmp_path: Path) -> None:
    # Workers are killed or leave with os._exit; NVRTC's own PCH folder (200 MB) stayed in /tmp.
    from passcheck.gpu.toolchain import pch_root

    compile_and_exit = ("import os, tempfile\nfrom passcheck.gpu.toolchain import nvrtc_compile\n"
                        "nvrtc_compile('extern \"C\" __global__ void k(float* a) { a[threadIdx.x] = 1.0f; }', 'sm_90')\n"
                        "print(os.getpid())\nos._exit(0)\n")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    pid = subprocess.run([sys.executable, "-c", compile_and_exit], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    root = tmp_path / pch_root().name
    assert not list(tmp_path.glob("__nvrtc_auto_pch_*")), "NVRTC's own folder is not used"
    assert list((root / pid).glob("*.pch")), "the header is in the worker's own folder"
    subprocess.run([sys.executable, "-c", "from passcheck.gpu.toolchain import pch_dir; pch_dir()"], env=env,
                   check=True)
    assert not list(root.iterdir()), "the next process removed the dead worker's folder, and its own at exit"


def test_z3_reads_thread_ranges_and_shared_buffers() -> None:
    step = Step("cache_shared", "matmul", (0,), (("buffer", 0), ("threads", 4), ("cooperative", True)))
    case = case_of("cache_shared", ScheduleExample(MATMUL, (step, REST)))
    G.gpu_bounds_safe_z3(case)  # holds
    res = case.memo(("gpu_bounds",), lambda: None)
    assert res.accesses > 0 and not res.violations
    assert 'scope="shared"' in case.after.script()


def test_overshooting_bind_is_caught_by_z3_without_a_gpu() -> None:
    step = Step("bind_threads", "ew0", (0,), (("threads", 4), ("axis", "x")))
    example = ScheduleExample(ELEMENTWISE_10, (step, REST))
    good = case_of("bind_threads", example)
    G.gpu_bounds_safe_z3(good)  # the real primitive guards its tail
    S.block_instances_within_domain(good)
    S.block_instances_exactly_once(good)
    bad = case_of("bind_threads", example, bug.overshooting_bind)
    with pytest.raises(Violation, match=r"out of bounds(.|\n)*threadIdx.x=\d"):
        G.gpu_bounds_safe_z3(bad)
    # The symbolic domain check reads thread-bound loops as loops: the unguarded threads run
    # instances outside the block's domain.
    with pytest.raises(Violation, match="outside its original domain"):
        S.block_instances_within_domain(bad)


def test_short_shared_cache_is_caught_by_z3_without_a_gpu() -> None:
    subject = resolve(f"{Path(bug.__file__)}:short_shared_cache@cuda:sm_90", "tir")
    case = subject.make_case(CustomExample(MATMUL, (REST,)), None, OPTS)
    with pytest.raises(Violation, match=r"shared.*out of bounds|out of bounds(.|\n)*_shared\["):
        G.gpu_bounds_safe_z3(case)


def test_a_launch_the_schedule_asked_for_beyond_the_limits_is_discarded() -> None:
    wide = PrimFuncSpec("elementwise", (4, 3), (("depth", 1),), "int32", seed=1)
    steps = (Step("bind_threads", "ew0", (0,), (("threads", 1024), ("axis", "x"))),
             Step("bind_threads", "ew0", (2,), (("threads", 2), ("axis", "y"))), REST)
    with pytest.raises(Discard, match="schedule itself binds"):
        G.launch_within_device_limits(case_of("schedule", ScheduleExample(wide, steps)))


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "passcheck", *args], capture_output=True, text=True, timeout=300,
                          env=env)


def test_bad_target_and_bundle_without_target_exit_2() -> None:
    r = _cli("bind", "--target", "rocm", "--examples", "1")
    assert r.returncode == 2 and "unknown target" in r.stderr and "Traceback" not in r.stderr
    r = _cli("bind", "--bundle", "somewhere", "--examples", "1")
    assert r.returncode == 2 and "--target cuda" in r.stderr


def test_target_cuda_without_the_toolchain_says_how_to_install(tmp_path: Path) -> None:
    # A `cuda` package that shadows cuda-bindings: NVRTC's bindings are not importable.
    (tmp_path / "cuda").mkdir()
    (tmp_path / "cuda" / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    r = _cli("bind", "--target", "cuda:sm_90", "--examples", "1", env=env)
    assert r.returncode == 2, r.stderr
    assert 'pip install "passcheck[cuda]"' in r.stderr and r.stderr.count("\n") == 1


def test_a_reduction_that_forgets_the_cross_thread_step_is_caught_without_a_gpu() -> None:
    subject = resolve(f"{Path(bug.__file__)}:forgotten_cross_thread_reduction@cuda:sm_90", "tir")
    red = PrimFuncSpec("reduce", (6, 5), (("axes", (1,)), ("op", "sum")), "int32", seed=2)
    for spec in (red, MATMUL):
        case = subject.make_case(CustomExample(spec, (REST,)), None, OPTS)
        with pytest.raises(Violation, match=r"lose each other's updates(.|\n)*threadIdx.y"):
            G.gpu_no_lost_updates(case)
    # TVM's own cross-thread reduction of the same loops combines the partial sums, once the
    # spatial loop is bound too (left on the host it is a kept TVM bug: test_tvm_bugs_gpu_launch.py,
    # test_cross_thread_reduction_under_a_host_loop_shares_its_accumulator).
    for spec, block in ((red, "red"), (MATMUL, "matmul")):
        outer = Step("bind", block, (0,), (("thread", "blockIdx.x"),))
        step = Step("cross_thread_reduction", block, (-1,), (("threads", 4), ("rfactor", False)))
        G.gpu_no_lost_updates(case_of("cross_thread_reduction", ScheduleExample(spec, (outer, step, REST))))


def test_a_symbolic_kernel_bound_to_blocks_has_no_race_and_a_launch_with_its_shape_var_bounded() -> None:
    # Found by `passcheck bind --target cuda` (false alarms, now fixed): the race check let the
    # shape var n of conv (n, 1, 3, 3) grow past any addressable buffer, so two blocks "met" on
    # an int32-wrapped index; the launch check read the shape var limits as plain numbers.
    conv = PrimFuncSpec("conv2d", (1, 1, 3, 3), (("out_channels", 1), ("kernel", (1, 1)), ("stride", (1, 1)),
                                                 ("dilation", (1, 1)), ("padding", (0, 0))), "int32", symbolic=True)
    bind = Step("bind", "conv", (0,), (("thread", "blockIdx.x"),))
    case = case_of("bind", ScheduleExample(conv, (bind, Step("bind_rest", "", (), (("threads", 1),)))))
    try:
        G.gpu_no_lost_updates(case)
    except Unknown:
        pass  # Z3 needs about its 2 s per query here: on a loaded machine it may give up, never a finding
    try:
        G.launch_within_device_limits(case)
    except Discard as e:  # n blocks may exceed the device's grid: refused by design, not a crash
        assert "exten" in str(e) or "limit" in str(e), e


def test_a_cpu_only_schedule_completed_for_the_gpu_is_not_run_on_the_cpu() -> None:
    # Found by `passcheck schedule --target cuda` (a false alarm, now fixed): a sequence of CPU
    # primitives ended by bind_rest stayed "executable", and the CPU execution property built the
    # GPU-bound kernel for llvm ("InternalError: not implemented" on every such example).
    import passcheck.properties.tir_generic as T

    split = Step("split", "ew0", (0,), (("factors", (2, None)),))
    case = case_of("split", ScheduleExample(ELEMENTWISE_10, (split, REST)))
    assert case.raised is None and "threadIdx" in case.after.script()
    assert not case.executable
    with pytest.raises(Discard, match="not executable on CPU"):
        T.equivalent_by_execution(case)


def test_a_tvm_bug_kept_for_a_cpu_schedule_is_recognised_when_the_schedule_targets_the_gpu() -> None:
    # Found by `passcheck schedule --target cuda`: the kept TIR bugs (empty SeqStmt in cache_index,
    # ...) were reported as new because `schedule@cuda:sm_90` did not answer to `schedule`.
    from passcheck.core.known import recognise

    message = ("cache_index raised InternalError: Check failed: An empty SeqStmt is prohibited; schedule:\n"
               "cache_index('ew0', buffer=0)  # raised InternalError")
    for name in ("schedule", "schedule@cuda:sm_90", "cache_index@cuda:sm_90"):
        bug = recognise(resolve(name, "tir"), "transformation_does_not_raise", message)
        assert bug is not None and bug.name == "test_cache_index_internal_error_when_nothing_to_cache", name
    assert recognise(resolve("split@cuda:sm_90", "tir"), "transformation_does_not_raise", message) is None


def test_a_step_refused_after_its_first_calls_leaves_the_schedule_as_it_was() -> None:
    """decompose_reduction_bound splits and binds a block's loop, then calls decompose_reduction,
    which refuses a block that is not a reduction. The sequence records the step as refused: the
    split and the bind must not stay behind either (a campaign once showed a repro whose blockize
    ran under a bound split that its trace listed nowhere)."""
    import tvm_ffi

    spec = PrimFuncSpec("elementwise", (6, 4), (("depth", 1),), "int32")
    split = Step("split", "ew0", (0,), (("factors", (None, 2)), ("preserve_unit_iters", True)))
    refused = Step("decompose_reduction_bound", "ew0", (0,), (("threads", 4),))
    subject = resolve("schedule", "tir")
    case = subject.make_case(ScheduleExample(spec, (split, refused)), None, Options())
    assert case.trace[-1].startswith("# refused: decompose_reduction_bound"), case.trace
    alone = subject.make_case(ScheduleExample(spec, (split,)), None, Options())
    assert tvm_ffi.structural_equal(case.after, alone.after)
    assert "thread_binding" not in case.after.script()


def test_an_out_of_bounds_access_the_preparation_made_is_not_blamed_on_the_step_under_test() -> None:
    """Found by `bind --target cuda:sm_90` (seed 0): the preparation reindexed a padded read (the
    copy drops the if_then_else and loads x[..., -1], a kept bug of reindex), then bind was blamed
    for it. As bounds_safe_z3 does, the GPU bounds leave it to the preparation's own subject;
    the same access made by the step under test is still a violation (the planted overshooting
    bind above)."""
    spec = PrimFuncSpec("legalized", (1, 2, 16, 16), (("op", "avg_pool2d"), ("kernel", (1, 2)), ("stride", (2, 2)),
                                                      ("padding", (0, 1))), "int64", symbolic=True, seed=1777)
    steps = (Step("reindex", "pad_temp", (), (("kind", "read"), ("buffer", 0))),
             Step("reorder", "pad_temp", (0, 2, 1)), Step("bind", "pad_temp<0", (1,), (("thread", "blockIdx.x"),)),
             Step("bind_rest", "", (), (("threads", 2),)))
    case = case_of("bind", ScheduleExample(spec, steps, 2))
    assert G._gpu_bounds(case).violations  # the kernel does read x[..., -1] ...
    assert case.bounds("before").violations  # ... and the preparation alone already does
    with pytest.raises(Discard, match="preparatory steps already produce out-of-bounds"):
        G.gpu_bounds_safe_z3(case)


def test_steps_that_leave_an_ill_formed_module_are_well_formeds_finding_and_build_nothing() -> None:
    """cache_inplace after decompose_reduction uses a block iterator outside its block (a kept TVM
    bug); completing that module for the GPU (bind_rest) could not even open a schedule on it, and
    the error escaped the worker ('worker internal error', schedule --target cuda at 500 examples)."""
    from known_bug_check import assert_recognised

    example = ScheduleExample(
        PrimFuncSpec("matmul", (2, 2), (("n", 6),), "int32", prologue=True, seed=273, epilogue_op="bias"),
        (Step("decompose_reduction", "matmul", (2,)),
         Step("cache_inplace", "matmul", (), (("buffer", 1), ("scope", "local"), ("inplace", True))),
         Step("bind_rest", "", (), (("threads", 32),))))
    assert_recognised("schedule@cuda:sm_90", "well_formed_before_after", example,
                      "test_cache_inplace_after_decompose_reduction_uses_block_iterators_outside_the_block", ir="tir")
    case = case_of("schedule", example)
    assert "not completed for the GPU" in case.trace_text()
    with pytest.raises(Discard, match="not built for a GPU target"):
        G.builds_for_gpu(case)
