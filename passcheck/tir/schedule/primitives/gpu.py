"""GPU schedules: binding loops to blocks and threads within the device limits, shared and
local caches, cross-thread reductions, decompose_reduction under bound loops, and
``bind_rest``, the step that binds whatever a schedule left unbound so the kernel builds.

They are ordinary primitives (``passcheck bind_threads`` checks one symbolically on the CPU);
with ``--target cuda`` every example ends with ``bind_rest`` and is built for the GPU. The
thread counts drawn stay within ``CUDA_LIMITS`` (1024 threads per block, 64 along z): a
launch the device cannot run is the schedule's mistake, not a miscompilation.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.gpu import CUDA_LIMITS
from passcheck.tir.schedule.drawing import pick_loop, pick_stage, reduction
from passcheck.tir.schedule.registry import REDUCING, Primitive, register_primitive
from passcheck.tir.schedule.step import (
    Step,
    StepNotApplicable,
    get_block,
    loop_at,
    loops_of,
    name_of,
    region_buffer,
)
from passcheck.tir.schedule.view import View

# Odd counts and counts larger than the loop: where tail guards and idle threads appear.
THREADS = (1, 2, 3, 4, 7, 8, 16, 32, 64, 128, 256, 1024)
AXES = ("x", "y", "z")


def _threads(draw: st.DrawFn, axis: str = "x") -> int:
    limit = CUDA_LIMITS.extent_limit(f"threadIdx.{axis}") or CUDA_LIMITS.threads_per_block
    return draw(st.sampled_from([t for t in THREADS if t <= limit]))


def is_bound(sch: Any, loop: Any) -> bool:
    from tvm import tirx

    return sch.get(loop).kind == tirx.ForKind.THREAD_BINDING


def split_bind(sch: Any, loop: Any, threads: int, axis: str = "x") -> tuple[Any, Any]:
    """``loop`` split by ``threads``: the outer part to ``blockIdx.<axis>``, the inner to
    ``threadIdx.<axis>`` (TVM guards the tail when ``threads`` does not divide the extent)."""
    outer, inner = sch.split(loop, [None, threads])
    sch.bind(outer, f"blockIdx.{axis}")
    sch.bind(inner, f"threadIdx.{axis}")
    return outer, inner


# --------------------------------------------------------------------------------------------
# bind_threads: one loop to blocks x threads
# --------------------------------------------------------------------------------------------


def _draw_bind_threads(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    axis = draw(st.sampled_from(AXES))
    return Step("bind_threads", s.name, (pick_loop(draw, s, "S"),), (("threads", _threads(draw, axis)), ("axis", axis)))


def _apply_bind_threads(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    split_bind(sch, loop, step.arg["threads"], step.arg["axis"])
    ax = step.arg["axis"]
    return (f"bx, tx = sch.split({lname!r} of {step.block!r}, [None, {step.arg['threads']}]); "
            f"sch.bind(bx, 'blockIdx.{ax}'); sch.bind(tx, 'threadIdx.{ax}')")


register_primitive(Primitive("bind_threads", _draw_bind_threads, _apply_bind_threads,
                             "split a loop over GPU blocks x threads (within the device limits)", executable=False, gpu_only=True))


# --------------------------------------------------------------------------------------------
# cache_shared / cache_local: staging through on-chip memory
# --------------------------------------------------------------------------------------------


def _draw_cache_shared(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("cache_shared", s.name, (pick_loop(draw, s, "S"),),
                (("buffer", draw(st.integers(0, 2))), ("threads", _threads(draw)),
                 ("cooperative", draw(st.booleans()))))


def _apply_cache_shared(sch: Any, step: Step) -> str:
    """Bind the consumer's loop over blocks x threads, stage the read buffer in shared memory
    under the block loop, and (cooperative) fetch it with the block's threads."""
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    j, _ = region_buffer(sch, b, "read", step.arg["buffer"])
    t = step.arg["threads"]
    outer, _ = split_bind(sch, loop, t)
    cache = sch.cache_read(b, j, "shared")
    sch.compute_at(cache, outer)
    line = (f"bx, tx = sch.split({lname!r} of {step.block!r}, [None, {t}]) (bound); "
            f"c = sch.cache_read({step.block!r}, {j}, 'shared'); sch.compute_at(c, bx)")
    copy = loops_of(sch, cache)[len(loops_of(sch, cache)) - _inner_count(sch, cache, outer):]
    if step.arg.get("cooperative") and copy:
        fused = sch.fuse(*copy) if len(copy) > 1 else copy[0]
        _, tx = sch.split(fused, [None, t])
        sch.bind(tx, "threadIdx.x")
        line += f"; the copy's loops fused, split by {t}, inner bound to threadIdx.x"
    return line


