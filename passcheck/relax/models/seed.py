"""A seed model as an example: plain data naming the model, and the case it becomes.

The case imports the model (with the inputs the frontend needs as constants baked in, trying
the fewest first), builds and runs it once as imported, and sorts it (``notes["status"]``):

* ``frontend error``: the import raised;
* ``build error``: the imported module does not compile or run. A pass run on it would only
  meet the same failure again (FoldConstant legalizes the ops it folds): both are rejected,
  and the seed report counts them apart from the pass's findings;
* ``wrong vs ONNX``: it runs, but disagrees with the oracles before any pass ran;
* ``clean``: it agrees with them (the ONNX test's own rtol/atol, ONNX's defaults otherwise).

Its reference is the float64 version of the same model (``onnx_io.widen``) built and run on the
same inputs, with the float model's *measured* rounding error as the bound: the largest
distance, per output, between the model as imported (no pass) and that float64 version. There is
no op-by-op rounding model for arbitrary ONNX ops; a pass may not move the numbers further
from the exact ones than the tolerance model allows around that measured error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from passcheck.core.data import plain_data
from passcheck.core.errors import GeneratorRejected, Unknown, error_line
from passcheck.core.rounding import UNIT_ROUNDOFF, Approx
from passcheck.relax import execution
from passcheck.relax.case import RelaxCase
from passcheck.relax.models.corpus import SeedData, load_seed
from passcheck.relax.models.onnx_io import bake, graph_inputs, import_relax, is_float, widen
from passcheck.relax.models.oracle import agree, onnxruntime_outputs, reference_outputs
from passcheck.relax.tolerance import Mismatch, compare


@plain_data("relax.SeedModel")
@dataclass(frozen=True)
class SeedModel:
    """A model to check: ``source`` is a built-in corpus id (``onnx-node/test_abs``,
    ``zoo/cnn``) or a path to an ``.onnx`` file; ``input_seed`` draws the inputs of a model
    without test data; ``extra`` holds pass-specific draws (AlterOpLayout's layouts)."""

    source: str
    input_seed: int = 0
    extra: tuple[tuple[str, object], ...] = ()


def _last_line(e: BaseException) -> str:
    return f"{type(e).__name__}: {error_line(e, 200)}"


@dataclass
class Imported:
    mod: Any
    model: Any  # the ONNX model as imported (inputs baked in)
    params: list[np.ndarray]
    baked: str  # which inputs became constants


def import_seed(source: str, data: SeedData) -> Imported:
    """The model as Relax: non-float inputs baked in; if the frontend still refuses, every input
    but the first; then every input. GeneratorRejected (status ``frontend error``) if none imports."""
    g = data.model.graph
    if not all(vi.type.HasField("tensor_type") for vi in (*graph_inputs(data.model), *g.output)) or \
            not all(isinstance(v, np.ndarray) and v.dtype != object for v in data.inputs.values()):
        why = "inputs or outputs that are not tensors (sequences, optionals, maps, strings)"
        raise GeneratorRejected(f"{source}: passcheck feeds tensors only: the model has {why}",
                                notes={"seed": source, "status": "not a tensor model", "error": why})
    names = [vi.name for vi in graph_inputs(data.model)]
    floats = [vi.name for vi in graph_inputs(data.model) if is_float(vi.type.tensor_type.elem_type)]
    rungs = [("non-float inputs", [n for n in names if n not in floats])]
    if len(floats) > 1:
        rungs.append(("all inputs but the first", [n for n in names if n != floats[0]]))
    if floats:
        rungs.append(("every input", names))
    first_error: BaseException | None = None
    for what, baked in rungs:
        model = bake(data.model, {n: data.inputs[n] for n in baked})
        try:
            mod = import_relax(model)
        except Exception as e:  # noqa: BLE001 - the frontend refusing a model is no finding of the pass
            first_error = first_error or e
            continue
        params = [np.asarray(data.inputs[n]) for n in names if n not in baked]
        if len(mod["main"].params) != len(params):
            continue
        return Imported(mod, model, params, what)
    assert first_error is not None or not rungs
    why = _last_line(first_error) if first_error else "no input layout imports"
    raise GeneratorRejected(f"{source}: the ONNX frontend cannot import it: {why}",
                            notes={"seed": source, "status": "frontend error", "error": why})


class SeedCase(RelaxCase):
    """A ``RelaxCase`` built from a seed model (``spec`` is None; ``example`` the ``SeedModel``)."""

    def __init__(self, subject: str, seed: SeedModel) -> None:
        super().__init__(subject, None, seed, dict(seed.extra))
        self.seed = seed
        self.data = load_seed(seed.source, seed.input_seed)
        self.imported = import_seed(seed.source, self.data)
        self.built = self.imported.mod
        self.notes = {"seed": seed.source, "baked": self.imported.baked}
        self.notes.update(self.triage())

    @property
    def dtype(self) -> str:
        outs = self.run("built")
        return next((str(o.dtype) for o in outs if str(o.dtype) in UNIT_ROUNDOFF), "float32")

    def params(self) -> list[np.ndarray]:
        return self.imported.params

    def triage(self) -> dict[str, str]:
        """Build and run the model as imported, and hold it against the oracles."""
        try:
            got = self.run("built")
        except Exception as e:  # noqa: BLE001 - the model does not build before any pass: not the pass's
            why = _last_line(e)
            raise GeneratorRejected(f"{self.seed.source}: TVM cannot build or run the model as imported: {why}",
                                    notes={"seed": self.seed.source, "status": "build error", "error": why,
                                           "baked": self.imported.baked}) from None
        try:
            want, oracle = reference_outputs(self.data)
        except Exception as e:  # noqa: BLE001 - the oracle cannot run this model
            return {"status": "no oracle", "error": f"onnx.reference: {_last_line(e)}"}
        bad = agree(got, want, self.data.rtol, self.data.atol)
        notes = {"status": "wrong vs ONNX" if bad else "clean", "oracle": oracle}
        if bad:
            notes["error"] = bad
        if self.data.expected is None:
            try:
                ort = onnxruntime_outputs(self.data)
            except Exception as e:  # noqa: BLE001
                notes["onnxruntime"] = f"fails: {_last_line(e)}"
            else:
                if ort is not None:
                    notes["onnxruntime"] = agree(got, ort, self.data.rtol, self.data.atol) or "agrees"
        return notes

    def reference(self) -> list[Approx]:
        if self.no_reference:
            raise Unknown(self.no_reference)
        return self.memo("reference", lambda: self.measured_reference(self.built))

    def float64_outputs(self) -> list[np.ndarray]:
        """The float64 version of the model on the same inputs: the ONNX reference evaluator's
        (independent of TVM), else TVM's build of it; ``Unknown`` when neither runs."""
        def make() -> list[np.ndarray]:
            wide = widen(self.imported.model)
            names = [vi.name for vi in graph_inputs(wide)]
            feeds = {n: p.astype(np.float64) if p.dtype.kind == "f" else p for n, p in zip(names, self.params())}
            try:
                from onnx.reference import ReferenceEvaluator

                with np.errstate(all="ignore"):
                    return [np.asarray(o) for o in ReferenceEvaluator(wide).run(None, feeds)]
            except Exception as e:  # noqa: BLE001 - fall back to TVM's float64 build
                first = _last_line(e)
            try:
                return execution.run_relax(import_relax(wide), list(feeds.values()))
            except Exception as e:  # noqa: BLE001
                raise Unknown(f"no float64 version of the model runs to bound its rounding (onnx.reference: "
                              f"{first}; TVM: {_last_line(e)})") from None

        return self.memo("float64_outputs", make)

    def measured_reference(self, mod32: Any) -> list[Approx]:
        """The float64 outputs, each with the largest distance to ``mod32``'s (the model as
        imported, or a mutant of it, before any pass) as its bound."""
        before = self.run("built") if mod32 is self.built else execution.run_relax(mod32, self.params())
        wide = self.float64_outputs()
        if len(wide) != len(before):
            raise Unknown("the float64 version of the model returns other outputs")
        refs = []
        for b, r in zip(before, wide):
            r = np.asarray(r, dtype=np.float64) if np.asarray(r).dtype.kind in "fiub" else np.full(b.shape, np.nan)
            b64 = b.astype(np.float64) if b.shape == r.shape else np.full(r.shape, np.nan)
            ok = np.isfinite(r) & np.isfinite(b64)
            err = float(np.max(np.abs(b64[ok] - r[ok]))) if ok.any() else 0.0
            refs.append(Approx(r, np.full(r.shape, err)))
        return refs

    def compare_with_reference(self, outputs: list[np.ndarray]) -> tuple[int, Mismatch] | None:
        before = self.run("built")
        if len(outputs) != len(before):
            return 0, Mismatch((), float("nan"), float("nan"), 0.0, 0, 0,
                               shape_note=f"{len(outputs)} tensors returned, the model before the pass "
                                          f"returns {len(before)}")
        for i, (got, want) in enumerate(zip(outputs, before)):
            if execution.bitwise_equal(got, want):
                continue
            if got.shape != want.shape or got.dtype != want.dtype:
                return i, Mismatch((), float("nan"), float("nan"), 0.0, got.size, want.size,
                                   shape_note=f"{got.dtype}{list(got.shape)}, before the pass "
                                              f"{want.dtype}{list(want.shape)}")
            if str(got.dtype) not in UNIT_ROUNDOFF:
                bad = ~((got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else got == want)
                idx = tuple(int(k) for k in np.argwhere(bad)[0])
                return i, Mismatch(idx, float(got[idx]), float(want[idx]), 0.0, int(bad.sum()), bad.size)
            m = compare(got, self.reference()[i], str(got.dtype))
            if m is not None:
                return i, m
        return None
