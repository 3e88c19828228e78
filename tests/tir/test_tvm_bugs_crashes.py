"""TVM 0.27 schedule primitives that crash the process (run in a child process, and through
passcheck's engine, whose worker dies: the crash is transformation_does_not_raise's finding).

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tvm_bug_repros import engine_recognises

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

RAISES = "transformation_does_not_raise"  # a crash while transforming is that property's finding


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
    ex = ScheduleExample(PrimFuncSpec("elementwise", (16, 2), (("depth", 2),), "int32"), (
        Step("reverse_compute_at", "ew1", (1,), (("target", "ew0"), ("preserve_unit_loops", True), ("index", -1))),
        Step("loop_partition", "ew0", (0,), (("factors", (None, 4)), ("preserve_unit_iters", True)))), prefix=1)
    assert "SIGSEGV" in engine_recognises("loop_partition", RAISES, ex,
                                          "test_loop_partition_segfaults_on_a_loop_with_two_blocks")
    # The same partition as the preparation of another primitive's example crashes that run.
    ex = ScheduleExample(ex.spec, (*ex.steps, Step("fuse_reduction_epilogue", "ew0", (), (("epilogue", "ew1"),))),
                         prefix=2)
    assert "SIGSEGV" in engine_recognises("fuse_reduction_epilogue", RAISES, ex,
                                          "test_loop_partition_segfaults_on_a_loop_with_two_blocks")
    # write_at puts its copy block beside the block, under the same loop (`schedule --examples
    # 2000`, seed 11): partitioning that loop crashes alike.
    ex = ScheduleExample(PrimFuncSpec("pad", (2,), (("pads", ((1, 2),)),), "int32"), (
        Step("write_at", "pad", (2,), (("buffer", 0), ("scope", "global"))),
        Step("loop_partition", "pad>0", (2,), (("factors", (4, None)), ("preserve_unit_iters", True)))))
    assert "SIGSEGV" in engine_recognises("schedule", RAISES, ex, "test_loop_partition_segfaults_on_a_loop_with_two_blocks")


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
    # As passcheck draws it: merge of two blocks' loops that reverse_compute_at made one loop.
    ex = ScheduleExample(PrimFuncSpec("elementwise", (3,), (("depth", 2),), "int32"), (
        Step("reverse_compute_at", "ew1", (0,), (("target", "ew0"), ("preserve_unit_loops", True), ("index", -1))),
        Step("merge", "ew0", (0,), (("other", "ew1"),))), prefix=1)
    assert "SIGSEGV" in engine_recognises("merge", RAISES, ex, "test_merge_of_a_loop_with_itself_segfaults")
    # As schedule --target cuda:sm_90 (500, seed 2026) met it: a block's loop merged with its own.
    own = ScheduleExample(PrimFuncSpec("elementwise", (3,), (("depth", 1),), "int32"),
                          (Step("merge", "ew0", (0,), (("other", "ew0"),)),), prefix=0)
    assert "SIGSEGV" in engine_recognises("merge", RAISES, own, "test_merge_of_a_loop_with_itself_segfaults")
    # And (the same campaign, rerun): the same two blocks merged twice; the first merge left them
    # one loop nest, so the second merges that loop with itself.
    twice = ScheduleExample(PrimFuncSpec("elementwise", (3,), (("depth", 2),), "int32"), (
        Step("merge", "ew0", (0,), (("other", "ew1"),)), Step("merge", "ew0", (0,), (("other", "ew1"),))), prefix=1)
    assert "SIGSEGV" in engine_recognises("merge", RAISES, twice, "test_merge_of_a_loop_with_itself_segfaults")
    # The second merge of three loops (`schedule --examples 2000`, seed 11: pad and pre merged,
    # then merged again with pad as the third).
    spec = PrimFuncSpec("pool", (1, 1, 1, 1), (("op", "max"), ("kernel", (3, 1)), ("stride", (2, 1)), ("padding", (1, 0))),
                        "int32", prologue=True)
    three = ScheduleExample(spec, (Step("merge", "pool<1", (1,), (("other", "pre"),)),
                                   Step("merge", "pool<1", (0,), (("other", "pre"), ("third", "pad")))))
    assert "SIGSEGV" in engine_recognises("schedule", RAISES, three, "test_merge_of_a_loop_with_itself_segfaults")
    # read_at's copy block sits in the nest of the block it copies for; merging the two is merging
    # a loop with itself (`schedule --examples 800`, seed 41)
    spec = PrimFuncSpec("broadcast", (1, 1), (("bdims", (False, False)),), "int32", prologue=True)
    copy = ScheduleExample(spec, (Step("read_at", "pre", (7,), (("buffer", 2), ("scope", "global"))),
                                  Step("merge", "pre<2", (0,), (("other", "pre"),))))
    assert "SIGSEGV" in engine_recognises("schedule", RAISES, copy, "test_merge_of_a_loop_with_itself_segfaults")
    # sample_compute_location computes `side` at join's loop; merging their loops is merging one
    # loop with itself (`schedule --examples 2000`, seed 5077)
    spec = PrimFuncSpec("reduce_beside", (2, 1), (("op", "max"),), "int64")
    sampled = ScheduleExample(spec, (Step("sample_compute_location", "side", (), (("decision", 1),)),
                                     Step("merge", "side", (0,), (("other", "join"),))))
    assert "SIGSEGV" in engine_recognises("schedule", RAISES, sampled, "test_merge_of_a_loop_with_itself_segfaults")
    # three loops merged, then two of them again: the other named the first merge's third
    # (`schedule --examples 2000`, seed 5077)
    spec = PrimFuncSpec("branch2", (1, 1, 1), (("left", 1), ("right", 1), ("join", "mul")), "int32", prologue=True)
    again = ScheduleExample(spec, (Step("merge", "join", (1,), (("other", "right0"), ("third", "pre"))),
                                   Step("merge", "join", (0,), (("other", "pre"),))))
    assert "SIGSEGV" in engine_recognises("schedule", RAISES, again, "test_merge_of_a_loop_with_itself_segfaults")
    # loop_partition of a 1-long loop with factors (None, 1) leaves one piece: both references to
    # its pieces name that one block, and merging them merges its loop with itself (seed 5077)
    one = ScheduleExample(PrimFuncSpec("elementwise", (1,), (("depth", 2),), "int32"), (
        Step("loop_partition", "ew0", (0,), (("factors", (None, 1)), ("preserve_unit_iters", False))),
        Step("merge", "ew0%1", (0,), (("other", "ew0%0"),))))
    assert "SIGSEGV" in engine_recognises("schedule", RAISES, one, "test_merge_of_a_loop_with_itself_segfaults")


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
    ex = ScheduleExample(PrimFuncSpec("reshape", (1, 1, 1), (("out_shape", (1, 1)),), "int32"), (
        Step("fuse", "reshape", (0,), (("count", 2), ("preserve_unit_iters", False))),
        Step("cache_index", "reshape", (), (("cse_thresh", 0),))), prefix=1)
    assert "SIGSEGV" in engine_recognises("cache_index", RAISES, ex, "test_cache_index_after_fusing_unit_loops_segfaults")


def test_reindex_of_the_copy_block_a_reindex_made_segfaults() -> None:
    """reindex of T_tile's read of x makes the copy block x_reindex_reindex, with no iterators,
    under the root; reindex of that block's own read then kills the process. Found by schedule
    --target cuda:sm_90 at 500 examples (seed 0); the CPU schedule crashes alike."""
    r = _child("""
        import tvm
        from tvm import s_tir
        from passcheck.tir.kernels import PrimFuncSpec, build_primfunc
        spec = PrimFuncSpec("legalized", (1,), (("op", "tile"), ("repeats", (1,))), "int64")
        sch = s_tir.Schedule(tvm.IRModule({"main": build_primfunc(spec)}))
        sch.reindex(sch.get_sblock("T_tile"), ("read", 0))
        assert not sch.get(sch.get_sblock("x_reindex_reindex")).iter_vars
        print("scheduled", flush=True)
        sch.reindex(sch.get_sblock("x_reindex_reindex"), ("read", 0))
        print("survived", flush=True)
    """)
    assert "scheduled" in r.stdout and "survived" not in r.stdout and r.returncode != 0
    ex = ScheduleExample(PrimFuncSpec("legalized", (1,), (("op", "tile"), ("repeats", (1,))), "int64"), (
        Step("reindex", "T_tile", (), (("kind", "read"), ("buffer", 1), ("buffer_as", "index"))),
        Step("reindex", "T_tile<1", (), (("kind", "read"), ("buffer", 1), ("buffer_as", "name")))))
    assert "SIGSEGV" in engine_recognises("schedule", RAISES, ex, "test_reindex_of_the_copy_block_a_reindex_made_segfaults")
