"""Compile and run PrimFuncs on CPU; compare a scheduled kernel with the unscheduled one.

Only call ``run`` on code the bounds checker proved in bounds: an out-of-bounds kernel
corrupts the heap of the process that runs it. Kernels use destination passing: the last
parameter is the output. A scheduled kernel runs twice (``run_fills``): once with the output
and every buffer it allocates (intermediates, caches, padded copies; the module is lowered to
loops first, each allocation followed by a fill loop) pre-filled with a finite marker drawn
with the spec (``marker``), once with NaN. A schedule that reads an element nobody wrote then
changes the result the same way every time -- a finite marker where NaN would vanish (a
``max``, a comparison), NaN where the marker would be clipped away -- instead of whatever the
stack or the workspace pool held (often an earlier run's value that happens to be right).

Comparison: when no step may reassociate a reduction, the scheduled float32 output must equal
the unscheduled float32 output bit for bit (NaN where NaN). Otherwise it must lie within a
rounding-error bound of the float64 build of the unscheduled spec: ``K * u * |ref|abs`` where
``|ref|abs`` is the float64 kernel run on ``|inputs|`` (the sum of absolute terms of each
reduction) and ``K`` grows with the reduction length (the kind's ``reduction_length``). Kernels
whose kind says they are ``nonlinear`` (exp, division, interpolation), and those with no
float64 build, are also allowed a small relative error.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from passcheck.core import timing
from passcheck.core.errors import GeneratorRejected
from passcheck.core.rounding import UNIT_ROUNDOFF
from passcheck.tir.analysis.concrete import Evaluator, key
from passcheck.tir.fills import _out_fill, _poison, _with_fill_param, marker, poison_intermediates
from passcheck.tir.kernels import PrimFuncSpec, build_primfunc, input_arrays, kind_of, shape_var_value
from passcheck.tir.lowering import lower_to_loops

U32 = UNIT_ROUNDOFF["float32"]


def target() -> Any:
    import tvm

    return tvm.target.Target({"kind": "llvm", "opt-level": 0})


def compile_module(mod: Any) -> Any:
    import tvm

    with timing.stage("lower"):
        return tvm.compile(mod, target=target())


def param_shapes(func: Any, sizes: dict[str, int]) -> list[tuple[tuple[int, ...], str]]:
    """Concrete (shape, dtype) of each parameter, shape vars taking ``sizes`` (by name)."""
    import tvm
    import tvm_ffi

    env: dict[int, int] = {}

    def bind(v: Any) -> None:
        if v.name in sizes:
            env[key(v)] = sizes[v.name]

    out = []
    for p in func.params:
        for d in p.shape:
            tvm_ffi.structural_walk(d, [(tvm.ir.Var, bind)])
        ev = Evaluator(env)
        out.append((tuple(int(ev(d)) for d in p.shape), str(p.dtype)))
    return out


def run_fills(mod: Any, inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: str,
              fills: tuple[float, ...], lowered: Any = None) -> list[np.ndarray]:
    """Compile ``mod`` once and call ``main(*inputs, out)`` once per value of ``fills``, the
    output and every float buffer ``mod`` allocates pre-filled with that value; returns the
    outputs in the order of ``fills``."""
    import tvm

    # The build of mod itself is the authority on whether it compiles (compiling the lowered,
    # filled copy takes a different path through the pipeline and can hide a build failure).
    lib = compile_module(mod)
    filled = _with_fill_param(mod, lowered)
    extra = False
    if filled is not None:
        try:
            lib, extra = compile_module(filled), True
        except Exception:  # noqa: BLE001 - run mod as built: only the output is pre-filled
            pass
    outs = []
    for value in fills:
        out = tvm.runtime.tensor(_out_fill(value, out_shape, out_dtype))
        with timing.stage("run"):  # the first call also emits the machine code (LLVM JIT)
            lib["main"](*[tvm.runtime.tensor(a) for a in inputs], out, *([float(value)] if extra else []))
        outs.append(out.numpy())
    return outs


def run(mod: Any, inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: str,
        lowered: Any = None, second_fill: bool = False) -> np.ndarray:
    """Compile ``mod`` (intermediates NaN) and call ``main(*inputs, out)``; returns ``out``
    (pre-filled with ``_poison``, its second fill if asked)."""
    import tvm

    lib = compile_module(mod)
    poisoned = poison_intermediates(mod, lowered)
    if poisoned is not None:
        try:
            lib = compile_module(poisoned)
        except Exception:  # noqa: BLE001 - run mod as built
            pass
    out = tvm.runtime.tensor(_poison(out_shape, out_dtype, second_fill))
    with timing.stage("run"):  # the first call also emits the machine code (LLVM JIT)
        lib["main"](*[tvm.runtime.tensor(a) for a in inputs], out)
    return out.numpy()


@dataclass
class Reference:
    spec: PrimFuncSpec
    inputs: list[np.ndarray]  # float32
    out32: np.ndarray  # the unscheduled float32 kernel
    out_shape: tuple[int, ...]
    out_dtype: str
    # Output elements the unscheduled kernel never writes (still the pre-fill after a run with
    # either fill): it then has no defined output there.
    unwritten: np.ndarray | None = None
    # Output elements computed from an intermediate element no store wrote (they change with
    # what the intermediates were filled with): no defined output there either.
    uninit: np.ndarray | None = None
    _r64: tuple[np.ndarray, np.ndarray, bool] | None = None

    def unwritten_note(self) -> str | None:
        """What the unscheduled kernel leaves unwritten or computes from unwritten
        intermediates, or None when every output is defined."""
        at = ", ".join(f"{k}={v}" for k, v in shape_var_value(self.spec).items())
        at = f" at {at}" if at else ""
        if self.unwritten is not None and self.unwritten.any():
            idx = [int(i) for i in np.argwhere(self.unwritten)[0]]
            return (f"the unscheduled kernel leaves {int(self.unwritten.sum())} of {self.unwritten.size} output "
                    f"elements unwritten (e.g. output{idx}){at}")
        if self.uninit is not None and self.uninit.any():
            idx = [int(i) for i in np.argwhere(self.uninit)[0]]
            return (f"the unscheduled kernel computes {int(self.uninit.sum())} of {self.uninit.size} output "
                    f"elements from intermediate elements no store wrote (e.g. output{idx}){at}")
        return None

    def _float64(self) -> tuple[np.ndarray, np.ndarray, bool]:
        """(ref64, abs64, approximate), built only when a tolerance comparison needs them."""
        if self._r64 is None:
            self._r64 = _reference64(self.spec, self.inputs, self.out32, self.out_shape, self.out_dtype)
        return self._r64

    @property
    def ref64(self) -> np.ndarray:
        """The unscheduled kernel built and run in float64."""
        return self._float64()[0]

    @property
    def abs64(self) -> np.ndarray:
        """The float64 kernel on |inputs|: each reduction's sum of absolute terms."""
        return self._float64()[1]

    @property
    def approximate(self) -> bool:
        """No float64 build exists (e.g. TOPI's layer_norm): ref64 is the float32 output."""
        return self._float64()[2]


