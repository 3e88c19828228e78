"""Kept repros of known TVM bugs (gpu_2): each an example passcheck draws, the subject it runs and the
property it fails, as plain data. The tests check these same examples (a test whose example is not
kept here fails).
"""

from passcheck.core.known import keep_repro, keep_script
from passcheck.tir.gpu.dlight import DlightExample
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

keep_repro('test_bind_under_a_local_cache_splits_the_cache_between_threads', 'bind@cuda:sm_90', 'gpu_threads_ordered',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(2, 2, 12, 13),
            attrs=(('op', 'max'), ('kernel', (3, 3)), ('stride', (1, 3)), ('padding', (1, 0))),
            symbolic=True, seed=2662,
        ),
        steps=(
            Step(prim='blockize', block='pad', loops=(2,), args=(('preserve_unit_iters', True),)),
            Step(prim='cache_write', block='pad', args=(('buffer', 0), ('scope', 'local'))),
            Step(prim='bind', block='pad', loops=(1,), args=(('thread', 'threadIdx.y'),)),
            Step(prim='bind_rest', args=(('threads', 1024),)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_cross_thread_reduction_under_a_host_loop_shares_its_accumulator', 'cross_thread_reduction@cuda:sm_90', 'gpu_no_lost_updates',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(6, 70), attrs=(('axes', (1,)), ('op', 'sum')), prologue=True, seed=2,
        ),
        steps=(
            Step(
                prim='cross_thread_reduction', block='red', loops=(1,),
                args=(('threads', 32), ('rfactor', False)),
            ),
            Step(prim='bind_rest', args=(('threads', 32),)),
        ),
    ), ir="tir")

