"""TIR subjects: one per ``tvm.s_tir.Schedule`` primitive, ``schedule`` (random sequences), and
``custom_tir_subject`` for a user's own IRModule -> IRModule pass over PrimFuncs.

Options read from ``Options.extra`` (all optional):
  ``tir_kinds``      tuple of PrimFunc kinds to draw (default: all the primitive applies to)
  ``symbolic``       allow shape-var extents (default True)
  ``int64``          allow int64 index dtypes (default True)
  ``max_steps``      longest ``schedule`` sequence (default 8)
  ``tir_primitives`` primitives ``schedule`` sequences draw from (default: all but unsafe_*)
  ``max_prefix``     preparatory steps before a primitive under test (default 2)
  ``z3_timeout_ms``  per-query Z3 timeout (default 2000)
  ``execute``        run compiled kernels for the equivalence property (default True)
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from passcheck.core import timing
from passcheck.core.corpus import CorpusModule
from passcheck.core.data import plain_data
from passcheck.core.errors import Discard, UsageError
from passcheck.core.subject import Family, Options, Subject, known_subjects, register_family, register_subject
from passcheck.tir.case import TirCase
from passcheck.tir.corpus import corpus_case
from passcheck.tir.gpu.subjects import gpu_subject_by_name
from passcheck.tir.kernels import PrimFuncSpec, build_primfunc, primfunc_specs
from passcheck.tir.schedule import (
    PRIMITIVES,
    ScheduleExample,
    Step,
    StepNotApplicable,
    reassociates,
    schedule_examples,
)


def _extra(options: Options) -> dict[str, Any]:
    return dict(options.extra)


def _specs(options: Options, kinds: tuple[str, ...] | None) -> st.SearchStrategy[PrimFuncSpec]:
    ex = _extra(options)
    wanted = tuple(ex.get("tir_kinds") or kinds or ()) or None
    if kinds and wanted:
        wanted = tuple(k for k in wanted if k in kinds) or kinds
    return primfunc_specs(wanted, symbolic=bool(ex.get("symbolic", True)), int64=bool(ex.get("int64", True)))


def _first_line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    msg = next((x for x in reversed(lines) if x.startswith(("Error message:", "ScheduleError"))), lines[-1] if lines
               else "")
    return f"{type(e).__name__}: {msg[:300]}"


def _schedule_error() -> type[BaseException]:
    from tvm.s_tir import ScheduleError

    return ScheduleError


def _new_case(subject: str, example: Any, spec: PrimFuncSpec, options: Options) -> tuple[TirCase, Any]:
    import tvm

    case = TirCase(subject, example, spec)
    case.z3_timeout_ms = int(_extra(options).get("z3_timeout_ms", 2000))
    case.executable = bool(_extra(options).get("execute", True))
    func = build_primfunc(spec)  # GeneratorRejected propagates: the example is discarded
    case.original = tvm.IRModule({"main": func})
    return case, case.original


def _prepare(case: TirCase, sch: Any, steps: tuple[Step, ...], report_errors: bool = False) -> bool:
    """Apply preparatory steps; a refusal discards the example, and so does any other
    exception unless ``report_errors`` (then it is stored on the case and False returned)."""
    from passcheck.tir.schedule import apply_step

    for i, step in enumerate(steps):
        try:
            case.trace.append(apply_step(sch, step, case.applied))
        except (StepNotApplicable, _schedule_error()) as e:
            raise Discard(f"preparation step {i + 1} ({step.prim}) refused: {_first_line(e)}") from None
        except Exception as e:  # noqa: BLE001
            if not report_errors:
                # A bug of the preparatory primitive, not of the one under test: its own
                # subject reports it; here the example is discarded.
                raise Discard(f"preparation step {i + 1} ({step.prim}) raised {_first_line(e)}") from None
            case.raised = e
            case.raised_traceback = traceback.format_exc()
            case.trace.append(f"{step.describe()}  # raised {type(e).__name__} (preparation)")
            return False
        case.prefix = len(case.trace)
    return True


def as_module_transform(obj: Any) -> Any:
    """A ``tvm.transform.Pass`` or an ``IRModule -> IRModule`` callable from what the user gave:
    a Pass, such a callable, or a zero-argument factory returning one of them."""
    import inspect

    import tvm

    if obj is None or isinstance(obj, tvm.transform.Pass):
        return obj
    if callable(obj):
        try:
            required = [p for p in inspect.signature(obj).parameters.values()
                        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            return obj
        if not required:
            return as_module_transform(obj())
    return obj


def _takes_schedule_and_step(impl: Any) -> bool:
    import inspect

    try:
        params = [p for p in inspect.signature(impl).parameters.values() if p.default is p.empty]
    except (TypeError, ValueError):
        return False
    return len(params) == 2


def _apply_under_test(case: TirCase, sch: Any, steps: tuple[Step, ...], impl: Any,
                      skip_refused: bool = False) -> None:
    with timing.stage("pass"):
        _apply_steps(case, sch, steps, impl, skip_refused)


def _apply_steps(case: TirCase, sch: Any, steps: tuple[Step, ...], impl: Any, skip_refused: bool) -> None:
    """Apply the steps under test. A refusal discards the example -- or, with ``skip_refused``
    (sequences), is recorded and skipped, the schedule left as it was: each step runs on a copy
    that replaces the schedule only once the step applied (TVM leaves the schedule unchanged
    when one primitive refuses, but a step of several calls, such as split-and-bind then
    decompose_reduction, may be refused after its first calls changed it).

    ``impl`` replaces the primitive: a function ``(schedule, step)`` is called for each step;
    a Pass or ``IRModule -> IRModule`` function is applied once to the module instead."""
    from passcheck.tir.schedule import apply_step

    if impl is not None and not _takes_schedule_and_step(impl):
        transform = as_module_transform(impl)
        try:
            case.after = transform(sch.mod)
            case.trace.append(f"<impl>(mod)  # instead of {'; '.join(s.describe() for s in steps)}")
        except Exception as e:  # noqa: BLE001 - the implementation raising is the finding
            case.raised = e
            case.raised_traceback = traceback.format_exc()
        return
    applied = 0
    for step in steps:
        trial = sch.copy() if skip_refused else sch
        done: list[Step] = []
        try:
            if impl is not None:
                done.append(_resolved(trial, step))
                line = impl(trial, step)
            else:
                line = apply_step(trial, step, done)
            case.trace.append(line or f"<impl>({step.describe()})")
            case.applied += done
            applied += 1
            sch = trial
        except (StepNotApplicable, _schedule_error()) as e:
            if not skip_refused:
                raise Discard(f"{step.prim} refused: {_first_line(e)}") from None
            case.trace.append(f"# refused: {step.describe()} ({_first_line(e)[:120]})")
        except Exception as e:  # noqa: BLE001 - any other exception is the finding itself
            case.raised = e
            case.raised_traceback = traceback.format_exc()
            case.trace.append(f"{step.describe()}  # raised {type(e).__name__}")
            return
    if skip_refused and not applied:
        raise Discard("every step of the sequence was refused")
    case.after = sch.mod


def _resolved(sch: Any, step: Step) -> Step:
    """``step`` as the schedule resolves its references (as given where it cannot: the
    implementation under test is handed the step itself)."""
    from passcheck.tir.schedule.step import resolve_step

    try:
        return resolve_step(sch, step)
    except StepNotApplicable:
        return step


def _set_flags(case: TirCase, spec: PrimFuncSpec, steps: tuple[Step, ...]) -> None:
    """What the properties may assume about the steps that ran."""
    case.executable &= all(PRIMITIVES[s.prim].executable for s in steps)
    case.reassociates = reassociates(ScheduleExample(spec, steps, 0))
    case.unsafe = any(PRIMITIVES[s.prim].unsafe for s in steps)
    case.unsafe_refuted = "|".join(f"(?:{r})" for r in dict.fromkeys(PRIMITIVES[s.prim].refuted_by for s in steps) if r)
    if spec.epilogue and spec.epilogue_op != "bias" and any(s.prim == "fuse_reduction_epilogue" for s in steps):
        # Documented: fusing a non-linear epilogue (ReLU, clipping) applies it at every
        # reduction step. Only the linear (bias) form must keep the values.
        case.semantics_note = "fuse_reduction_epilogue of a non-linear epilogue changes values by design"


SCHEDULE_GROUP = "schedule-primitives"


class PrimitiveSubject(Subject):
    """One schedule primitive, applied after 0-2 preparatory steps."""

    ir = "tir"
    groups = (SCHEDULE_GROUP,)
    accepts_corpus = False  # its steps are drawn for a drawn spec's blocks

    def __init__(self, name: str) -> None:
        self.prim = PRIMITIVES[name]
        self.name = name
        self.summary = self.prim.summary

    def strategy(self, options: Options) -> st.SearchStrategy[ScheduleExample]:
        ex = _extra(options)
        return schedule_examples(self.name, max_prefix=int(ex.get("max_prefix", 2)),
                                 specs=_specs(options, self.prim.kinds))

    def make_case(self, example: ScheduleExample, impl: Any | None, options: Options) -> TirCase:
        from tvm import s_tir

        case, mod = _new_case(self.name, example, example.spec, options)
        case.primitive = self.name
        sch = s_tir.Schedule(mod, seed=example.spec.seed % (2**31 - 1) + 1, error_render_level="fast")
        if not _prepare(case, sch, example.steps[: example.prefix]):
            return case
        case.before = sch.mod
        _apply_under_test(case, sch, example.steps[example.prefix:], impl)
        _set_flags(case, example.spec, example.steps)
        return case

    def describe_example(self, example: ScheduleExample) -> str:
        # Whole: the known-bug registry reads the steps of a long sequence here.
        return example.describe()

    def coverage(self, example: ScheduleExample, case: Any | None) -> dict[str, tuple[str, ...]]:
        from passcheck.tir.coverage import coverage

        return coverage(example, case)


class ScheduleSubject(PrimitiveSubject):
    """Random sequences of 1-8 primitives (every step is under test)."""

    def __init__(self) -> None:
        self.prim = None  # type: ignore[assignment]
        self.name = "schedule"
        self.aliases = ("schedules",)
        self.summary = "random sequences of 1-8 schedule primitives"

    def strategy(self, options: Options) -> st.SearchStrategy[ScheduleExample]:
        ex = _extra(options)
        return schedule_examples(None, max_steps=int(ex.get("max_steps", 8)), specs=_specs(options, None),
                                 sequence=tuple(ex.get("tir_primitives") or ()) or None)

    def make_case(self, example: ScheduleExample, impl: Any | None, options: Options) -> TirCase:
        from tvm import s_tir

        case, mod = _new_case(self.name, example, example.spec, options)
        sch = s_tir.Schedule(mod, seed=example.spec.seed % (2**31 - 1) + 1, error_render_level="fast")
        case.before = mod
        _apply_under_test(case, sch, example.steps, impl, skip_refused=True)
        _set_flags(case, example.spec, example.steps)
        return case


@plain_data("tir.CustomExample")
@dataclass(frozen=True)
class CustomExample:
    spec: PrimFuncSpec
    steps: tuple[Step, ...] = ()  # schedule applied before the pass (the pass sees scheduled IR)

    def describe(self) -> str:
        return ScheduleExample(self.spec, self.steps).describe() if self.steps else self.spec.short()


class CustomTirSubject(Subject):
    """A user's pass: IRModule -> IRModule (a ``tvm.transform.Pass`` or any callable) over a
    module holding one schedulable PrimFunc ``main``, sometimes already scheduled."""

    ir = "tir"

    def __init__(self, name: str, pass_obj: Any) -> None:
        self.name = name
        self.pass_obj = pass_obj
        self.summary = f"custom TIR pass {name}"

    @property
    def needs_impl(self) -> bool:
        return self.pass_obj is None

    def strategy(self, options: Options) -> st.SearchStrategy[CustomExample]:
        ex = _extra(options)
        specs = _specs(options, None)

        @st.composite
        def draw(d: st.DrawFn) -> CustomExample:
            e = d(schedule_examples(None, min_steps=1, max_steps=int(ex.get("max_steps", 3)), specs=specs))
            scheduled = d(st.integers(0, 2)) == 0
            return CustomExample(e.spec, e.steps if scheduled else ())

        return draw()

    def make_case(self, example: CustomExample | CorpusModule, impl: Any | None, options: Options) -> TirCase:
        from tvm import s_tir

        if isinstance(example, CorpusModule):  # a given module (--corpus): the pass alone
            case: TirCase = corpus_case(self.name, example)
            case.z3_timeout_ms = int(_extra(options).get("z3_timeout_ms", 2000))
            mod = case.before
        else:
            case, mod = _new_case(self.name, example, example.spec, options)
        if not isinstance(example, CorpusModule) and example.steps:
            sch = s_tir.Schedule(mod, seed=example.spec.seed % (2**31 - 1) + 1, error_render_level="fast")
            if not _prepare(case, sch, example.steps):  # TVM failing to prepare is not the user's bug
                return case
            mod = sch.mod
            case.executable &= all(PRIMITIVES[s.prim].executable for s in example.steps)
        case.before = mod
        # An unknown pass may reassociate; only the tolerance comparison is fair to it.
        case.reassociates = True
        fn = as_module_transform(impl if impl is not None else self.pass_obj)
        if fn is None:
            raise UsageError(f"{self.name}: no TIR pass given (a Pass, an IRModule -> IRModule function, "
                             "or a zero-argument function returning one)")
        try:
            case.after = fn(mod)
            case.trace.append(f"{self.name}(mod)")
        except Exception as e:  # noqa: BLE001 - the pass raising is a finding
            case.raised = e
            case.raised_traceback = traceback.format_exc()
        return case

    def describe_example(self, example: CustomExample | CorpusModule) -> str:
        return example.describe()


def custom_tir_subject(name: str, pass_obj: Any) -> Subject:
    """A subject for a user's TIR pass (gets the generic TIR properties). ``pass_obj`` is a
    ``tvm.transform.Pass``, an ``IRModule -> IRModule`` function, a zero-argument factory of
    either, or None when the runner hands the implementation to ``make_case`` as ``impl``."""
    return CustomTirSubject(name, pass_obj)


def tir_subjects() -> dict[str, Subject]:
    """The declared TIR subjects by name: one per primitive, then ``schedule``."""
    return {n: s for n, s in known_subjects().items() if s.ir == "tir"}


def tir_subject(name: str) -> Subject:
    return tir_subjects()[name]


for _name in PRIMITIVES:
    register_subject(PrimitiveSubject(_name))
register_subject(ScheduleSubject())
register_family(Family(ir="tir", custom=lambda spec: custom_tir_subject(spec, None), by_name=gpu_subject_by_name))
