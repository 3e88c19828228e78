"""TIR subjects for a GPU target: ``bind@cuda:sm_90``, ``schedule@cuda:sm_90``, ... .

``--target cuda`` turns the subject ``NAME`` into ``NAME@cuda:ARCH``, which the TIR family
understands (``gpu_subject_by_name``): the same examples as ``NAME`` (its primitive after a
preparation, or a sequence), each ending with a drawn ``bind_rest`` step that binds whatever the
schedule left outside GPU-bound loops; the case is then built for the GPU by the properties of
the ``gpu-target`` group (``properties/tir_gpu.py``). Sequences draw from a GPU-aware pool:
the GPU primitives weigh more, and ``parallel`` (CPU threads, meaningless inside a kernel)
is left out.
"""

from __future__ import annotations

import dataclasses
import traceback
from typing import Any

from hypothesis import strategies as st

from passcheck.core.errors import Discard, error_line
from passcheck.core.outcome import Verdict
from passcheck.core.subject import Options, Subject, resolve
from passcheck.gpu import GpuTarget, split_subject
from passcheck.gpu.target import with_target
from passcheck.tir.schedule import PRIMITIVES, ScheduleExample, Step, View, apply_step, default_sequence

GPU_GROUP = "gpu-target"
NOT_ON_GPU = ("parallel", "bind_rest")  # CPU threads; bind_rest ends every example anyway


def gpu_sequence_pool() -> tuple[str, ...]:
    """The pool of ``schedule`` sequences for a GPU: every safe primitive but ``parallel``, and
    the GPU-only ones (primitives/gpu.py) three times, so they are drawn as often as they matter."""
    base = tuple(n for n in default_sequence() if n not in NOT_ON_GPU)
    gpu = tuple(n for n, p in PRIMITIVES.items() if p.gpu_only and n not in NOT_ON_GPU)
    return base + gpu * 3


class GpuTirSubject(Subject):
    """A TIR subject's examples, completed for and built for a GPU target."""

    ir = "tir"

    def __init__(self, base: Subject, target: GpuTarget) -> None:
        self.base = base
        self.target = target
        self.name = with_target(base.name, target)
        # The base's names too: a TVM bug kept for ``schedule`` shows up as well when the same
        # schedule is then bound and built for a GPU, and must be recognised there.
        self.aliases = base.names
        self.groups = (*base.groups, GPU_GROUP)
        self.summary = f"{base.summary}, built for {target.name}"

    @property
    def needs_impl(self) -> bool:
        return self.base.needs_impl

    def check_impl(self, impl: Any, spec: str) -> None:
        self.base.check_impl(impl, spec)

    def strategy(self, options: Options) -> st.SearchStrategy[Any]:
        extra = dict(options.extra)
        # Read by the subjects that draw sequences (`schedule`); the others ignore it.
        extra.setdefault("tir_primitives", gpu_sequence_pool())
        base = self.base.strategy(dataclasses.replace(options, extra=tuple(extra.items())))
        rest = PRIMITIVES["bind_rest"].draw

        @st.composite
        def completed(draw: st.DrawFn) -> Any:
            example = draw(base)
            return _with_steps(example, (*example.steps, rest(draw, View(()))))

        return completed()

    def make_case(self, example: Any, impl: Any | None, options: Options) -> Any:
        from tvm import s_tir

        steps = tuple(getattr(example, "steps", ()))
        rest = steps[-1] if steps and steps[-1].prim == "bind_rest" else None
        inner = _with_steps(example, steps[:-1]) if rest is not None else example
        case = self.base.make_case(inner, impl, options)
        case.example = example
        case.subject = self.name
        case.gpu_target = self.target
        case.bundle_dir = dict(options.extra).get("bundle")
        if case.raised is not None or case.after is None or rest is None:
            return case
        try:
            sch = s_tir.Schedule(case.after, seed=1, error_render_level="fast")
        except Exception as e:  # noqa: BLE001 - TVM verifies the module first
            # The steps under test left a module no schedule accepts (a block iterator used
            # where it is not defined): well_formed_before_after's finding, on the steps' own
            # output. Not completed for the GPU, it is no kernel to build.
            case.gpu_target = None
            case.trace.append(f"# not completed for the GPU ({rest.describe()}): {error_line(e, 160)}")
            return case
        try:
            case.trace.append(apply_step(sch, rest, case.applied))
        except Exception as e:  # noqa: BLE001
            from tvm.s_tir import ScheduleError

            if isinstance(e, ScheduleError):
                raise Discard(f"bind_rest refused: {error_line(e, 200)}") from None
            case.raised = e
            case.raised_traceback = traceback.format_exc()
            case.trace.append(f"{rest.describe()}  # raised {type(e).__name__}")
            return case
        case.after = sch.mod
        # Bound to GPU threads now, whatever the inner steps were: the CPU build rejects it
        # ("not implemented"), so execution is gpu_matches_cpu's, on the GPU.
        case.executable = False
        if dict(options.extra).get("note_schedule"):
            # `bundle check --static`: is this still the kernel a bundle entry ran?
            case.notes = {**getattr(case, "notes", {}), "schedule": case.describe()}
        return case

    def check_bundle_entry(self, entry: Any) -> tuple[Verdict, str]:
        return check_tir_entry(self.name, entry)

    def simplifications(self, example: Any) -> Any:
        return self.base.simplifications(example)

    def describe_example(self, example: Any) -> str:
        return self.base.describe_example(example)


