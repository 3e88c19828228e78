"""The registry of schedule primitives, and replay of steps through it.

Each primitive is declared once, in its family's module under ``primitives/``: a draw, an
applier and its flags in one ``Primitive``, passed to ``register_primitive``. ``PRIMITIVES``
lists them in registration order, which is the order the ``primitives`` package imports its
modules in and each module declares its primitives in. That order feeds ``st.sampled_from``
(the default sequence pool), so it fixes every seed's examples: a test pins it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.kernels import KINDS, PrimFuncSpec
from passcheck.tir.schedule.step import Step, StepNotApplicable, resolve_step
from passcheck.tir.schedule.view import View

# Spec kinds with a reduction block, and with a padding or sliding-window block.
REDUCING = ("reduce", "matmul", "conv2d", "pool", "legalized", "reduce_beside")
PADDED = ("pad", "conv2d", "pool", "legalized")


@dataclass(frozen=True)
class Param:
    """One parameter of a ``tvm.s_tir.Schedule`` method that a primitive calls, and the forms
    of it the primitive draws (``passcheck list --signatures`` shows them). ``form`` says which
    of ``forms`` a drawn step uses (None: the step does not make this call); without it every
    step uses ``forms[0]``. A test draws each primitive and checks that every form shows up."""

    method: str
    name: str
    forms: tuple[str, ...]
    form: Callable[[Step], str | None] | None = None

    def form_of(self, step: Step) -> str | None:
        return self.form(step) if self.form is not None else self.forms[0]


def param(method: str, name: str, *forms: str, form: Callable[[Step], str | None] | None = None) -> Param:
    return Param(method, name, tuple(forms), form)


def arg_form(key: str, forms: Mapping[Any, str] | None = None, default: Any = None) -> Callable[[Step], str | None]:
    """A ``Param.form`` that reads the step's argument ``key`` (mapped through ``forms``)."""

    def form(step: Step) -> str | None:
        v = step.arg.get(key, default)
        return forms.get(v, str(v)) if forms is not None else str(v)

    return form


@dataclass(frozen=True)
class Primitive:
    """One ``tvm.s_tir.Schedule`` primitive: how a step of it is drawn (plain data, from a
    ``View``), how the step is applied (returns the call made, as a line of Python), and what
    the checks may assume about it."""

    name: str
    draw: Callable[[st.DrawFn, View], Step]
    apply: Callable[[Any, Step], str]
    summary: str
    kinds: tuple[str, ...] = KINDS  # spec kinds where it can apply
    executable: bool = True  # the scheduled code compiles and runs on CPU
    reassociates: bool = False  # may change the order in which a reduction adds up
    unsafe: bool = False  # TVM documents it as not checked (unsafe_*): only structural checks
    # An unsafe_ primitive's claim that TVM's later checks may rightly refuse: a lowering error
    # matching this is TVM catching the caller's claim, not a finding.
    refuted_by: str = ""
    # Binds GPU threads to build for a GPU (primitives/gpu.py): drawn in sequences only with
    # --target cuda, so CPU sequences stay executable.
    gpu_only: bool = False
    update: Callable[[View, Step], View] = field(default=lambda v, s: v)
    min_stages: int = 1  # blocks the PrimFunc needs (merge wants two nests to merge)
    # A dedicated preparation (steps, then the step under test) for primitives that the random
    # preparation almost never sets up; drawn for three examples in four.
    setup: Callable[[st.DrawFn, View, PrimFuncSpec], tuple[tuple[Step, ...], Step]] | None = None
    # The whole signature drawn: every parameter of every Schedule method the step calls.
    params: tuple[Param, ...] = ()
    # What the step needs of the blocks so far (None: nothing particular). In a sequence, a
    # primitive whose need the view does not meet is drawn one time in eight only: its refusal
    # (TVM's own check) stays drawn, without taking a step of every other sequence.
    wants: Callable[[View], bool] | None = None


_REGISTRY: dict[str, Primitive] = {}
# Read-only: a primitive enters through register_primitive, which refuses a name twice.
PRIMITIVES: Mapping[str, Primitive] = MappingProxyType(_REGISTRY)


def register_primitive(prim: Primitive) -> Primitive:
    """Add ``prim`` after every primitive registered so far; returns it."""
    if prim.name in _REGISTRY:
        raise ValueError(f"schedule primitive {prim.name} declared twice")
    if prim.refuted_by and not prim.unsafe:
        # Only the caller's unchecked claim may be refuted: on a checked primitive the same
        # discard would hide TVM's bug.
        raise ValueError(f"schedule primitive {prim.name}: refuted_by is for unsafe=True primitives only")
    _REGISTRY[prim.name] = prim
    return prim


def unregister_primitive(name: str) -> Primitive:
    """Remove a registered primitive (a test's or plug-in's own); returns it."""
    return _REGISTRY.pop(name)


def apply_step(sch: Any, step: Step, applied: list[Step] | None = None) -> str:
    """Replay one step; returns the call made (a readable line). Raises ``StepNotApplicable``
    or TVM's ``ScheduleError`` when the step does not apply. Once it applied, the step with its
    block references resolved to names is appended to ``applied``: what a property asks of "the
    block compute_at moved" is about that block, not about the reference that found it."""
    prim = _REGISTRY.get(step.prim)
    if prim is None:
        raise StepNotApplicable(f"unknown primitive {step.prim!r}")
    resolved = resolve_step(sch, step)
    line = prim.apply(sch, resolved)
    if applied is not None:
        applied.append(resolved)
    return line


def apply_steps(sch: Any, steps: tuple[Step, ...] | list[Step]) -> list[str]:
    """Replay ``steps`` in order on ``sch``; returns the calls made."""
    return [apply_step(sch, s) for s in steps]
