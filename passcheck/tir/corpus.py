"""A TIR case built from a given module (``--corpus`` with a TIR pass) instead of a drawn spec.

``equivalent_by_execution`` runs ``main`` before and after the pass on the same inputs: every
buffer parameter gets values (a given PrimFunc need not write only its last parameter), and
every buffer parameter is compared after the call. Equal bits hold; integer buffers must be
equal; a float buffer that differs must lie within the tolerance model's bound of the float64
version of the given module (its TVMScript with every float type widened), the bound's error
term being the largest distance, over that buffer, between the float32 module before the pass
and its float64 version (the rounding the module is measured to make on these inputs). Without
a float64 version the difference is unknown. Shape vars take a value in 1..4 per name; floats
are uniform in [-1, 1], integers 1 (indices and divisors: see ``passcheck.relax.corpus``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from passcheck.core.corpus import CorpusModule, parse, parse_given, widen_floats
from passcheck.core.errors import Discard, Unknown
from passcheck.core.rounding import UNIT_ROUNDOFF
from passcheck.tir.analysis import Evaluator, is_int, key
from passcheck.tir.case import TirCase

SAFETY = 8.0  # as the Relax tolerance model: first-order bound looseness


@dataclass
class BufferMismatch:
    buffer: str
    index: tuple[int, ...]
    got: float
    want: float
    allowed: float
    count: int
    total: int

    def describe(self) -> str:
        how = "bit-exact" if self.allowed == 0 else f"float64 reference, allowed error {self.allowed:.3g}"
        return (f"buffer {self.buffer}{list(self.index)} = {self.got!r}, expected {self.want!r} ({how}); "
                f"{self.count} of {self.total} elements differ")


def _main(mod: Any) -> Any:
    from tvm import tirx

    funcs = {gv.name_hint: f for gv, f in mod.functions_items() if isinstance(f, tirx.PrimFunc)}
    if "main" in funcs:
        return "main", funcs["main"]
    name = sorted(funcs)[0]
    return name, funcs[name]


def signature_arrays(func: Any, seed: int) -> list[Any]:
    """Values for every parameter of ``func`` (buffers: arrays; scalars: numbers)."""
    import tvm
    import tvm_ffi

    rng = np.random.default_rng([seed, 6151])
    sizes: dict[str, int] = {}
    env: dict[int, int] = {}

    def bind(v: Any) -> None:
        if is_int(str(v.ty.dtype)):
            sizes.setdefault(v.name, int(rng.integers(1, 5)))
            env[key(v)] = sizes[v.name]

    out: list[Any] = []
    for p in func.params:
        if hasattr(p.ty, "shape"):
            for d in p.shape:
                tvm_ffi.structural_walk(d, [(tvm.ir.Var, bind)])
    ev = Evaluator(env)
    for p in func.params:
        if not hasattr(p.ty, "shape"):
            if not hasattr(p.ty, "dtype"):
                raise Discard(f"no value drawn for parameter {p.name} of type {p.ty}")
            dt = str(p.ty.dtype)
            out.append(env.get(key(p), 1) if is_int(dt) else 0.5)
            continue
        try:
            shape = tuple(int(ev(d)) for d in p.shape)
        except Exception as e:  # noqa: BLE001
            raise Discard(f"no concrete shape for parameter {p.name}: {e}") from None
        dt = str(p.dtype)
        if dt == "bool":
            out.append(rng.integers(0, 2, size=shape).astype(bool))
        elif is_int(dt):
            out.append(np.ones(shape, dtype=dt))
        else:
            out.append(rng.uniform(-1.0, 1.0, size=shape).astype(dt))
    return out


def _call(mod: Any, name: str, args: list[Any]) -> list[np.ndarray]:
    """Compile ``mod`` and call ``name`` on copies of ``args``; every buffer argument after."""
    import tvm

    from passcheck.tir.execution import compile_module

    lib = compile_module(mod)
    tensors = [tvm.runtime.tensor(np.array(a)) if isinstance(a, np.ndarray) else a for a in args]
    lib[name](*tensors)
    return [t.numpy() for t in tensors if hasattr(t, "numpy")]


class CorpusTirCase(TirCase):
    """A ``TirCase`` for a given module: ``spec`` is None; ``original`` = ``before`` = the module."""

    def __init__(self, subject: str, example: CorpusModule) -> None:
        super().__init__(subject, example, None)
        self.original = self.before = parse_given(example)
        self.entry, _ = _main(self.before)
        self.reassociates = True  # an unknown pass: only the tolerance comparison is fair to it

    def args(self) -> list[Any]:
        """The arguments of ``main`` (Discard when a parameter has no drawing, e.g. a pointer)."""
        return self.memo("args", lambda: signature_arrays(_main(self.before)[1], self.example.seed))

    def describe(self) -> str:
        return self.example.describe() + ("\n" + self.trace_text() if self.trace else "")

    def execute(self, which: str = "after") -> list[np.ndarray]:
        def go() -> list[np.ndarray]:
            if which != "before":
                try:
                    self.execute("before")
                except Exception as e:  # noqa: BLE001 - the given module itself failing is no finding
                    raise Discard(f"the module before the pass does not build or run: {type(e).__name__}") from None
            return _call(getattr(self, which), self.entry, self.args())
        return self.memo(("execute", which), go)

    def unwritten_note(self) -> str | None:
        # A given module is its own reference: whatever it leaves unwritten, it defines.
        return None

    def _reference64(self) -> list[np.ndarray]:
        wide = widen_floats(self.example.script)
        if wide is None:
            raise Unknown("the output differs from the module before the pass, which has tensor constants: "
                          "no float64 version to bound its rounding")
        args = [a.astype(np.float64) if isinstance(a, np.ndarray) and np.issubdtype(a.dtype, np.floating) else a
                for a in self.args()]
        try:
            return _call(parse(wide), self.entry, args)
        except Exception as e:  # noqa: BLE001
            raise Unknown(f"the output differs from the module before the pass, whose float64 version does "
                          f"not run ({type(e).__name__})") from None

    def compare_outputs(self, got: list[np.ndarray]) -> BufferMismatch | None:
        want = self.execute("before")
        names = [p.name for p in _main(self.before)[1].params if hasattr(p.ty, "shape")]
        for k, (g, w) in enumerate(zip(got, want)):
            same = (g == w) | (np.isnan(g) & np.isnan(w)) if np.issubdtype(g.dtype, np.floating) else g == w
            if g.shape == w.shape and np.all(same):
                continue
            if g.shape != w.shape or not np.issubdtype(g.dtype, np.floating):
                bad = ~same if g.shape == w.shape else np.ones(w.shape, bool)
                idx = tuple(int(i) for i in np.argwhere(bad)[0])
                return BufferMismatch(names[k], idx, float(g[idx]) if g.shape == w.shape else float("nan"),
                                      float(w[idx]), 0.0, int(bad.sum()), bad.size)
            m = self._tolerance(names[k], g, w, self.memo("reference64", self._reference64)[k])
            if m is not None:
                return m
        return None

    @staticmethod
    def _tolerance(name: str, got: np.ndarray, f32: np.ndarray, ref: np.ndarray) -> BufferMismatch | None:
        u = UNIT_ROUNDOFF.get(str(got.dtype), UNIT_ROUNDOFF["float32"])
        v, b, g = ref.astype(np.float64), f32.astype(np.float64), got.astype(np.float64)
        ok = np.isfinite(v) & np.isfinite(b)
        err = float(np.max(np.abs(b[ok] - v[ok]))) if ok.any() else 0.0
        allowed = SAFETY * err + 4 * u * np.abs(v) + 1e-30
        bad = ok & ~(np.abs(g - v) <= allowed)
        if not bad.any():
            return None
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        return BufferMismatch(name, idx, float(g[idx]), float(v[idx]), float(allowed[idx]), int(bad.sum()), bad.size)


def corpus_case(subject: str, example: CorpusModule) -> CorpusTirCase:
    return CorpusTirCase(subject, example)
