"""Deliberately buggy GPU schedules: each must be caught without a GPU (tests/gpu/test_gpu_static.py,
tests/gpu/test_gpu_emulation.py). Two go out of bounds (``gpu_bounds_safe_z3``), one loses
updates across threads (``gpu_no_lost_updates``; on a GPU it also computes wrong sums), one
leaves its blocks on the host (``builds_for_gpu``), one binds two nested loops to one axis
(``gpu_emulated_matches_cpu``)."""

from __future__ import annotations

import re
from typing import Any

from passcheck.tir.schedule import Step, get_block, loop_at


def overshooting_bind(sch: Any, step: Step) -> str:
    """``bind_threads`` without the tail guard: the last block's threads run past the loop."""
    loop = loop_at(sch, get_block(sch, step.block), step.loops[0])
    outer, inner = sch.split(loop, [None, step.arg["threads"]], disable_predication=True)
    sch.bind(outer, "blockIdx.x")
    sch.bind(inner, "threadIdx.x")
    return f"split by {step.arg['threads']} without its guard, bound"


def short_shared_cache(mod: Any) -> Any:
    """Stage the first block's first read in shared memory per GPU block -- and allocate the
    shared tile one row short (the pass returns the module lowered to loops)."""
    import tvm
    from tvm import s_tir

    from passcheck.tir.lowering import lower_to_loops
    from passcheck.tir.schedule import block_names
    from passcheck.tir.schedule.primitives.gpu import is_bound, split_bind

    sch = s_tir.Schedule(mod)
    for name in block_names(sch):
        b = sch.get_sblock(name)
        loops = sch.get_loops(b)
        if not loops or any(is_bound(sch, lp) for lp in loops) or not sch.get(b).reads:
            continue
        try:
            outer, _ = split_bind(sch, loops[0], 4)
            sch.compute_at(sch.cache_read(b, 0, "shared"), outer)
        except s_tir.ScheduleError:
            sch = s_tir.Schedule(mod)
            continue
        # Lowered first, so that the allocation is the compacted tile TVM would allocate.
        text = lower_to_loops(sch.mod).script()
        short = re.sub(r"T\.alloc_shared\(\((\d+),", lambda m: f"T.alloc_shared(({max(1, int(m[1]) - 1)},",
                       text, count=1)
        return tvm.script.from_source(short)
    return mod


def forgotten_cross_thread_reduction(mod: Any) -> Any:
    """Reduce across GPU threads -- the first reduction loop split by 4, its inner part bound to
    threadIdx.x -- and lower without TVM's cross-thread step (LowerCrossThreadReduction), as a
    hand-written kernel that forgets to combine the threads' partial sums: every thread adds
    into the output element at once (the pass returns the module lowered to loops)."""
    import tvm
    from tvm import s_tir

    from passcheck.tir.lowering import _prefix_passes
    from passcheck.tir.schedule import block_names
    from passcheck.tir.schedule.primitives.gpu import is_bound, split_bind

    sch = s_tir.Schedule(mod)
    for name in block_names(sch):
        b = sch.get_sblock(name)
        loops = sch.get_loops(b)
        kinds = [iv.iter_type for iv in sch.get(b).iter_vars]
        if not loops or any(is_bound(sch, lp) for lp in loops) or 2 not in kinds or 0 not in kinds:
            continue
        try:
            split_bind(sch, loops[0], 1)  # one thread per output element along the first loop...
            _, inner = sch.split(sch.get_loops(b)[-1], [None, 4])  # the innermost: a reduction loop
            sch.bind(inner, "threadIdx.y")  # ...and four threads share its reduction
        except s_tir.ScheduleError:
            sch = s_tir.Schedule(mod)
            continue
        forgetful = [p for p in _prefix_passes() if "CrossThread" not in type(p).__name__
                     and "CrossThread" not in str(p.info.name)]
        return tvm.transform.Sequential(forgetful)(sch.mod)
    return mod


def vthread_only(mod: Any) -> Any:
    """Bind every block's outermost loop to vthread.x -- and nothing to blocks or threads -- and
    hand the module over lowered (so no completion binds it after): TVM builds it into host code
    that touches device memory (the pass returns the module lowered to loops)."""
    from tvm import s_tir

    from passcheck.tir.lowering import lower_to_loops
    from passcheck.tir.schedule import block_names

    sch = s_tir.Schedule(mod)
    for name in block_names(sch):
        loops = sch.get_loops(sch.get_sblock(name))
        if loops:
            sch.bind(loops[0], "vthread.x")
    return lower_to_loops(sch.mod)


def nested_same_axis(sch: Any, step: Step) -> str:
    """Split the block's first two loops by 4 each and bind both splits to blockIdx.x and
    threadIdx.x: the second pair nested in the first, one launch index for two loops."""
    b = get_block(sch, step.block)
    first, second = sch.get_loops(b)[:2]
    for loop in (second, first):
        outer, inner = sch.split(loop, [None, 4])
        sch.bind(outer, "blockIdx.x")
        sch.bind(inner, "threadIdx.x")
    return "both loops split by 4 and bound to blockIdx.x/threadIdx.x"

