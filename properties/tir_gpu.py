"""Properties of TIR built for a GPU (subjects run with ``--target cuda``, the ``gpu-target``
group): the kernel builds and NVRTC compiles it, every access of the code TVM's pipeline hands
to the CUDA codegen is proved in bounds (threadIdx/blockIdx ranges as loop ranges, shared and
local buffers as buffers, host loops around the launches), the launch fits the device, and --
on a GPU, here or through a bundle -- it computes what the CPU computes.
"""

from __future__ import annotations

import re
from typing import Any

from passcheck import Discard, Unknown, Violation, prop

# Build errors that diagnose the schedule, not the compiler: TVM checks these only when it
# builds. Each is a documented limit of the CUDA backend.
SCHEDULE_LIMITS = (
    # A global intermediate whose allocation lands inside a kernel (a producer computed under a
    # bound loop): the schedule must stage it in shared or local memory.
    r"Cannot allocate global memory when targeting CUDA",
    # A thread-local buffer sized by a shape var.
    r"Can only handle constant size stack allocation",
    # A block left outside every bound loop (bind_rest binds them all; a user's pass may not).
    r"Did you forget to bind",
)


# Z3 seconds for one kernel's bounds (its many accesses each get the per-query timeout): past
# it the rest are unknown, so that one example stays well inside the run's --timeout.
Z3_BUDGET_S = 15.0


def _first_line(e: BaseException) -> str:
    """The error's last line that says something (TVM ends some with a ^^^ source marker), after
    its ``Check failed`` line when it has one (others end with the IR the check was about)."""
    lines = [x.strip() for x in str(e).strip().splitlines() if re.search(r"[A-Za-z]", x)]
    last = lines[-1][:300] if lines else ""
    check = next((x for x in lines if "Check failed" in x), None)
    if check is not None and check != lines[-1]:
        return f"{type(e).__name__}: {check[:400]} ... {last}"
    return f"{type(e).__name__}: {last}"


def _gpu(case: Any) -> Any:
    if getattr(case, "gpu_target", None) is None:
        raise Discard("not built for a GPU target")
    if case.raised is not None or case.after is None:
        raise Discard("the transformation raised; nothing to build")
    return case.gpu_target


def _built(case: Any, judge: bool = False) -> Any:
    """The GPU build of ``case.after`` (memoized), or the reason there is none: a build error is
    ``builds_for_gpu``'s finding (``judge``) and discards the example for the others."""
    from passcheck.tir.gpu.build import build

    target = _gpu(case)

    def attempt() -> tuple[Any, BaseException | None]:
        try:
            return build(case.after, target), None
        except Exception as e:  # noqa: BLE001 - classified below
            return None, e

    built, error = case.memo(("gpu_build",), attempt)
    if error is None:
        return built
    first = _first_line(error)
    if any(re.search(p, str(error)) for p in SCHEDULE_LIMITS):
        raise Discard(f"the schedule is not buildable for {target.name} by design: {first}")
    if not judge:
        raise Discard(f"the build for {target.name} failed (builds_for_gpu reports it)")
    raise Violation(f"building the output of {case.subject} for {target.name} raised {first}; "
                    f"schedule:\n{case.trace_text()}")


@prop("gpu-target", ir="tir")
def builds_for_gpu(case: Any) -> None:
    """TVM's TIR pipeline and CUDA codegen accept the scheduled kernel (errors that diagnose
    the schedule itself, listed in ``SCHEDULE_LIMITS``, discard the example), and NVRTC
    compiles the CUDA C it writes for the target's arch."""
    from passcheck.tir.gpu.build import cubin_size
    from passcheck.tir.gpu.launch import host_accesses

    built = _built(case, judge=True)
    touched = host_accesses(built.joined)
    if touched:
        raise Violation(f"TVM built the output of {case.subject} for {case.gpu_target.name} with "
                        f"{', '.join(touched[:4])} accessed by the host code, outside every kernel launch: "
                        f"the CPU dereferences device memory when the function is called (SIGSEGV); "
                        f"schedule:\n{case.trace_text()}")
    try:
        cubin_size(built.source, case.gpu_target.arch)
    except RuntimeError as e:
        log = [x for x in str(e).splitlines() if "error" in x.lower()] or str(e).splitlines()
        raise Violation(f"NVRTC rejects the CUDA C that TVM wrote for {case.subject}: {log[0][:300]}; "
                        f"schedule:\n{case.trace_text()}") from None


