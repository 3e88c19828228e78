"""The case of a TIR transformation: the modules, their lowered views, memoized oracle results."""

from __future__ import annotations

from typing import Any

from passcheck.core import timing
from passcheck.core.case import Case
from passcheck.tir.schedule.step import has_reference


class TirCase(Case):
    """One PrimFunc spec, transformed.

    ``original``  the unscheduled module (``main`` = ``build_primfunc(spec)``)
    ``before``    the module handed to the transformation (after preparatory steps, if any)
    ``after``     the module it produced (None if it raised)
    ``trace``     the schedule calls made, as Python lines (preparation first)
    ``prefix``    how many lines of ``trace`` were preparation
    ``applied``   the steps that applied, in order, their block references resolved to names
                  (preparation first: ``prefix`` of them)
    Flags the properties read: ``executable`` (the code runs on CPU), ``reassociates`` (a
    reduction's order may change: compare with a tolerance), ``unsafe`` (an ``unsafe_``
    primitive: only structural checks; ``unsafe_refuted``: the lowering errors by which TVM rightly
    refuses its claim), ``primitive`` (the primitive under test, or None).
    """

    ir = "tir"

    def __init__(self, subject: str, example: Any, spec: Any) -> None:
        super().__init__(subject, example)
        self.spec = spec
        self.original: Any = None
        self.trace: list[str] = []
        self.prefix = 0
        self.applied: list[Any] = []
        self.executable = True
        self.reassociates = False
        self.unsafe = False
        self.unsafe_refuted = ""  # lowering errors that refute an unsafe_ step's claim (a regex)
        self.primitive: str | None = None
        self.semantics_note: str | None = None  # set when the steps change values by design
        self.z3_timeout_ms = 2000

    # derived views, memoized ----------------------------------------------------------------
    def lowered(self, which: str = "after") -> Any:
        """The block-free form of ``before``/``after``/``original`` (raises what lowering raises)."""
        from passcheck.tir.lowering import lower_to_loops

        def lower() -> Any:
            with timing.stage("lower"):
                return lower_to_loops(getattr(self, which))

        return self.memo(("lowered", which), lower)

    def bounds(self, which: str = "after") -> Any:
        """``BoundsResult`` of the lowered module."""
        from passcheck.tir.analysis import check_bounds

        def bounds() -> Any:
            lowered = self.lowered(which)
            with timing.stage("z3"):
                return check_bounds(lowered, self.z3_timeout_ms)

        return self.memo(("bounds", which), bounds)

    def uninitialised(self, which: str = "after") -> Any:
        """``UninitResult`` of the lowered module: loads that may read what no store wrote."""
        from passcheck.tir.analysis import check_uninitialised
        from passcheck.tir.kernels import shape_var_value

        def check() -> Any:
            lowered = self.lowered(which)
            with timing.stage("z3"):
                sizes = shape_var_value(self.spec) if self.spec is not None else {}
                return check_uninitialised(lowered, sizes, self.z3_timeout_ms, budget_s=10.0)

        return self.memo(("uninit", which), check)

    def execute(self, which: str = "after") -> Any:
        """``which`` compiled and run on the spec's reference inputs, its output and allocated
        buffers pre-filled once with the spec's marker value and once with NaN (a list of
        ``execution.Filled``; only on code proved in bounds)."""
        from passcheck.tir import execution as tir_exec

        return tir_exec.run_scheduled_fills(self.spec, getattr(self, which), self.lowered(which))

    def unwritten_note(self) -> str | None:
        """Why the unscheduled kernel leaves output elements unwritten (a TVM bug), else None."""
        from passcheck.tir import execution as tir_exec

        return tir_exec.reference(self.spec).unwritten_note()

    def compare_outputs(self, got: Any) -> Any:
        """None when every run in ``got`` (from ``execute``) matches the unscheduled kernel, else
        a mismatch with ``describe()``: bit for bit, or within the rounding bound when a step
        reassociates."""
        from passcheck.tir import execution as tir_exec

        return tir_exec.compare_fills(self.spec, got, exact=not self.reassociates)

    def output_script(self) -> str:
        """The output, and, where a step found its block by reference (``other='ew1<0'``), every
        applied step with the names its references resolved to, as comments: a known bug's IR
        pattern needs the blocks a step acted on (``core/known.py``). Written without the call's
        parentheses, so that no pattern of a drawn call (``merge(``) reads them as one."""
        text = super().output_script()
        if not text or not any(has_reference(s) for s in getattr(self.example, "steps", ())):
            return text
        lines = "\n".join(f"# resolved: {s.describe().replace('(', ' ', 1).rstrip(')')}" for s in self.applied)
        return f"{text}\n# The steps as applied, their block references resolved:\n{lines}\n"

    def trace_text(self) -> str:
        return "\n".join(line + ("  # preparation" if i < self.prefix else "") for i, line in enumerate(self.trace))

    def describe(self) -> str:
        head = self.spec.short() if self.spec is not None else "?"
        return head + ("\n" + self.trace_text() if self.trace else "")