def _inner_count(sch: Any, block: Any, at: Any) -> int:
    """How many of ``block``'s loops are below ``at``."""
    loops = loops_of(sch, block)
    for i, lp in enumerate(loops):
        if sch.get(lp).same_as(sch.get(at)):
            return len(loops) - i - 1
    return len(loops)


register_primitive(Primitive("cache_shared", _draw_cache_shared, _apply_cache_shared,
                             "stage a read buffer in shared memory per GPU block (cooperative fetch)",
                             executable=False, gpu_only=True))


def _draw_cache_local(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view)
    return Step("cache_local", s.name, (pick_loop(draw, s, "S"),), (("threads", _threads(draw)),))


def _apply_cache_local(sch: Any, step: Step) -> str:
    """Bind the block's loop over blocks x threads and accumulate its output in registers,
    written back under the thread loop."""
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    t = step.arg["threads"]
    _, inner = split_bind(sch, loop, t)
    cache = sch.cache_write(b, 0, "local")
    sch.reverse_compute_at(cache, inner)
    return (f"bx, tx = sch.split({lname!r} of {step.block!r}, [None, {t}]) (bound); "
            f"c = sch.cache_write({step.block!r}, 0, 'local'); sch.reverse_compute_at(c, tx)")


register_primitive(Primitive("cache_local", _draw_cache_local, _apply_cache_local,
                             "accumulate a block's output in thread-local memory", executable=False, gpu_only=True))


# --------------------------------------------------------------------------------------------
# Reductions across threads, and their init under bound loops
# --------------------------------------------------------------------------------------------


