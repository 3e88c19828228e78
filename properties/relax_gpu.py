"""Properties of a Relax pass's output built for a GPU (``--target cuda``, the
``relax-gpu-target`` group): the differential the seeds ask for -- the same module built for
``llvm`` and for ``cuda`` -- plus the static checks of the CUDA build (NVRTC, Z3 on every
kernel TVM's CUDA pipeline schedules and lowers).
"""

from __future__ import annotations

import re
from typing import Any

from passcheck import Discard, Unknown, Violation, prop


def _first_line(e: BaseException) -> str:
    """The error's last line that says something (TVM ends some with a ^^^ source marker), after
    its ``Check failed`` line when it has one (others end with the IR the check was about)."""
    lines = [x.strip() for x in str(e).strip().splitlines() if re.search(r"[A-Za-z]", x)]
    last = lines[-1][:300] if lines else ""
    check = next((x for x in lines if "Check failed" in x), None)
    if check is not None and check != lines[-1]:
        return f"{type(e).__name__}: {check[:400]} ... {last}"
    return f"{type(e).__name__}: {last}"


def _target(case: Any) -> Any:
    if getattr(case, "gpu_target", None) is None:
        raise Discard("not built for a GPU target")
    if case.after is None:
        raise Discard("the pass raised")
    return case.gpu_target


def _compiled(case: Any, judge: bool = False) -> Any:
    """``tvm.compile`` of the pass's output for the GPU target (memoized), as TVM's default
    CUDA pipeline builds it: a failure is ``relax_builds_for_gpu``'s finding (``judge``), and
    discards the example for the other properties."""
    import tvm

    target = _target(case)

    def attempt() -> tuple[Any, BaseException | None]:
        try:
            return tvm.compile(case.after, target=target.tvm_target()), None
        except Exception as e:  # noqa: BLE001
            return None, e

    ex, error = case.memo(("relax_gpu_compile",), attempt)
    if error is not None and not judge:
        raise Discard(f"the build for {target.name} failed (relax_builds_for_gpu reports it)")
    if error is not None:
        raise Violation(f"building the output of {case.subject} for {target.name} raised {_first_line(error)}")
    return ex


def _cuda_source(module: Any) -> str:
    out = [module.inspect_source()] if getattr(module, "kind", "") == "cuda" else []
    for m in module.imports:
        out.append(_cuda_source(m))
    return "\n".join(s for s in out if s)


@prop("relax-gpu-target", ir="relax")
def relax_builds_for_gpu(case: Any) -> None:
    """The pass's output builds for the GPU with TVM's CUDA pipeline (LegalizeOps, fusion,
    DLight's default schedules, the TIR pipeline) and NVRTC compiles the CUDA C for the arch."""
    from passcheck.tir.gpu.build import cubin_size

    ex = _compiled(case, judge=True)
    source = _cuda_source(ex.mod)
    if not source:
        raise Discard("no CUDA kernel in the build (nothing runs on the device)")
    try:
        cubin_size(source, case.gpu_target.arch)
    except RuntimeError as e:
        log = [x for x in str(e).splitlines() if "error" in x.lower()] or str(e).splitlines()
        raise Violation(f"NVRTC rejects the CUDA C TVM wrote for {case.subject}'s output: {log[0][:300]}") from None


def _kernels(case: Any) -> Any:
    """The PrimFuncs of the output as TVM's CUDA pipeline schedules them (DLight), built by the
    TIR pipeline for the GPU (``passcheck.tir.gpu.build``)."""
    import tvm
    from tvm import relax, tirx

    from passcheck.tir.gpu.build import build

    target = _target(case)

    def go() -> Any:
        tgt = target.tvm_target()
        with tgt:
            lowered = relax.get_default_pipeline(tgt)(case.after)
        funcs = {g: f for g, f in lowered.functions_items() if isinstance(f, tirx.PrimFunc)}
        return build(tvm.IRModule(funcs), target) if funcs else None

    return case.memo(("relax_gpu_kernels",), go)


@prop("relax-gpu-target", ir="relax")
def relax_gpu_bounds_safe_z3(case: Any) -> None:
    """Every load and store of the GPU kernels of the pass's output (as the CUDA codegen sees
    them: thread ranges as the runtime launches them -- an extent of 0 launches 1 --, shared
    buffers, host loops) is in bounds; Z3, witnesses replayed."""
    _compiled(case)  # a build failure is relax_builds_for_gpu's finding
    built = _kernels(case)
    if built is None:
        raise Discard("no PrimFunc in the build")
    res = case.memo(("relax_gpu_bounds",), lambda: _bounds(built))
    if res.violations:
        from passcheck.tir.gpu.launch import empty_launches

        shown = "\n".join("  " + v.describe() for v in res.violations[:4])
        empty = empty_launches(built.joined, dict(res.violations[0].point))
        note = (f"\nlaunched with {', '.join(empty[:2])}: TVM's runtime launches an axis of extent 0 as 1, "
                f"and nothing in the kernel guards it") if empty else ""
        raise Violation(f"the GPU kernels of {case.subject}'s output access memory out of bounds:\n{shown}{note}")
    if res.unknown:
        raise Unknown(f"GPU bounds unknown for {len(res.unknown)} access(es), e.g. {res.unknown[0][0]}")


@prop("relax-gpu-target", ir="relax")
def relax_gpu_matches_cpu(case: Any) -> None:
    """The pass's output built for ``cuda`` and run on a GPU computes what it computes built for
    ``llvm``: bit for bit, or within the float64 reference's error bound (the accumulation-
    aware bound holds for any summation order, so it covers the GPU's own). Without a device
    here, ``--bundle DIR`` writes the build for a GPU machine. Only modules whose kernels are
    proved in bounds run."""
    import tempfile

    from passcheck.core.data import document
    from passcheck.gpu.bundle import new_entry
    from passcheck.gpu.device import cuda_device
    from passcheck.gpu.runner import run_entry
    from passcheck.relax.execution import bitwise_equal

    ex = _compiled(case)
    built = _kernels(case)
    if built is None or not case.memo(("relax_gpu_bounds",), lambda: _bounds(built)).safe:
        raise Discard("not executed: the GPU kernels are not proved in bounds")
    cpu = case.run("after")
    meta = {"subject": case.subject, "property": "relax_gpu_matches_cpu", "target": case.gpu_target.name,
            "call": "vm", "function": "main", "family": "relax",
            "example": document(case.example), "describe": repr(case.example)[:4000],
            "input_script": case.input_script(), "output_script": case.output_script()}
    if cuda_device() is None:
        if case.bundle_dir:
            entry = new_entry(case.bundle_dir, meta, ex, case.params(), cpu)
            raise Discard(f"no CUDA device here: written to the bundle as {entry.id}")
        raise Discard("no CUDA device here (--bundle DIR writes the build for a GPU machine)")
    with tempfile.TemporaryDirectory(prefix="passcheck-gpu-") as d:
        got, _ = run_entry(new_entry(d, meta, ex, case.params(), cpu))
    if len(got) == len(cpu) and all(bitwise_equal(g, c) for g, c in zip(got, cpu)):
        return
    bad = case.compare_with_reference(got)
    if bad is not None:
        i, mm = bad
        raise Violation(f"on the GPU, {case.subject}'s output: " + mm.describe(f"output {i}"))


def _bounds(built: Any) -> Any:
    """Z3 bounds of the kernels as the runtime launches them (an extent of 0 launches 1)."""
    from passcheck.tir.analysis import check_bounds
    from passcheck.tir.gpu.launch import as_launched

    return check_bounds(as_launched(built.joined), budget_s=15.0)


