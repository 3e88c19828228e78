"""Relax passes on a GPU target: ``FuseOps@cuda:sm_90`` and the like (``--target cuda``).

The same graphs and the same pass as ``NAME``; the properties of the ``relax-gpu-target``
group (``properties/relax_gpu.py``) then build the pass's output for the GPU with TVM's CUDA
pipeline (LegalizeOps, fusion, DLight's default schedules) and run it there: the differential
of the same module built for ``llvm`` and for ``cuda``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from passcheck.core.outcome import Verdict
from passcheck.core.subject import Options, Subject, resolve
from passcheck.gpu import GpuTarget, split_subject
from passcheck.gpu.target import with_target

GPU_GROUP = "relax-gpu-target"


class RelaxGpuSubject(Subject):
    ir = "relax"

    def __init__(self, base: Subject, target: GpuTarget) -> None:
        self.base = base
        self.target = target
        self.name = with_target(base.name, target)
        self.groups = (*base.groups, GPU_GROUP)
        self.summary = f"{base.summary}, built for {target.name}"

    @property
    def needs_impl(self) -> bool:
        # A user's pass named by its import spec: the spec is the base's name (loaded below).
        return False

    def check_impl(self, impl: Any, spec: str) -> None:
        self.base.check_impl(impl, spec)

    def strategy(self, options: Options) -> st.SearchStrategy[Any]:
        return self.base.strategy(options)

    def make_case(self, example: Any, impl: Any | None, options: Options) -> Any:
        if impl is None and self.base.needs_impl:
            from passcheck.core.loading import load_impl

            impl = load_impl(self.base.name)
        case = self.base.make_case(example, impl, options)
        case.subject = self.name
        case.gpu_target = self.target
        case.bundle_dir = dict(options.extra).get("bundle")
        return case

    def check_bundle_entry(self, entry: Any) -> tuple[Verdict, str]:
        """A bundle entry's GPU outputs against the float64 reference of its graph (after a
        bit-for-bit comparison with the CPU's outputs, which needs no tolerance)."""
        from passcheck.relax.execution import bitwise_equal

        r = entry.result()
        if r is None:
            return Verdict.DISCARDED, "not run yet (python -m passcheck.bundle run DIR on a GPU machine)"
        where = r.get("device") or "the GPU"
        if r["status"] == "error" and "no CUDA device here" in r["message"]:
            return Verdict.DISCARDED, f"not run: {r['message']}"
        if r["status"] != "ok":
            verdict = {"error": Verdict.RAISED, "crash": Verdict.CRASH, "timeout": Verdict.HANG}[r["status"]]
            return verdict, f"on {where}, running {self.name}'s output: {r['status']}: {r['message']}"
        got, cpu = entry.gpu_outputs(), entry.cpu_outputs()
        if len(got) == len(cpu) and all(bitwise_equal(g, c) for g, c in zip(got, cpu)):
            return Verdict.HELD, ""
        case = self.base.make_case(entry.example(), None, Options())
        bad = case.compare_with_reference(got)
        if bad is None:
            return Verdict.HELD, ""
        i, mm = bad
        return Verdict.VIOLATION, f"on {where}, {self.name}'s output: " + mm.describe(f"output {i}")

    def simplifications(self, example: Any) -> Any:
        return self.base.simplifications(example)

    def save_inputs(self, example: Any, directory: Any) -> None:
        self.base.save_inputs(example, directory)

    def describe_example(self, example: Any) -> str:
        return self.base.describe_example(example)


def relax_gpu_subject_by_name(name: str) -> Subject | None:
    """``NAME@cuda:ARCH`` for a Relax pass ``NAME`` (None for other names); needs the toolchain."""
    base_name, target = split_subject(name)
    if target is None:
        return None
    base = resolve(base_name, "relax")
    if base.ir != "relax":
        return None
    from passcheck.gpu.toolchain import require_toolchain

    require_toolchain(f"{base.name} --target {target.name}")
    return RelaxGpuSubject(base, target)