def check_tir_entry(name: str, entry: Any) -> tuple[Verdict, str]:
    """The verdict on a bundle entry the runner ran: its GPU output against the unscheduled
    kernel's (see ``execute``), or what stopped it (an error, a crash, a hang on the GPU)."""
    from passcheck.tir.gpu import execute

    r = entry.result()
    if r is None:
        return Verdict.DISCARDED, "not run yet (python -m passcheck.bundle run DIR on a GPU machine)"
    where = r.get("device") or "the GPU"
    if r["status"] == "ok":
        bad = execute.compare_entry(entry, entry.gpu_outputs()[0])
        if bad is None:
            return Verdict.HELD, ""
        return Verdict.VIOLATION, (f"on {where}, the kernel of {name} computes different values than the "
                                   f"unscheduled kernel on the CPU: {bad.describe()}; schedule:\n{_trace(entry)}")
    if r["status"] == "error" and "no CUDA device here" in r["message"]:
        return Verdict.DISCARDED, f"not run: {r['message']}"
    verdict = {"error": Verdict.RAISED, "crash": Verdict.CRASH, "timeout": Verdict.HANG}[r["status"]]
    return verdict, f"on {where}, running the kernel of {name}: {r['status']}: {r['message']}; schedule:\n{_trace(entry)}"


def _trace(entry: Any) -> str:
    text = str(entry.meta.get("describe", ""))
    return "\n".join(text.splitlines()[1:]) or text


def _with_steps(example: Any, steps: tuple[Step, ...]) -> Any:
    if isinstance(example, ScheduleExample) or dataclasses.is_dataclass(example):
        return dataclasses.replace(example, steps=steps)
    raise TypeError(f"not a schedule example: {type(example).__name__}")


def gpu_subject_by_name(name: str) -> Subject | None:
    """``NAME@cuda:ARCH`` for a TIR subject ``NAME`` (None for any other name). Needs the CUDA
    toolchain: without it, a one-line UsageError says how to install it."""
    base_name, target = split_subject(name)
    if target is None:
        return None
    base = resolve(base_name, "tir")
    if base.ir != "tir":
        return None
    from passcheck.gpu.toolchain import require_toolchain

    require_toolchain(f"{base.name} --target {target.name}")
    if hasattr(base, "with_target"):  # a subject that is for a GPU target already (dlight)
        return base.with_target(target)
    if base.needs_impl:
        # A user's pass named by its import spec: the spec is the name without the target.
        from passcheck.core.loading import load_impl

        base.pass_obj = load_impl(base_name)  # type: ignore[attr-defined]
    return GpuTirSubject(base, target)