@lru_cache(maxsize=64)
def reference(spec: PrimFuncSpec) -> Reference:
    """Outputs of the unscheduled kernel for ``spec`` (cached per worker: specs repeat)."""
    import tvm

    f32 = build_primfunc(spec, "float32")
    shapes = param_shapes(f32, shape_var_value(spec))
    ins = input_arrays(spec, [s for s, _ in shapes[:-1]])
    out_shape, out_dtype = shapes[-1]
    mod = tvm.IRModule({"main": f32})
    try:  # lowered once for every run below (None: each run then builds ``mod`` as it is)
        lowered = lower_to_loops(mod)
    except Exception:  # noqa: BLE001
        lowered = None
    out32 = run(mod, ins, out_shape, out_dtype, lowered)
    first = _poison((), out_dtype)
    unfilled = np.isnan(out32) if np.isnan(first) else out32 == first
    unwritten = None
    if unfilled.any():  # written as NaN, or not written at all?
        again = run(mod, ins, out_shape, out_dtype, lowered, second_fill=True)
        unwritten = unfilled & (again == _poison((), out_dtype, second=True))
    # Its intermediates were NaN, which a max or a comparison can hide: with the marker in them
    # instead, an output that changes was computed from an element no store wrote (a reduction
    # into an intermediate over an empty axis never runs its init).
    uninit = None
    if lowered is not None and poison_intermediates(mod, lowered) is not None:
        (marked,) = run_fills(mod, ins, out_shape, out_dtype, (marker(spec),), lowered)
        uninit = ~((marked == out32) | (np.isnan(marked) & np.isnan(out32)))
        if unwritten is not None:
            uninit &= ~unwritten
    return Reference(spec, ins, out32, out_shape, out_dtype, unwritten, uninit)