def _draw_cross_thread_reduction(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    return Step("cross_thread_reduction", s.name, (pick_loop(draw, s, "R"),),
                (("threads", _threads(draw)), ("rfactor", draw(st.booleans()))))


def _apply_cross_thread_reduction(sch: Any, step: Step) -> str:
    """Split a reduction loop by ``threads`` and bind the inner part to ``threadIdx.x``: the
    threads' partial results are combined by TVM's cross-thread reduction (with ``rfactor``,
    from a factored block of partial results)."""
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    t = step.arg["threads"]
    _, inner = sch.split(loop, [None, t])
    if step.arg.get("rfactor"):
        rf = sch.rfactor(inner, 0)
        tx = [lp for lp in loops_of(sch, rf) if name_of(sch, lp) == name_of(sch, inner)]
        if not tx:
            raise StepNotApplicable("the factored loop is gone after rfactor")
        sch.bind(tx[0], "threadIdx.x")
        return (f"ko, ki = sch.split({lname!r} of {step.block!r}, [None, {t}]); rf = sch.rfactor(ki, 0); "
                f"sch.bind(<ki of rf>, 'threadIdx.x')")
    sch.bind(inner, "threadIdx.x")
    return f"ko, ki = sch.split({lname!r} of {step.block!r}, [None, {t}]); sch.bind(ki, 'threadIdx.x')"


register_primitive(Primitive("cross_thread_reduction", _draw_cross_thread_reduction,
                             _apply_cross_thread_reduction, "reduce across GPU threads (optionally via rfactor)",
                             kinds=REDUCING, reassociates=True, executable=False, gpu_only=True))


def _draw_decompose_bound(draw: st.DrawFn, view: View) -> Step:
    s = pick_stage(draw, view, reduction)
    return Step("decompose_reduction_bound", s.name, (pick_loop(draw, s, "R"),), (("threads", _threads(draw)),))


def _apply_decompose_bound(sch: Any, step: Step) -> str:
    """Bind the reduction block's outer loop over blocks x threads, then separate its init
    block at a loop under them."""
    b = get_block(sch, step.block)
    first = name_of(sch, loops_of(sch, b)[0]) if loops_of(sch, b) else ""
    t = step.arg["threads"]
    split_bind(sch, loop_at(sch, b, 0), t)
    free = [lp for lp in loops_of(sch, b) if not is_bound(sch, lp)]
    if not free:
        raise StepNotApplicable("no loop left under the bound ones")
    at = free[step.loops[0] % len(free)]
    lname = name_of(sch, at)
    sch.decompose_reduction(b, at)
    return (f"bx, tx = sch.split({first!r} of {step.block!r}, [None, {t}]) (bound); "
            f"sch.decompose_reduction({step.block!r}, {lname!r})")


register_primitive(Primitive("decompose_reduction_bound", _draw_decompose_bound, _apply_decompose_bound,
                             "separate a reduction's init block under GPU-bound loops", kinds=REDUCING,
                             executable=False, gpu_only=True))


# --------------------------------------------------------------------------------------------
# bind_rest: what a GPU example ends with
# --------------------------------------------------------------------------------------------


def _draw_bind_rest(draw: st.DrawFn, view: View) -> Step:
    return Step("bind_rest", "", (), (("threads", _threads(draw)),))


def on_gpu_threads(sch: Any, loop: Any) -> bool:
    """Is ``loop`` bound to a GPU block or thread index? (A virtual thread is not one: TVM
    unrolls it into the code around it, which without a real binding is the host's.)"""
    from tvm import tirx

    lp = sch.get(loop)
    return lp.kind == tirx.ForKind.THREAD_BINDING and str(lp.thread_binding.thread_tag).startswith(
        ("blockIdx.", "threadIdx."))


def bind_rest(sch: Any, threads: int) -> list[str]:
    """Bind every block that runs outside loops bound to GPU blocks or threads (a loop bound to
    vthread.x alone leaves it on the host): its outermost loop over blocks x ``threads`` when
    TVM accepts that, else a unit loop above the nest to one GPU block (a single thread runs
    the nest). Returns what it did, one line per nest."""
    done = []
    for name in _outermost_blocks(sch):
        b = sch.get_sblock(name)
        loops = loops_of(sch, b)
        if any(on_gpu_threads(sch, lp) for lp in loops):
            continue
        if loops and _try_split_bind(sch, loops[0], threads):
            done.append(f"bx, tx = sch.split(<outermost loop of {name!r}>, [None, {threads}]) (bound)")
            continue
        loops = loops_of(sch, b)
        unit = sch.add_unit_loop(loops[0] if loops else b)
        sch.bind(unit, "blockIdx.x")
        done.append(f"sch.bind(sch.add_unit_loop(<outermost loop of {name!r}>), 'blockIdx.x')")
    return done


def _outermost_blocks(sch: Any) -> list[str]:
    """The blocks directly under the root block, in program order: a block nested in another
    (blockize makes one, its init another) runs wherever its outer block runs. (TVM's
    get_sblock fails an internal check on a block inside a ``T.init()``: a kept repro,
    tests/gpu/test_tvm_bugs_gpu.py.)"""
    import tvm_ffi
    from tvm import s_tir

    names: list[str] = []

    def on_block(b: Any, visitor: Any) -> None:
        if b.name_hint == "root":
            visitor.visit(b.body)
        else:
            names.append(b.name_hint)

    tvm_ffi.structural_visit(sch.mod["main"].body, [(s_tir.SBlock, on_block)])
    return names


def _try_split_bind(sch: Any, loop: Any, threads: int) -> bool:
    """Split-and-bind ``loop`` in a copy first: TVM refuses a loop that is not data parallel,
    and a refused bind must not leave the split behind."""
    from tvm.s_tir import ScheduleError

    trial = sch.copy()
    try:
        split_bind(trial, loop, threads)
    except ScheduleError:
        return False
    split_bind(sch, loop, threads)
    return True


def _apply_bind_rest(sch: Any, step: Step) -> str:
    done = bind_rest(sch, step.arg["threads"])
    return "; ".join(done) if done else "# bind_rest: every block already runs under bound loops"


register_primitive(Primitive("bind_rest", _draw_bind_rest, _apply_bind_rest,
                             "bind every block left outside GPU-bound loops (ends every GPU example)",
                             executable=False, gpu_only=True))
