"""A Relax case built from a given module (``--corpus``) instead of a drawn ``GraphSpec``.

There is no spec, so no float64 reference of the ops. ``semantics_preserved`` compares the
pass's output with the module before the pass, compiled the same way and run on the same
inputs:

* outputs equal bit for bit (NaN where NaN) hold;
* integer and bool outputs must be equal;
* a float output that differs must be within the tolerance model's bound of the float64
  version of the given module (every float type of its TVMScript widened to float64), where
  the reference error bound ``e`` is the largest distance, over the output tensor, between
  the float32 module before the pass and that float64 version: the rounding error the module
  itself is measured to make on these inputs. A module with no float64 version (tensor
  constants, or it does not build in float64) leaves such a difference *unknown*.

Inputs are drawn for the entry function's signature from the example's seed: symbolic dims
take a value in 1..4 (one per name), floats are uniform in [-1, 1], bools are random, and
integers are 1: they are often indices, strides or divisors, where 0 or a larger value can make
the module itself divide by zero or read out of bounds (undefined before any pass runs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from passcheck.core.corpus import CorpusModule, parse, parse_given, widen_floats
from passcheck.core.errors import Discard, Unknown
from passcheck.core.rounding import Approx
from passcheck.relax import execution
from passcheck.relax.case import RelaxCase
from passcheck.relax.examples import ExampleKind, register_example_kind
from passcheck.relax.tolerance import Mismatch, compare


def entry_function(mod: Any) -> str:
    """``main`` when the module has it, else its first Relax function."""
    from tvm import relax

    names = [gv.name_hint for gv, f in mod.functions_items() if isinstance(f, relax.Function)]
    return "main" if "main" in names else sorted(names)[0]


class _Dims:
    """Concrete values of a signature's symbolic dims, one per name, drawn on first use."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.values: dict[str, int] = {}

    def __call__(self, dim: Any) -> int:
        import tvm
        from tvm import sym, tirx

        if isinstance(dim, tirx.IntImm):
            return int(dim.value)
        free: list[Any] = []
        _free_vars(dim, free)
        ana = sym.Analyzer()
        for v in free:
            if v.name not in self.values:
                self.values[v.name] = int(self.rng.integers(1, 5))
            ana.bind(v, tvm.ir.Range.from_min_extent(self.values[v.name], 1))
        value = ana.simplify(dim)
        if not isinstance(value, tirx.IntImm):
            raise Discard(f"cannot give the dim {dim} a value")
        return int(value.value)


def _free_vars(expr: Any, out: list[Any]) -> None:
    import tvm
    import tvm_ffi

    tvm_ffi.structural_walk(expr, [(tvm.ir.Var, out.append)])