def _gpu_bounds(case: Any) -> Any:
    from passcheck.tir.analysis import check_bounds, declared_buffers
    from passcheck.tir.gpu.launch import as_launched

    built = _built(case)
    # The flattened kernels index each buffer with one product of its dims: the shape vars range
    # where every buffer of the unscheduled function, intermediates too, can be indexed at all.
    domain = declared_buffers(case.original["main"])
    # Thread and block indices range over what the runtime launches: an extent of 0 launches 1.
    return case.memo(("gpu_bounds",), lambda: check_bounds(as_launched(built.joined), case.z3_timeout_ms,
                                                           Z3_BUDGET_S, domain))


def _preparation_out_of_bounds(case: Any) -> bool:
    """Do the preparatory steps alone (before the step under test) already access memory out of
    bounds, lowered for the CPU? As bounds_safe_z3 does, the step under test is not blamed: e.g.
    reindex of a padded read copies the unguarded region (a kept bug of reindex) before bind."""
    if not getattr(case, "prefix", 0) or case.before is None:
        return False
    try:
        return bool(case.bounds("before").violations)
    except Exception:  # noqa: BLE001 - the before module not checkable: judge the kernel alone
        return False


@prop("gpu-target", ir="tir")
def gpu_bounds_safe_z3(case: Any) -> None:
    """Every load and store of the kernels as TVM's pipeline hands them to the CUDA codegen
    (flattened, storage-rewritten, cross-thread reductions lowered, device intrinsics lowered)
    is in bounds: thread and block indices range over the extents the runtime launches (an
    extent the host computes as 0 launches 1), shared and local buffers are buffers, and the
    host loops around a launch keep their ranges. Z3, witnesses replayed; a timeout is unknown."""
    res = _gpu_bounds(case)
    if res.violations and _preparation_out_of_bounds(case):
        raise Discard("the preparatory steps already produce out-of-bounds accesses (their own subjects report it)")
    if res.violations:
        shown = "\n".join("  " + v.describe() for v in res.violations[:4])
        raise Violation(f"after {case.subject}, the GPU kernel accesses memory out of bounds:\n{shown}\n"
                        f"{zero_launch_note(_built(case).joined, res.violations)}schedule:\n{case.trace_text()}")
    if res.unknown:
        site, why = res.unknown[0]
        raise Unknown(f"GPU bounds unknown for {len(res.unknown)} access(es), e.g. {site}: {why}")


@prop("gpu-target", ir="tir")
def launch_within_device_limits(case: Any) -> None:
    """Each kernel's launch fits the device (threads per block and per axis, blocks per axis,
    static shared memory) whenever what the schedule itself binds and stages does, for every
    size a shape var may take; and no kernel launches more threads per block than the
    ``__launch_bounds__`` it was compiled with."""
    from passcheck.gpu import CUDA_LIMITS
    from passcheck.tir.gpu import launch

    built = _built(case)
    asked = [o for la in launch.scheduled_launches(case.after) for o in la.over(CUDA_LIMITS)]
    if asked:
        raise Discard(f"the schedule itself binds more than the device allows ({asked[0]})")
    for la in launch.launches(built.joined):
        over = la.over(CUDA_LIMITS)
        if over:
            raise Violation(f"after {case.subject}, a kernel launches beyond the device limits although every "
                            f"bound loop of the schedule fits: {over[0]}; schedule:\n{case.trace_text()}")
    used = launch.shared_bytes(built.joined)
    if used > CUDA_LIMITS.shared_bytes:
        from passcheck.tir.lowering import lower_to_loops

        asked_bytes = launch.shared_bytes(lower_to_loops(case.after))
        if asked_bytes > CUDA_LIMITS.shared_bytes:
            raise Discard(f"the schedule itself stages {asked_bytes} bytes in shared memory "
                          f"(> {CUDA_LIMITS.shared_bytes})")
        raise Violation(f"after {case.subject}, a kernel allocates {used} bytes of shared memory (> "
                        f"{CUDA_LIMITS.shared_bytes}) although the schedule stages only {asked_bytes}; "
                        f"schedule:\n{case.trace_text()}")
    promised = launch.launch_bounds(built.source)
    for name, la in launch.kernel_launches(built.device).items():
        if name in promised and la.threads <= CUDA_LIMITS.threads_per_block and la.threads > promised[name]:
            raise Violation(f"kernel {name} launches {la.threads} threads per block but is compiled with "
                            f"__launch_bounds__({promised[name]}); schedule:\n{case.trace_text()}")


