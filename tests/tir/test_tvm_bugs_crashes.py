"""TVM 0.27 schedule primitives that crash the process (run in a child process).

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def test_loop_partition_segfaults_on_a_loop_with_two_blocks() -> None:
    r = _child("""
        from tvm import s_tir
        from passcheck.tir.kernels import PrimFuncSpec, build_primfunc
        sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("elementwise", (16, 2), (("depth", 2),), "int32")))
        sch.reverse_compute_at("ew1", sch.get_loops("ew0")[1])
        print("scheduled", flush=True)
        sch.loop_partition(sch.get_loops("ew0")[0], [None, 4])
        print("survived", flush=True)
    """)
    assert "scheduled" in r.stdout and "survived" not in r.stdout and r.returncode != 0


def test_merge_of_a_loop_with_itself_segfaults() -> None:
    r = _child("""
        from tvm import s_tir
        from passcheck.tir.kernels import PrimFuncSpec, build_primfunc
        sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("elementwise", (3,), (("depth", 1),), "int32")))
        loop = sch.get_loops("ew0")[0]
        print("scheduled", flush=True)
        sch.merge(loop, loop)
        print("survived", flush=True)
    """)
    assert "scheduled" in r.stdout and "survived" not in r.stdout and r.returncode != 0


def test_cache_index_after_fusing_unit_loops_segfaults() -> None:
    """Found by the 2,000-example cache_index campaign (twice): not a corrupted worker, it
    reproduces alone."""
    r = _child("""
        from tvm import s_tir
        from passcheck.tir.kernels import PrimFuncSpec, build_primfunc
        sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("reshape", (1, 1, 1), (("out_shape", (1, 1)),), "int32")))
        sch.fuse(*sch.get_loops("reshape"), preserve_unit_iters=False)
        print("scheduled", flush=True)
        sch.cache_index(sch.get_sblock("reshape"), "global", cse_thresh=0)
        print("survived", flush=True)
    """)
    assert "scheduled" in r.stdout and "survived" not in r.stdout and r.returncode != 0
