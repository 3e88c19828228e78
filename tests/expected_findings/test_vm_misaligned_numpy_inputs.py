"""TVM 0.27 bug: a module built at opt level >= 2 for this machine's CPU (``-mcpu=<host>``)
segfaults when its inputs are NumPy arrays that are not 64-byte aligned.

The VM accepts NumPy arrays as inputs (the TVM notes show it) and hands their memory to the
kernels without copying. The kernels declare their buffers 64-byte aligned, and at opt level
2 and 3 LLVM uses aligned vector loads (AVX2/AVX-512) on them; NumPy only guarantees 16
bytes. An input 16 bytes past a 64-byte boundary kills the process -- in the default
pipeline as well as the optimizing one. At opt level 0, for a generic CPU, or with the inputs
passed as TVM tensors (TVM copies them to aligned memory) the same module runs and is
right. Neither the VM nor the kernel checks the alignment it relies on. Found by ``passcheck
pipeline`` (a crash in ``every_build_runs``), first as random crashes: whether a NumPy array
happens to be 64-byte aligned depends on the allocator.

Which hosts fault: the crash needs a 64-byte aligned vector move on an input, which LLVM emits
for AVX-512 hosts. On an AMD EPYC (znver3, AVX2 only) the same modules built at opt level 3
for znver3, haswell, skylake and x86-64-v3 all ran with inputs 16 bytes off (VEX-encoded
arithmetic folds the loads, and those do not check alignment): the defect -- no copy, no
check -- is there too, but nothing faults, so the crash tests need an AVX-512 host.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (4, 8), "float32", False), TensorDecl("c1", (8, 5), "float32", True, seed=2)),
    nodes=(Node("matmul", (0, 1), (), (4, 5), "float32"), Node("exp", (2,), (), (4, 5), "float32"),
           Node("sum", (3,), (("axis", (1,)), ("keepdims", False)), (4,), "float32")),
    outputs=(4,),
)
EXAMPLE = PipelineBuilds(GRAPH, (Build("default", 3, "host"),), misaligned=16)


def _host_has_wide_vectors() -> bool:
    import tvm
    from tvm.target import codegen

    host = tvm.target.Target({"kind": "llvm", "mcpu": codegen.llvm_get_system_cpu()})
    return bool(codegen.llvm_cpu_has_features(["avx512f"], host))


needs_avx = pytest.mark.skipif(not _host_has_wide_vectors(), reason="the host CPU has no AVX-512: the kernels' "
                               "loads of the inputs fold into VEX instructions, which do not fault when misaligned")

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np, tvm
    from tvm import relax
    from passcheck.relax.build import build_module
    from passcheck.relax.pipeline import misaligned_copy, target, Build
    from passcheck.relax.spec import GraphSpec, Node, TensorDecl, input_arrays
    GRAPH = {graph}
    build = Build("default", int(sys.argv[1]), sys.argv[2])
    with tvm.transform.PassContext(opt_level=build.opt_level):
        ex = tvm.compile(build_module(GRAPH), target=target(build))
    vm = relax.VirtualMachine(ex, tvm.cpu())
    (x,) = input_arrays(GRAPH)
    out = vm["main"](misaligned_copy(x, int(sys.argv[3]))).numpy()
    print("ran", float(out.sum()))
""")


def _run(opt: int, cpu: str, offset: int) -> subprocess.CompletedProcess[str]:
    code = SCRIPT.format(graph=repr(GRAPH))
    return subprocess.run([sys.executable, "-c", code, str(opt), cpu, str(offset)], capture_output=True,
                          text=True, timeout=300)


@needs_avx
def test_misaligned_numpy_inputs_still_crash_optimised_host_code() -> None:
    assert _run(3, "host", 16).returncode == -11  # SIGSEGV
    assert "ran" in _run(3, "host", 0).stdout  # aligned: fine
    assert "ran" in _run(0, "host", 16).stdout  # opt level 0: fine
    assert "ran" in _run(3, "generic", 16).stdout  # no wide vectors: fine


@needs_avx
def test_passcheck_reports_it() -> None:
    assert recheck("pipeline", "every_build_runs", EXAMPLE) == 1


@needs_avx
def test_vm_misaligned_numpy_inputs() -> None:
    assert_recognised("pipeline", "every_build_runs", EXAMPLE, "test_vm_misaligned_numpy_inputs")