def zero_launch_note(joined: Any, violations: list[Any]) -> str:
    """A line saying so when a witness launches an axis whose extent is 0 there."""
    from passcheck.tir.gpu.launch import empty_launches

    empty = empty_launches(joined, dict(violations[0].point)) if violations else []
    if not empty:
        return ""
    return (f"launched with {', '.join(empty[:2])}: TVM's runtime launches an axis of extent 0 as 1, "
            f"and nothing in the kernel guards it\n")


def _runnable(case: Any) -> None:
    """Discard what no GPU run may judge: an unsafe primitive, a kernel not proved in bounds."""
    if case.unsafe:
        raise Discard("an unsafe_ primitive voids the semantic contract")
    if getattr(case, "semantics_note", None):
        raise Discard(case.semantics_note)
    original = case.bounds("original")
    if not original.safe or not _gpu_bounds(case).safe:
        raise Discard("not executed: the kernel is not proved in bounds")


@prop("gpu-target", ir="tir")
def gpu_matches_cpu(case: Any) -> None:
    """On a CUDA device, the kernel computes what the unscheduled kernel computes on the CPU:
    bit for bit, or within the float32 reassociation bound of the float64 reference (a GPU sums
    in its own order and contracts FMAs). Only kernels proved in bounds run. Without a device
    here, ``--bundle DIR`` writes the kernel for a GPU machine (``python -m passcheck.bundle run
    DIR`` there, ``passcheck bundle check DIR`` back here)."""
    from passcheck.gpu.device import cuda_device
    from passcheck.tir.gpu import execute

    _gpu(case)
    built = _built(case)
    _runnable(case)
    if cuda_device() is not None:
        got = execute.run_on_device(case, built, "gpu_matches_cpu")
        bad = execute.compare_entry_spec(case.spec, got)
        if bad is not None:
            raise Violation(f"on the GPU, {case.subject} computes different values than the unscheduled kernel: "
                            f"{bad.describe()}; "
                            f"schedule:\n{case.trace_text()}")
        return
    if case.bundle_dir:
        entry = execute.entry_for(case, built, case.bundle_dir, "gpu_matches_cpu")
        raise Discard(f"no CUDA device here: written to the bundle as {entry.id}")
    raise Discard("no CUDA device here (--bundle DIR writes the kernel for a GPU machine)")


@prop("gpu-target", ir="tir")
def gpu_no_lost_updates(case: Any) -> None:
    """No two threads of one launch read-modify-write the same element of global or shared
    memory at once (a reduction's threads each keep their partial result in registers and
    TVM combines them across threads): such a store loses one thread's update. Z3 on the
    kernels as the codegen sees them, both threads' points replayed; a timeout is unknown."""
    from passcheck.tir.gpu.races import lost_updates

    built = _built(case)
    found, unknown = case.memo(("gpu_races",), lambda: lost_updates(built.joined, case.z3_timeout_ms))
    if found:
        raise Violation(f"after {case.subject}, GPU threads lose each other's updates: {found[0].describe()}; "
                        f"schedule:\n{case.trace_text()}")
    if unknown:
        raise Unknown(f"lost updates unknown: {unknown[0]}")


# Seconds for one example's emulation (each of up to three runs, within the 60 s an example gets
# by default): past it the check is unknown.
EMULATION_BUDGET_S = 12.0


def _emulated(case: Any, poison: str = "nan") -> Any:
    """The kernels of ``case.after`` as TVM launches them, emulated on the CPU (memoized per
    poison: what fresh memory holds), or the reason there is no emulation."""
    from passcheck.tir.gpu import execute, launch
    from passcheck.tir.gpu.emulate import OverBudget, Unsupported, emulate

    _gpu(case)
    built = _built(case)
    if case.unsafe:
        raise Discard("an unsafe_ primitive voids the semantic contract")
    if getattr(case, "semantics_note", None):
        raise Discard(case.semantics_note)
    if not case.bounds("original").safe:
        raise Discard("the unscheduled kernel is not proved in bounds")
    # No Z3 proof needed: the emulator checks every access at these sizes itself (a kernel out
    # of bounds only at other sizes -- a shape var of 0 -- still computes here).

    def go() -> tuple[Any, str]:
        try:
            return emulate(built.joined["main"], execute.call_args(case.spec), launch.host_launch_of(built),
                           EMULATION_BUDGET_S, poison), ""
        except (Unsupported, OverBudget) as e:
            return None, str(e)

    return case.memo(("gpu_emulation", poison), go)


