"""A Relax example after the pass under test ran, with memoized oracles."""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.core.case import Case, module_script
from passcheck.core.errors import Unknown
from passcheck.relax import execution, reference
from passcheck.relax.spec import GraphSpec, input_arrays
from passcheck.relax.tolerance import Mismatch, compare


class RelaxCase(Case):
    """Attributes beyond ``Case``:

    ``spec``      the drawn ``GraphSpec``
    ``built``     the module exactly as generated (before prerequisites)
    ``before``    the input of the pass under test (after its prerequisites, e.g. LegalizeOps)
    ``after``     the output of the pass under test (plus its fixed follow-ups, e.g. FuseTIR)
    ``stages``    intermediate modules by name (e.g. ``stages["FuseOps"]`` before FuseTIR)
    ``transform`` the pass under test, to apply again (idempotence)
    ``prerequisite_raised`` what a prerequisite of the pass under test raised ("" when none
                  did); ``before`` is then that prerequisite's input and ``after`` is None
    """

    ir = "relax"
    entry = "main"  # the function run and compared (a given module may not have ``main``)
    tensor_inputs = False  # parameters passed to the VM as TVM tensor copies (drawn graphs draw it)

    def __init__(self, subject: str, spec: GraphSpec | None, example: Any = None,
                 extras: dict[str, Any] | None = None) -> None:
        """``spec`` None: a case of a module not drawn (a given module, a seed model), whose
        ``example`` is what it was made from and ``extras`` what the pass reads of it."""
        super().__init__(subject, spec if example is None else example)
        self.spec = spec  # type: ignore[assignment]
        self.built: Any = None
        self.stages: dict[str, Any] = {}
        self.transform: Any = None
        self.extras: dict[str, Any] = (extras if extras is not None else {}) if spec is None else spec.extras
        self._runs: list[tuple[Any, list[np.ndarray]]] = []
        # modules whose outputs the subject's properties always need together: compiled as one
        self.co_run: dict[str, str] = {}
        # modules part-way through tvm.compile's lowering (a pass sequence's), by name: the Relax
        # pipeline that finishes them (lowering them again from the start is not supported)
        self.pipeline_for: dict[str, Any] = {}
        # set when the float64 reference does not apply to ``after`` (a pass sequence that
        # computes in float16 by design): numeric comparisons are then unknown, with this reason
        self.no_reference = ""
        self.prerequisite_raised = ""
        # dtypes the pass under test computes in another by design (ToMixedPrecision: float32 in
        # float16): the reference's bounds are derived for that dtype
        self.computed_in: dict[str, str] = {}
        # the algebra the pass applies by design (``equivalents.py``): its rounding is allowed too
        self.equivalent: Any = None
        self.tensor_inputs = bool(getattr(spec, "tensor_inputs", False))
        # how a module whose main the pass changed by design is called (``conventions.py``), by name
        self.conventions: dict[str, str] = {}

    def input_script(self) -> str:
        """The pass's input; where its prerequisites changed the module (LegalizeOps before
        FuseOps), the module as generated follows, commented out: its ops by name and attributes
        are what a reader of the repro, and a known bug's IR pattern (``core/known.py``), look for
        in an input whose ops are legalized kernels."""
        text = super().input_script()
        if self.built is None or self.before is None or self.built is self.before:
            return text
        source = "\n".join(f"# {line}" if line else "#" for line in module_script(self.built).splitlines())
        return f"{text}\n\n# The module as generated, before the prerequisites of {self.subject}:\n{source}\n"

    @property
    def dtype(self) -> str:
        return self.spec.value_dtype(self.spec.outputs[0])

    def params(self) -> list[np.ndarray]:
        """Concrete parameter arrays (symbolic dims at ``spec.sym_sizes``)."""
        return self.memo("params", lambda: input_arrays(self.spec))

    def calls(self) -> list[list[Any]]:
        """The arguments of each call of the entry function: one call; a program with branches has
        one per combination of its conditions."""
        return [self.params()]

    def output_label(self, i: int) -> str:
        """How output ``i`` of ``run`` (over every call) is named in a message."""
        return f"output {i}"

    def output_dtypes(self) -> list[str]:
        """The dtype of each output, over every call."""
        return [self.spec.value_dtype(o) for o in self.spec.outputs]

    def reference(self) -> list[reference.Approx]:
        if self.no_reference:
            raise Unknown(self.no_reference)
        return self.memo("reference", lambda: reference.allowing(
            reference.evaluate(self.spec, self.params(), self.computed_in), self.equivalent, self.spec,
            self.params(), self.computed_in))

    def run(self, which: str = "after") -> list[np.ndarray]:
        """Compile ``built``/``before``/``after`` (or a stage name) and run it on ``params()``.
        A module that does not compile or run raises the same exception to every property
        that asks (it is compiled once)."""
        failed = self._memo.get(("raised", which))
        if failed is not None:
            raise failed
        try:
            return self.memo(("run", which), lambda: self._run(which))
        except Exception as e:
            self._memo[("raised", which)] = e
            raise

    def _run(self, which: str) -> list[np.ndarray]:
        mod = self._module(which)
        # A pass that left the entry function and all it calls as they were (e.g. nothing to
        # fuse) computes what the input computes: identical IR compiles to identical code, so
        # one compile and one run serve both. A calling convention calls other functions too:
        # there the whole module must be the same.
        import tvm_ffi

        for other, outputs in self._runs:
            if (execution.same_program(other, mod, self.entry) if which not in self.conventions
                    else tvm_ffi.structural_equal(other, mod)):
                return outputs
        if which in self.conventions:
            from passcheck.relax.conventions import CONVENTIONS

            vm = execution.compile_relax(mod, self.pipeline_for.get(which, "default"))
            outputs = CONVENTIONS.get(self.conventions[which])(vm, mod, self.before[self.entry], self.calls(),
                                                               self.tensor_inputs)
            self._runs.append((mod, outputs))
            return outputs
        if which in self.pipeline_for:
            vm = execution.compile_relax(mod, self.pipeline_for[which])
            outputs = execution.call_all(vm, self.entry, self.calls(), self.tensor_inputs)
            self._runs.append((mod, outputs))
            return outputs
        partner = self.co_run.get(which)
        if partner is not None and ("run", partner) not in self._memo:
            other = self._module(partner)
            try:
                outputs, other_outputs = execution.run_relax_pair(mod, other, self.calls(), self.entry,
                                                                    self.tensor_inputs)
            except Exception:  # noqa: BLE001 - compile apart so a failure is blamed on its module
                pass
            else:
                self._runs.append((mod, outputs))
                self._runs.append((other, other_outputs))
                self._memo[("run", partner)] = other_outputs
                return outputs
        outputs = execution.call_all(execution.compile_relax(mod), self.entry, self.calls(), self.tensor_inputs)
        self._runs.append((mod, outputs))
        return outputs

    def executed(self) -> set[str]:
        return {k[1] for k in self._memo if isinstance(k, tuple) and k[0] == "run"}

    def module(self, which: str) -> Any:
        """``built``/``before``/``after`` or a stage, by name (None when there is none)."""
        mod = {"built": self.built, "before": self.before, "after": self.after}.get(which)
        return self.stages.get(which) if mod is None else mod

    def ran(self, which: str, mod: Any, outputs: list[np.ndarray]) -> None:
        """Record outputs of ``which`` computed elsewhere (a batch compile), as ``run`` would."""
        self._runs.append((mod, outputs))
        self._memo[("run", which)] = outputs

    def _module(self, which: str) -> Any:
        mod = {"built": self.built, "before": self.before, "after": self.after}.get(which)
        return self.stages[which] if mod is None else mod

    def apply(self, mod: Any) -> Any:
        """Apply the pass under test (with its fixed follow-ups) to ``mod``."""
        return self.transform(mod)

    def compare_with_reference(self, outputs: list[np.ndarray]) -> tuple[int, Mismatch] | None:
        refs = self.reference()
        if len(outputs) != len(refs):
            return 0, Mismatch((), float("nan"), float("nan"), 0.0, 0, 0,
                               shape_note=f"{len(outputs)} tensors returned, the input graph returns {len(refs)}")
        for i, (got, ref, dtype) in enumerate(zip(outputs, refs, self.output_dtypes())):
            # each output in its own dtype (a graph may return float and bool values together)
            m = compare(got, ref, dtype)
            if m is not None:
                return i, m
        return None
