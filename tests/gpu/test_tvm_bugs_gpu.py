"""TVM 0.27 bug: ``rfactor`` of a reduction into a 0-d buffer that a later block reads raises
``InternalError: Check failed: block_realize == old_block_realize_`` (BlockReplacer, in
src/s_tir/schedule/primitive/reduction.cc) instead of applying or refusing with a
ScheduleError. The same reduction without the reading block factors fine, and so does one
into a 1-d buffer. DLight's ``gpu.Reduction`` rule rfactors every inner reduction, so TVM's
default CUDA pipeline (``tvm.compile(..., target="cuda")``) cannot build ``R.mean`` over all
axes (a sum into a 0-d buffer, then the division). Found by ``passcheck FuseOps --target
cuda`` (property ``relax_builds_for_gpu``), shrunk to the one-op graph below. An expected
finding: these tests fail once TVM fixes it.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(11, 6), dtype="float32", const=False, lo=-1.0, hi=1.0, style="narrow",
                       seed=6186),),
    nodes=(Node(op="mean", args=(0,), attrs=(("axis", (-2, -1)), ("keepdims", False)), shape=(),
                dtype="float32"),),
    outputs=(1,), input_seed=106,
)


def _reduction(with_consumer: bool):  # noqa: ANN202
    from tvm.script import tirx as T

    if with_consumer:
        @T.prim_func(s_tir=True)
        def mean(x: T.Buffer((8,), "float32"), out: T.Buffer((), "float32")):
            red = T.sblock_alloc_buffer(())
            for k in range(8):
                with T.sblock("red"):
                    vk = T.axis.reduce(8, k)
                    with T.init():
                        red[()] = T.float32(0)
                    red[()] = red[()] + x[vk]
            with T.sblock("div"):
                vi = T.axis.spatial(1, 0)  # noqa: F841
                out[()] = red[()] / T.float32(8)
        return mean

    @T.prim_func(s_tir=True)
    def total(x: T.Buffer((8,), "float32"), out: T.Buffer((), "float32")):
        for k in range(8):
            with T.sblock("red"):
                vk = T.axis.reduce(8, k)
                with T.init():
                    out[()] = T.float32(0)
                out[()] = out[()] + x[vk]
    return total


def _rfactor(func) -> None:  # noqa: ANN001
    from tvm import s_tir

    sch = s_tir.Schedule(func)
    (k,) = sch.get_loops(sch.get_sblock("red"))
    _, ki = sch.split(k, [None, 4])
    sch.rfactor(ki, 0)


def test_rfactor_of_a_0d_reduction_with_a_consumer() -> None:
    import tvm

    _rfactor(_reduction(with_consumer=False))  # factors fine alone
    with pytest.raises(tvm.error.InternalError, match="block_realize == old_block_realize_"):
        _rfactor(_reduction(with_consumer=True))


def test_the_cuda_pipeline_cannot_build_a_mean_over_all_axes() -> None:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.gpu import GpuTarget

    def mean(axes: list[int]):  # noqa: ANN202
        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TensorType((11, 6), "float32"))
        with bb.function("main", [x]):
            with bb.dataflow():
                out = bb.emit_output(R.mean(x, axis=axes))
            bb.emit_func_output(out)
        return bb.get()

    target = GpuTarget().tvm_target()
    tvm.compile(mean([1]), target=target)  # a 1-d result builds
    with pytest.raises(tvm.error.InternalError, match="block_realize == old_block_realize_"):
        tvm.compile(mean([0, 1]), target=target)


def test_registered_as_a_known_bug() -> None:
    assert_recognised("FuseOps@cuda:sm_90", "relax_builds_for_gpu", EXAMPLE,
                      "test_rfactor_of_a_0d_reduction_with_a_consumer")


# --- InjectVirtualThread segfaults on a virtual thread of symbolic extent ---------------------
#
# TVM 0.27 bug: binding a loop whose extent is a shape var to ``vthread.x`` is accepted by the
# schedule (bind checks nothing about the extent), and then the build's InjectVirtualThread
# pass dereferences the extent as a constant and dies with SIGSEGV -- for CUDA and for LLVM
# alike -- instead of raising an error. Found by ``passcheck bind --target cuda`` (a crash in
# ``builds_for_gpu``), shrunk to a one-block kernel.

VTHREAD_SCRIPT = """
import tvm
from tvm import s_tir
from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def f(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.sblock("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] * T.float32(2)

sch = s_tir.Schedule(f)
(i,) = sch.get_loops(sch.get_sblock("B"))
sch.bind(i, "vthread.x")
target = {TARGET}
tvm.compile(sch.mod, target=target)
print("built")
"""


@pytest.mark.parametrize("target", ['{"kind": "cuda", "arch": "sm_90"}', '{"kind": "llvm"}'])
def test_inject_virtual_thread_segfaults_on_a_symbolic_extent(tmp_path, target: str) -> None:  # noqa: ANN001
    import subprocess
    import sys

    script = tmp_path / "vthread.py"
    script.write_text(VTHREAD_SCRIPT.replace("{TARGET}", target))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "built" not in r.stdout
    assert "Segfault" in r.stderr or r.returncode == -11


def test_vthread_crash_registered_as_a_known_bug() -> None:
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    spec = PrimFuncSpec("elementwise", (9,), (("depth", 1),), "int32", symbolic=True, seed=1)
    example = ScheduleExample(spec, (Step("bind", "ew0", (0,), (("thread", "vthread.x"),)),
                                     Step("bind_rest", "", (), (("threads", 7),))))
    assert_recognised("bind@cuda:sm_90", "builds_for_gpu", example,
                      "test_inject_virtual_thread_segfaults_on_a_symbolic_extent", ir="tir")


# --- bind accepts a reduction loop that LowerCrossThreadReduction then rejects ----------------
#
# TVM 0.27 bug: ``bind`` lets a reduction loop that is not the innermost (after ``reorder``)
# be bound to threadIdx; the schedule is accepted and verify_well_formed passes, but lowering
# (LowerCrossThreadReduction, run by every build) rejects it: "Cross-thread reduction requires
# all the reduction-related loops to be the deepest". The primitive should refuse with a
# ScheduleError. Found by ``passcheck bind --target cuda`` (well_formed_before_after,
# builds_for_gpu).


def _te_sum() -> object:
    from tvm import te

    a = te.placeholder((7, 8), name="A")
    k = te.reduce_axis((0, 8), "k")
    b = te.compute((7,), lambda i: te.sum(a[i, k], axis=k), name="B")
    return te.create_prim_func([a, b])


def test_bind_accepts_a_cross_thread_reduction_it_cannot_lower() -> None:
    from tvm import s_tir

    sch = s_tir.Schedule(_te_sum())
    i, k = sch.get_loops(sch.get_sblock("B"))
    sch.bind(k, "threadIdx.x")  # innermost: lowers
    s_tir.transform.LowerCrossThreadReduction()(sch.mod)
    sch = s_tir.Schedule(_te_sum())
    i, k = sch.get_loops(sch.get_sblock("B"))
    sch.reorder(k, i)
    sch.bind(k, "threadIdx.x")  # accepted...
    assert s_tir.analysis.verify_well_formed(sch.mod, assert_mode=False)
    with pytest.raises(ValueError, match="Cross-thread reduction requires all the reduction-related loops"):
        s_tir.transform.LowerCrossThreadReduction()(sch.mod)  # ...and cannot be lowered


def test_cross_thread_bind_registered_as_a_known_bug() -> None:
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    spec = PrimFuncSpec("reduce", (7, 8), (("axes", (1,)), ("op", "max")), "int64", prologue=True, epilogue=True,
                        seed=1, epilogue_op="bias")
    example = ScheduleExample(spec, (Step("reorder", "red", (7, 6)), Step("bind", "red", (0,), (("thread", "threadIdx.y"),)),
                                     Step("bind_rest", "", (), (("threads", 2),))), prefix=1)
    assert_recognised("bind@cuda:sm_90", "well_formed_before_after", example,
                      "test_bind_accepts_a_cross_thread_reduction_it_cannot_lower", ir="tir")


# --- get_sblock of a block inside another block's init ---------------------------------------
#
# TVM 0.27 bug: blockize of a reduction at its outer loop leaves the init block (``B_init``)
# inside the new block's ``T.init()``; ``sch.get_sblock("B_init")`` -- a block that exists in
# the IR, by its name -- fails an internal check (``it != self_->stmt2ref.end()``) instead of
# returning it or raising a ScheduleError. Found by ``passcheck bind --target cuda`` (its
# completion step listed every block and asked for each).


def test_get_sblock_of_an_init_block_fails_an_internal_check() -> None:
    import tvm
    from tvm import s_tir

    sch = s_tir.Schedule(_te_sum())
    i, _ = sch.get_loops(sch.get_sblock("B"))
    sch.blockize(i)
    assert 'T.sblock("B_init")' in sch.mod.script()
    with pytest.raises(tvm.error.InternalError, match=r"stmt2ref\.end\(\)"):
        sch.get_sblock("B_init")


# --- bind accepts nested loops bound to the same thread axis ----------------------------------
#
# TVM 0.27 bug: ``bind`` lets a loop be bound to blockIdx.x inside a loop already bound to
# blockIdx.x. Nothing rejects the schedule; the build merges both loops into one launch
# dimension of the larger extent (17) with no guard, so the outer loop's index (extent 9) runs
# to 16 and every access through it is out of bounds. bind should refuse with a ScheduleError.
# Found by ``passcheck bind --target cuda`` (bounds_safe_z3, gpu_bounds_safe_z3: a blockize,
# a bind of the inner loop, then bind_rest binding the outer one).


def test_bind_accepts_nested_loops_bound_to_one_thread_axis() -> None:
    from tvm import s_tir

    from passcheck.gpu import GpuTarget
    from passcheck.tir.analysis import check_bounds
    from passcheck.tir.gpu.build import build
    from passcheck.tir.kernels import PrimFuncSpec, build_primfunc

    spec = PrimFuncSpec("elementwise", (9, 17), (("depth", 1),), "int32", seed=1)
    sch = s_tir.Schedule(build_primfunc(spec))
    outer, inner = sch.get_loops(sch.get_sblock("ew0"))
    sch.bind(outer, "blockIdx.x")
    sch.bind(inner, "blockIdx.x")  # accepted: no ScheduleError
    built = build(sch.mod, GpuTarget())
    res = check_bounds(built.joined, 10_000)
    assert res.violations and not res.safe, res.summary()


def test_nested_bindings_of_equal_extents_compute_the_diagonal() -> None:
    """The same bug with equal extents (found by the first GPU run: 15 `schedule --target cuda`
    kernels computed wrong numbers on an H200): j split by 4 and bound to blockIdx.x /
    threadIdx.x inside i split and bound the same way. No access leaves its buffer, but the
    kernel has one index where the block had two: it writes Z[i, i] only."""
    import re

    import passcheck.properties.tir_gpu as G
    from tvm import s_tir

    from passcheck.core.subject import Options, resolve
    from passcheck.gpu import GpuTarget
    from passcheck.tir.gpu.build import build
    from passcheck.tir.kernels import PrimFuncSpec, build_primfunc
    from passcheck.tir.schedule import ScheduleExample, Step

    spec = PrimFuncSpec("elementwise", (8, 8), (("depth", 1),), "int32", seed=3)
    sch = s_tir.Schedule(build_primfunc(spec))
    i, j = sch.get_loops(sch.get_sblock("ew0"))
    for loop in (j, i):
        outer, inner = sch.split(loop, [None, 4])
        sch.bind(outer, "blockIdx.x")
        sch.bind(inner, "threadIdx.x")  # accepted: no ScheduleError
    built = build(sch.mod, GpuTarget())
    store = re.search(r"ew0_ptr\[(.*?)\] =", built.source)[1]
    assert store == "((((int)blockIdx.x) * 36) + (((int)threadIdx.x) * 9))", store  # 8 elements: the diagonal
    case = resolve("bind@cuda:sm_90", "tir").make_case(
        ScheduleExample(spec, (Step("bind", "ew0", (1,), (("thread", "threadIdx.x"),)),
                               Step("bind", "ew0", (0,), (("thread", "threadIdx.x"),)),
                               Step("bind_rest", "", (), (("threads", 1),)))), None, Options())
    G.gpu_bounds_safe_z3(case)  # in bounds
    msg = known_violation_of(G.gpu_emulated_matches_cpu, case)
    assert "56 elements of ew0 are never written" in msg


def known_violation_of(prop, case) -> str:  # noqa: ANN001
    from passcheck.core.errors import Violation
    from passcheck.core.known import recognise_example
    from passcheck.core.subject import resolve

    with pytest.raises(Violation) as e:
        prop(case)
    found = recognise_example(resolve(case.subject, "tir"), prop.__name__, case.example, str(e.value),
                              case.input_script(), case.output_script())
    assert found is not None and found.name == "test_bind_accepts_nested_loops_bound_to_one_thread_axis", str(e.value)
    return str(e.value)


def test_nested_binding_registered_as_a_known_bug() -> None:
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    spec = PrimFuncSpec("elementwise", (9, 17), (("depth", 2),), "int32", prologue=True, seed=35029)
    example = ScheduleExample(spec, (Step("blockize", "pre", (1,), (("preserve_unit_iters", False),)),
                                     Step("bind", "pre", (0,), (("thread", "blockIdx.x"),)),
                                     Step("bind_rest", "", (), (("threads", 1),))), prefix=1)
    assert_recognised("bind@cuda:sm_90", "gpu_bounds_safe_z3", example,
                      "test_bind_accepts_nested_loops_bound_to_one_thread_axis", ir="tir")


# --- bind inside a block that stages its output in a local cache ----------------------------------
#
# TVM 0.27 bug: a padding blockized at its row loop and cached in "local" memory (cache_write),
# then its column loop -- inside the outer block, under the cache -- bound to threadIdx.y. bind
# accepts it; the cache is one per thread in the kernel (registers), so each thread writes only
# its own column of its own copy, and the copy back, which every thread runs over every column,
# stores the other columns' garbage: different values into the same elements from the 13
# threads. bind should refuse a thread binding under the allocation of a local buffer that is
# read outside the bound loop (or the buffer be shared). Found by `bind --target cuda:sm_90
# --examples 500` (gpu_emulated_matches_cpu, gpu_threads_ordered).

def _local_columns():  # noqa: ANN202
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    return ScheduleExample(
        PrimFuncSpec("pool", (2, 2, 12, 13), (("op", "max"), ("kernel", (3, 3)), ("stride", (1, 3)), ("padding", (1, 0))),
                     "int32", symbolic=True, seed=2662),
        (Step("blockize", "pad", (2,), (("preserve_unit_iters", True),)),
         Step("cache_write", "pad", (), (("buffer", 0), ("scope", "local"))),
         Step("bind", "pad", (1,), (("thread", "threadIdx.y"),)), Step("bind_rest", "", (), (("threads", 1024),))),
        prefix=2)


def test_bind_under_a_local_cache_splits_the_cache_between_threads() -> None:
    import passcheck.properties.tir_gpu as G

    from passcheck.core.errors import Violation
    from passcheck.core.subject import Options, resolve

    case = resolve("bind@cuda:sm_90", "tir").make_case(_local_columns(), None, Options())
    joined = G._built(case).joined.script()
    # one copy per thread, each thread writing its own column and copying back all of them
    assert "pad_local = T.alloc_local((182,))" in joined
    assert "pad_local[y * 13 + threadIdx_y] =" in joined and "= pad_local[ax2 * 13 + ax3]" in joined
    with pytest.raises(Violation, match=r"uninitialised access\(es\), e\.g\. [^;]* reads pad_local\["):
        G.gpu_emulated_matches_cpu(case)
    assert_recognised("bind@cuda:sm_90", "gpu_threads_ordered", _local_columns(),
                      "test_bind_under_a_local_cache_splits_the_cache_between_threads", ir="tir")


def _bound_producer() -> object:
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    return ScheduleExample(
        PrimFuncSpec("elementwise", (1, 1), (("depth", 3),), prologue=True, seed=299, epilogue_op="clip"),
        (Step("split", "pre", (7,), (("factors", (None, 3, 3)), ("preserve_unit_iters", True))),
         Step("reverse_compute_at", "ew0", (6,), (("target", "pre"), ("preserve_unit_loops", False), ("index", -1))),
         Step("bind", "pre", (3,), (("thread", "threadIdx.z"),)),
         Step("bind_rest", "", (), (("threads", 8),))), 2)


def test_bind_of_a_producer_loop_leaves_its_consumer_to_every_thread() -> None:
    """``ew0`` computed at ``pre``'s loop i1_1, then ``pre``'s inner loop i1_2 bound to
    threadIdx.z: ``ew0``'s loop beside it runs in all three z threads, each reading ``pre[0]``,
    which thread z=0 wrote, with no barrier, and (StorageRewrite put ew0 in pre's buffer) writing
    it back in place. Found by `bind --target cuda:sm_90` (seed 0, the second run of 500)."""
    import passcheck.properties.tir_gpu as G

    from passcheck.core.subject import Options, resolve

    case = resolve("bind@cuda:sm_90", "tir").make_case(_bound_producer(), None, Options())
    joined = G._built(case).joined.script()
    assert 'threadIdx_z = T.launch_thread("threadIdx.z", 3)' in joined
    assert "pre_1[i1_1 * 3 + ax0] = pre[i1_1 * 3 + ax0] + Y_1[i1_1 * 3 + ax0]" in joined  # every z thread
    msg = assert_recognised("bind@cuda:sm_90", "gpu_threads_ordered", _bound_producer(),
                            "test_bind_of_a_producer_loop_leaves_its_consumer_to_every_thread", ir="tir")
    assert "reads pre[0]" in msg
    # The consumer's loop beside a serial loop that holds the bound one (transpose computed at
    # i1_0, pre's i1_2 under i1_1 bound to threadIdx.z): bind --target cuda, seed 0, a third run.
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    deeper = ScheduleExample(
        PrimFuncSpec("transpose", (1, 1, 17), (("perm", (0, 2, 1)),), prologue=True, epilogue=True, seed=65,
                     epilogue_op="clip"),
        (Step("split", "pre", (7,), (("factors", (None, 3, 3)), ("preserve_unit_iters", True))),
         Step("reverse_compute_at", "transpose", (6,), (("target", "pre"), ("preserve_unit_loops", False),
                                                        ("index", -1))),
         Step("bind", "pre", (3,), (("thread", "threadIdx.z"),)), Step("bind_rest", "", (), (("threads", 8),))),
        prefix=2)
    assert "reads pre[0]" in assert_recognised("bind@cuda:sm_90", "gpu_threads_ordered", deeper,
                                               "test_bind_of_a_producer_loop_leaves_its_consumer_to_every_thread",
                                               ir="tir")