def _emulation_facts(em: Any) -> str:
    out = [f"launched as {'; '.join(em.launches[:3])}{' ...' if len(em.launches) > 3 else ''}"]
    unwritten = {k: v for k, v in em.never_written.items() if v} if em.never_written else {}
    last = list(em.never_written)[-1] if em.never_written else None
    if last and unwritten.get(last):
        out.append(f"{unwritten[last]} elements of {last} are never written")
    for kind in ("uninitialised", "out of bounds", "race"):
        if em.problems.counts.get(kind):
            out.append(f"{em.problems.counts[kind]} {kind} access(es), e.g. {em.problems.first[kind][0]}")
    return "; ".join(out)


@prop("gpu-target", ir="tir")
def gpu_emulated_matches_cpu(case: Any) -> None:
    """The kernels as TVM launches them (the grid and blocks the host code asks for, every
    thread of each, ``passcheck.tir.gpu.emulate``), run thread by thread on the CPU, compute
    what the unscheduled kernel computes, within the bound of ``gpu_matches_cpu``; and the
    result does not depend on memory nothing wrote (run again with other garbage there). No GPU
    needed: this is what a GPU run would show of a block instance run zero times, twice, or
    before what it reads was written."""
    from passcheck.tir.gpu import execute

    em, why = _emulated(case)
    if em is None:
        raise Unknown(f"not emulated: {why}")
    if em.problems.counts.get("out of bounds") and not _gpu_bounds(case).safe:
        raise Discard("out of bounds at these sizes: gpu_bounds_safe_z3 reports it")
    bad = execute.compare_entry_spec(case.spec, em.outputs[-1])
    if bad is None and em.problems.counts.get("uninitialised"):
        from passcheck.tir.gpu.emulate_memory import POISONS

        for poison in POISONS[1:]:
            other, _ = _emulated(case, poison)
            bad = None if other is None else execute.compare_entry_spec(case.spec, other.outputs[-1])
            if bad is not None:
                em = other
                break
    if bad is not None:
        if case.unwritten_note():
            raise Discard("TVM's own unscheduled kernel leaves outputs unwritten (equivalent_by_execution reports it)")
        if _preparation_already_wrong(case):
            raise Discard("the preparatory steps alone already compute different values (their own subjects "
                          "report it)")
        raise Violation(f"after {case.subject}, the kernel as TVM launches it, emulated thread by thread, "
                        f"computes different values than the unscheduled kernel: {bad.describe()}; "
                        f"{_emulation_facts(em)}; schedule:\n{case.trace_text()}")
    if em.problems.counts.get("out of bounds"):
        raise Violation(f"after {case.subject}, the kernel as TVM launches it, emulated thread by thread, "
                        f"accesses memory out of bounds that Z3 proved in bounds: {_emulation_facts(em)}; "
                        f"schedule:\n{case.trace_text()}")


def _preparation_already_wrong(case: Any) -> bool:
    """Do the preparatory steps alone (run on the CPU, before any GPU binding) compute different
    values? Then the step under test is not to blame."""
    from passcheck.tir import execution as tir_exec

    if not case.prefix or case.before is None or not case.bounds("before").safe:
        return False
    try:
        got = tir_exec.run_scheduled(case.spec, case.before, case.lowered("before"))
    except Exception:  # noqa: BLE001 - a preparation that does not run is its own subject's finding
        return False
    return tir_exec.compare(case.spec, got, tir_exec.reference(case.spec), exact=not case.reassociates) is not None


@prop("gpu-target", ir="tir")
def gpu_threads_ordered(case: Any) -> None:
    """No two threads of one launch touch the same element, one of them writing a value that
    changes what the other sees, with nothing ordering them (a ``__syncthreads`` between the two
    in one block; across blocks, nothing does): each statement runs for all threads in lock step,
    and every access records which thread last wrote the element and when."""
    em, why = _emulated(case)
    if em is None:
        raise Unknown(f"not emulated: {why}")
    if em.problems.counts.get("out of bounds") and not _gpu_bounds(case).safe:
        raise Discard("out of bounds at these sizes: gpu_bounds_safe_z3 reports it")
    if em.problems.counts.get("race"):
        raise Violation(f"after {case.subject}, GPU threads race: {em.problems.counts['race']} unordered "
                        f"access(es), e.g. {em.problems.first['race'][0]}; schedule:\n{case.trace_text()}")