keep_repro('test_reindex_read_after_reverse_compute_at_copies_before_the_producer', 'reindex', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(11, 2, 9), attrs=(('axes', (0, 2)), ('op', 'max')), index_dtype='int64',
            epilogue=True, seed=5, epilogue_op='clip',
        ),
        steps=(
            Step(
                prim='reverse_compute_at', block='post', loops=(0,),
                args=(('target', 'red'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='reindex', block='post', args=(('kind', 'read'), ('buffer', 0))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_a_launch_axis_of_extent_zero_runs_one_block', 'bind@cuda:sm_90', 'gpu_bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='matmul', shape=(0, 8), attrs=(('n', 8),), index_dtype='int64', symbolic=True,
            prologue=True, seed=527,
        ),
        steps=(
            Step(prim='bind', block='pre', loops=(0,), args=(('thread', 'blockIdx.x'),)),
            Step(prim='bind_rest', args=(('threads', 128),)),
        ),
    ), ir="tir")

# Its drawn example cannot be shipped as one: gpu_matches_cpu runs only kernels proved in bounds,
# and this one is not (gpu_bounds_safe_z3 sees the read past the empty input), so the example is
# discarded even on a GPU. The script runs the kernel anyway, in a child, as the GPU run did.
keep_script('test_the_gpu_faults_on_a_launch_axis_of_extent_zero', """
import subprocess
import sys
import tempfile

from passcheck.gpu import GpuTarget
from passcheck.gpu.device import cuda_device
from passcheck.core.subject import Options, resolve
from passcheck.tir.gpu.build import build
from passcheck.tir.gpu.execute import entry_for
from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

if cuda_device() is None:
    print("no CUDA device here: it shows only on a GPU")
    sys.exit(0)
# matmul of an input of shape (0, 8), its first loop bound to blockIdx.x: the host launches n = 0
# blocks, the runtime 1, and the kernel has no guard.
example = ScheduleExample(
    PrimFuncSpec("matmul", (0, 8), (("n", 8),), "int64", symbolic=True, prologue=True, seed=527),
    (Step("bind", "pre", (0,), (("thread", "blockIdx.x"),)), Step("bind_rest", "", (), (("threads", 128),))))
case = resolve("bind@cuda:sm_90", "tir").make_case(example, None, Options())
folder = tempfile.mkdtemp()
entry_for(case, build(case.after, GpuTarget()), folder, "gpu_matches_cpu")
subprocess.run([sys.executable, "-m", "passcheck.bundle", "run", folder], check=True, timeout=600)
from passcheck.gpu.bundle import entries

result = entries(folder)[0].result()
print(result)
if result["status"] == "error" and "cudaErrorIllegalAddress" in result["message"]:
    print("the kernel of a zero-size input makes an illegal memory access")
    sys.exit(1)
print("no illegal access: fixed, or it changed")
""")

# A block under no GPU loop builds into host code on device pointers; VerifyMemory passes it.
_COPY = """
import sys

import tvm
import tvm_ffi

copy = tvm.script.from_source('''
@T.prim_func(s_tir=True)
def copy(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] * T.float32(2)
''')
target = tvm.target.Target({"kind": "cuda", "arch": "sm_90"}, host={"kind": "llvm"})
mod = tvm.tirx.transform.BindTarget(target)(tvm.IRModule({"main": copy}))
"""

keep_script('test_verify_memory_misses_host_accesses_through_flattened_buffers', _COPY + """
seen = []


@tvm.instrument.pass_instrument
class Capture:
    def run_before_pass(self, mod, info):
        if info.name == "tirx.VerifyMemory":
            seen.append(mod)


with tvm.transform.PassContext(instruments=[Capture()]):
    tvm.tirx.get_default_tir_pipeline(target)[0](mod)
if seen and tvm_ffi.get_global_func("tirx.analysis.verify_memory")(seen[0]["main"]):
    print("VerifyMemory accepts a host function that stores the device buffer B")
    sys.exit(1)
print("VerifyMemory refuses the host accesses: fixed")
""")

# The call segfaults, so it runs in a child; without a GPU there is nothing to show (exit 0).
keep_script('test_a_block_left_on_the_host_segfaults_when_called', _COPY + """
import os
import subprocess
import tempfile

if not tvm.cuda(0).exist:
    print("no CUDA device here: it shows only on a GPU")
    sys.exit(0)
folder = tempfile.mkdtemp()
tvm.compile(mod, target=target).export_library(os.path.join(folder, "k.so"))
call = (
    "import sys, numpy as np, tvm; dev = tvm.cuda(0); lib = tvm.runtime.load_module(sys.argv[1]); "
    "a = tvm.runtime.tensor(np.ones(8, 'float32'), dev); b = tvm.runtime.tensor(np.zeros(8, 'float32'), dev); "
    "lib['main'](a, b); dev.sync()"
)
child = subprocess.run([sys.executable, "-c", call, os.path.join(folder, "k.so")])
if child.returncode == -11:
    print("calling the library segfaults (its host code dereferences device pointers)")
    sys.exit(1)
print(f"the call ended with exit code {child.returncode}")
""")

keep_script('test_dlight_reduction_of_an_empty_tensor_fails_an_internal_check', """
import sys

import tvm
from tvm import te
from tvm.s_tir import dlight as dl


def row_sum(rows):
    x = te.placeholder((rows, 5), "float32", name="X")
    k = te.reduce_axis((0, 5), "k")
    return te.create_prim_func([x, te.compute((rows,), lambda i: te.sum(x[i, k], axis=k), name="Y")])


with tvm.target.Target({"kind": "cuda", "arch": "sm_90"}):
    dl.ApplyDefaultSchedule(dl.gpu.Reduction())(tvm.IRModule({"main": row_sum(3)}))
    try:
        dl.ApplyDefaultSchedule(dl.gpu.Reduction())(tvm.IRModule({"main": row_sum(0)}))
    except tvm.error.InternalError as e:
        if "info.dom.IsNothing()" not in str(e):
            raise
        print("DLight's Reduction rule fails an internal check on a sum over no rows")
        sys.exit(1)
print("DLight schedules the empty reduction: fixed")
""")

keep_repro('test_dlight_fallback_inlines_an_epilogue_into_a_unit_reduction_twice', 'dlight@cuda:sm_90',
           'gpu_emulated_matches_cpu', DlightExample(PrimFuncSpec(kind='reduce_beside', shape=(4, 1), attrs=(('op', 'sum'),))),
           ir="tir")
keep_repro('test_dlight_fallback_inlines_an_epilogue_into_a_unit_reduction_twice', 'dlight@cuda:sm_90',
           'gpu_emulated_matches_cpu',
           DlightExample(PrimFuncSpec(kind='matmul', shape=(1, 1), attrs=(('n', 1),), symbolic=True, epilogue=True,
                                      seed=2, epilogue_op='relu_shift'), rules=('Matmul', 'Fallback')),
           ir="tir")

keep_repro('test_bind_of_a_producer_loop_leaves_its_consumer_to_every_thread', 'bind@cuda:sm_90', 'gpu_threads_ordered',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(1, 1), attrs=(('depth', 3),), prologue=True, seed=299,
                          epilogue_op='clip'),
        steps=(
            Step(prim='split', block='pre', loops=(7,), args=(('factors', (None, 3, 3)), ('preserve_unit_iters', True))),
            Step(prim='reverse_compute_at', block='ew0', loops=(6,),
                 args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', -1))),
            Step(prim='bind', block='pre', loops=(3,), args=(('thread', 'threadIdx.z'),)),
            Step(prim='bind_rest', args=(('threads', 8),)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_bind_of_a_producer_loop_leaves_its_consumer_to_every_thread', 'bind@cuda:sm_90', 'gpu_threads_ordered',
    ScheduleExample(
        spec=PrimFuncSpec(kind='transpose', shape=(1, 1, 17), attrs=(('perm', (0, 2, 1)),), prologue=True,
                          epilogue=True, seed=65, epilogue_op='clip'),
        steps=(
            Step(prim='split', block='pre', loops=(7,), args=(('factors', (None, 3, 3)), ('preserve_unit_iters', True))),
            Step(prim='reverse_compute_at', block='transpose', loops=(6,),
                 args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', -1))),
            Step(prim='bind', block='pre', loops=(3,), args=(('thread', 'threadIdx.z'),)),
            Step(prim='bind_rest', args=(('threads', 8),)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_bind_accepts_nested_loops_bound_to_one_thread_axis', 'schedule', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(1, 1), attrs=(('depth', 1),), symbolic=True, epilogue=True),
        steps=(
            Step(prim='bind', block='post', loops=(0,), args=(('thread', 'threadIdx.y'),)),
            Step(prim='bind', block='post', loops=(1,), args=(('thread', 'threadIdx.y'),)),
        ),
    ), ir="tir")