def _reference64(spec: PrimFuncSpec, ins: list[np.ndarray], out32: np.ndarray, out_shape: tuple[int, ...],
                 out_dtype: str) -> tuple[np.ndarray, np.ndarray, bool]:
    import tvm

    try:
        f64 = build_primfunc(spec, "float64")
    except GeneratorRejected:  # some TOPI kernels (layer_norm) exist in float32 only
        ref = out32.astype(np.float64)
        return ref, np.abs(ref), True
    lib = compile_module(tvm.IRModule({"main": f64}))
    dt64 = "float64" if out_dtype == "float32" else out_dtype

    def call(arrays: list[np.ndarray]) -> np.ndarray:
        out = tvm.runtime.tensor(_poison(out_shape, dt64))
        lib["main"](*[tvm.runtime.tensor(a) for a in arrays], out)
        return out.numpy().astype(np.float64)

    ins64 = [a.astype(np.float64) for a in ins]
    ref = call(ins64)
    # The error bound needs each reduction's sum of |terms|: the kernel on |inputs|, but
    # *without* the epilogue (which may subtract and cancel: max(x, 0) - 0.25 turns a large
    # sum into a small result whose absolute error is still the sum's). The epilogues are
    # 1-Lipschitz, so the core's error bound carries over.
    core = dataclasses.replace(spec, epilogue=False) if spec.epilogue else spec
    if core is spec:
        absref = call([np.abs(a) for a in ins64])
    else:
        core_lib = compile_module(tvm.IRModule({"main": build_primfunc(core, "float64")}))
        out = tvm.runtime.tensor(_poison(out_shape, dt64))
        core_lib["main"](*[tvm.runtime.tensor(np.abs(a)) for a in ins64], out)
        absref = out.numpy().astype(np.float64)
    return ref, np.abs(absref), False


@dataclass
class Mismatch:
    index: tuple[int, ...]
    got: float
    want: float
    allowed: float
    count: int
    total: int
    mode: str  # "exact" | "tolerance" | "shape"
    shape_note: str = ""
    fill: float | None = None  # what the output and the allocated buffers were pre-filled with

    def describe(self) -> str:
        if self.mode == "shape":
            return f"output: {self.shape_note}"
        how = "bit-exact comparison with the unscheduled kernel" if self.mode == "exact" else (
            f"float64 reference, allowed error {self.allowed:.3g}")
        filled = "" if self.fill is None else f" (output and allocated buffers pre-filled with {self.fill!r})"
        return (f"output{list(self.index)} = {self.got!r}, expected {self.want!r} ({how}); "
                f"{self.count} of {self.total} elements differ{filled}")


def compare(spec: PrimFuncSpec, got: np.ndarray, ref: Reference, exact: bool) -> Mismatch | None:
    if tuple(got.shape) != tuple(ref.out_shape):
        return Mismatch((), float("nan"), float("nan"), 0.0, got.size, int(np.prod(ref.out_shape)), "shape",
                        f"shape {list(got.shape)}, the unscheduled kernel's is {list(ref.out_shape)}")
    same = (got == ref.out32) | (np.isnan(got) & np.isnan(ref.out32))
    if same.all():
        return None  # bit-identical to the unscheduled kernel: no tolerance needed
    if exact or not np.issubdtype(got.dtype, np.floating):
        bad = ~same
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        return Mismatch(idx, float(got[idx]), float(ref.out32[idx]), 0.0, int(bad.sum()), bad.size, "exact")
    kind = kind_of(spec)
    k = 2 * (kind.reduction_length(spec) + 8)
    allowed = k * U32 * ref.abs64 + 8 * U32 * np.abs(ref.ref64) + 1e-30
    if ref.approximate or kind.nonlinear(spec):
        allowed = np.maximum(allowed, 1e-4 * np.abs(ref.ref64) + 1e-5)
    g = got.astype(np.float64)
    bad = ~(np.abs(g - ref.ref64) <= allowed)
    bad &= ~(np.isnan(g) & np.isnan(ref.ref64))
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return Mismatch(idx, float(g[idx]), float(ref.ref64[idx]), float(allowed[idx]), int(bad.sum()), bad.size,
                    "tolerance")


def run_scheduled(spec: PrimFuncSpec, mod: Any, lowered: Any = None) -> np.ndarray:
    """``mod`` run on the reference inputs; ``lowered``: its ``lower_to_loops`` form, if known."""
    ref = reference(spec)
    return run(mod, ref.inputs, ref.out_shape, ref.out_dtype, lowered)


@dataclass
class Filled:
    """An output of a scheduled kernel, and what its buffers were pre-filled with."""

    fill: float
    out: np.ndarray


def run_scheduled_fills(spec: PrimFuncSpec, mod: Any, lowered: Any = None) -> list[Filled]:
    """``mod`` run on the reference inputs twice: pre-filled with the spec's ``marker``, then
    with NaN."""
    ref = reference(spec)
    fills = (marker(spec), float("nan"))
    outs = run_fills(mod, ref.inputs, ref.out_shape, ref.out_dtype, fills, lowered)
    return [Filled(f, o) for f, o in zip(fills, outs, strict=True)]


def compare_fills(spec: PrimFuncSpec, runs: list[Filled], exact: bool) -> Mismatch | None:
    """The first mismatch of any run (``Mismatch.fill`` says which pre-fill showed it)."""
    ref = reference(spec)
    for r in runs:
        bad = compare(spec, r.out, ref, exact)
        if bad is not None:
            bad.fill = r.fill
            return bad
    return None