def _values(shape: tuple[int, ...], dtype: str, rng: np.random.Generator) -> np.ndarray:
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return np.ones(shape, dtype=dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def signature_inputs(func: Any, seed: int) -> list[Any]:
    """Arguments for ``func``'s parameters (Discard when a parameter type has no drawing)."""
    from tvm import relax

    rng = np.random.default_rng([seed, 7727])
    dims = _Dims(rng)

    def one(ty: Any, name: str) -> Any:
        if isinstance(ty, relax.TensorType) and ty.shape is not None:
            return _values(tuple(dims(d) for d in ty.shape.values), str(ty.dtype), rng)
        if isinstance(ty, relax.TupleType):
            return [one(f, name) for f in ty.fields]
        raise Discard(f"no inputs drawn for parameter {name} of type {ty}")

    return [one(p.ty, p.name) for p in func.params]


def _flat(args: list[Any]) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for a in args:
        out.extend(_flat(a) if isinstance(a, list) else [a])
    return out


def _to_float64(args: list[Any]) -> list[Any]:
    return [_to_float64(a) if isinstance(a, list) else
            (a.astype(np.float64) if np.issubdtype(a.dtype, np.floating) else a) for a in args]


class CorpusRelaxCase(RelaxCase):
    """A ``RelaxCase`` for a given module: ``spec`` is None, ``example`` the ``CorpusModule``,
    ``entry`` the function run (``main`` if there is one)."""

    def __init__(self, subject: str, example: CorpusModule, extras: dict[str, Any]) -> None:
        super().__init__(subject, None, example, extras)  # the subject's own extras dict, not a copy
        self.built = parse_given(example)
        self.entry = entry_function(self.built)

    def params(self) -> list[Any]:
        return self.memo("params", lambda: signature_inputs(self.built[self.entry], self.example.seed))

    def run(self, which: str = "after") -> list[np.ndarray]:
        if which != "before":
            try:
                self.run("before")
            except Discard:
                raise
            except Exception as e:  # noqa: BLE001 - the given module itself not running is no finding
                lines = str(e).strip().splitlines()
                raise Discard(f"the module before the pass does not run on CPU: {type(e).__name__}: "
                              f"{lines[-1][:200] if lines else ''}") from None
        return super().run(which)

    def reference(self) -> list[Approx]:
        """The float64 version of the given module on the same inputs, each output with the
        float32 module's measured rounding error as its bound (``Unknown`` when it has none)."""
        return self.memo("reference", self._reference64)

    def _reference64(self) -> list[Approx]:
        before = self.run("before")
        wide = widen_floats(self.example.script)
        if wide is None:
            raise Unknown("the output differs from the module before the pass, which has tensor constants: "
                          "no float64 version to bound its rounding")
        try:
            out64 = execution.run_relax(parse(wide), _to_float64(self.params()), self.entry)
        except Exception as e:  # noqa: BLE001
            raise Unknown(f"the output differs from the module before the pass, whose float64 version does "
                          f"not run ({type(e).__name__})") from None
        refs = []
        for b, r in zip(before, out64):
            if b.shape != r.shape:
                raise Unknown("the float64 version of the module returns other shapes")
            r = r.astype(np.float64)
            ok = np.isfinite(r) & np.isfinite(b.astype(np.float64))
            err = float(np.max(np.abs(b.astype(np.float64)[ok] - r[ok]))) if ok.any() else 0.0
            refs.append(Approx(r, np.full(r.shape, err)))
        return refs

    def compare_with_reference(self, outputs: list[np.ndarray]) -> tuple[int, Mismatch] | None:
        before = self.run("before")
        if len(outputs) != len(before):
            return 0, Mismatch((), float("nan"), float("nan"), 0.0, 0, 0,
                               shape_note=f"{len(outputs)} tensors returned, the module before the pass "
                                          f"returns {len(before)}")
        for i, (got, want) in enumerate(zip(outputs, before)):
            if execution.bitwise_equal(got, want):
                continue
            if got.shape != want.shape or got.dtype != want.dtype:
                return i, Mismatch((), float("nan"), float("nan"), 0.0, got.size, want.size,
                                   shape_note=f"{got.dtype}{list(got.shape)}, before the pass "
                                              f"{want.dtype}{list(want.shape)}")
            if not np.issubdtype(got.dtype, np.floating):
                bad = got != want
                idx = tuple(int(k) for k in np.argwhere(bad)[0])
                return i, Mismatch(idx, float(got[idx]), float(want[idx]), 0.0, int(bad.sum()), bad.size)
            m = compare(got, self.reference()[i], str(got.dtype))
            if m is not None:
                return i, m
        return None


def corpus_case(subject: str, example: CorpusModule, extras: dict[str, Any]) -> CorpusRelaxCase:
    return CorpusRelaxCase(subject, example, extras)


def save_corpus_inputs(case_inputs: list[Any], path: Any) -> None:
    np.savez(path, *_flat(case_inputs))


def _save_inputs(example: CorpusModule, directory: Path) -> None:
    save_corpus_inputs(corpus_case("", example, {}).params(), directory / "inputs.npz")


register_example_kind(CorpusModule, ExampleKind(
    new_case=lambda subject, example: corpus_case(subject, example, {}),
    describe=lambda example: example.describe(),
    save_inputs=_save_inputs,
))
