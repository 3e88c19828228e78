"""Kinds built from a TE compute: ``TeKind``, and the ``TeBuilder`` helpers their computes use.

A TE kind declares its shape/attrs strategy (``shapes``), its core blocks (``core_stages``)
and its core compute (``compute``); ``TeKind`` adds what every TE kind shares: the drawn
options (index dtype, shape var, seed), the optional elementwise ``pre`` stage between the
main input ``X`` and the core, and the optional ``post`` stage after it.
"""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from passcheck.core.errors import GeneratorRejected
from passcheck.tir.kernels.spec import SHAPE_VAR, KernelKind, PrimFuncSpec, Shaped, StageInfo, at_run_size

# post = f(core): a non-linear one, a linear one (the "Bias" form fuse_reduction_epilogue
# supports exactly), and a clip.
EPILOGUES = ("relu_shift", "bias", "clip")


def _size_ok(points: int, limit: int = 6000) -> bool:
    return 0 < points <= limit


class TeBuilder:
    """TE computes for one spec; every index constant takes the spec's index dtype."""

    def __init__(self, spec: PrimFuncSpec, dtype: str) -> None:
        from tvm import te, tirx

        self.te, self.tirx = te, tirx
        self.spec, self.dtype, self.idt = spec, dtype, spec.index_dtype
        self.a = spec.attr
        self.n = te.var(SHAPE_VAR, self.idt) if spec.symbolic else None

    def i(self, v: int) -> Any:
        return self.tirx.IntImm(self.idt, int(v))

    def dims(self, shape: tuple[int, ...], symbolic_first: bool) -> list[Any]:
        out = [self.i(d) for d in shape]
        if symbolic_first and self.n is not None:
            out[0] = self.n
        return out

    def f(self, v: float) -> Any:
        return self.tirx.const(v, self.dtype)

    def placeholder(self, shape: list[Any], name: str) -> Any:
        return self.te.placeholder(shape, self.dtype, name=name)

    def compute(self, shape: list[Any], fn: Callable[..., Any], name: str) -> Any:
        return self.te.compute(shape, fn, name=name)

    def raxis(self, extent: Any, name: str) -> Any:
        return self.te.reduce_axis((self.i(0), extent), name=name)


class TeKind(KernelKind):
    """A kind whose core is a TE compute on the main input ``X`` (plus inputs of its own)."""

    @staticmethod
    @abstractmethod
    def shapes() -> st.SearchStrategy[Shaped]:
        """Draws the main input's shape and the attrs (declare it ``@staticmethod @st.composite``)."""

    @abstractmethod
    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        """The blocks of the core compute, in program order (``output`` left False)."""

    @abstractmethod
    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        """The core: ``x`` is the placeholder ``X``, ``src`` what the core reads in its place
        (``X`` or the ``pre`` stage), ``shape`` their dims. Returns (parameters, output tensor)."""

    def draw_spec(self, draw: st.DrawFn, *, symbolic: bool, int64: bool) -> PrimFuncSpec:
        shape, attrs = draw(self.shapes())
        spec = PrimFuncSpec(
            kind=self.name,
            shape=shape,
            attrs=attrs,
            index_dtype=draw(st.sampled_from(("int32", "int64"))) if int64 else "int32",
            symbolic=symbolic and self.symbolic and draw(st.integers(0, 3)) == 0,
            prologue=draw(st.booleans()),
            epilogue=draw(st.booleans()),
            seed=draw(st.integers(0, 2**16)),
            epilogue_op=draw(st.sampled_from(EPILOGUES)),
        )
        assume(self.valid(spec) and _size_ok(self.iteration_points(spec)))
        return at_run_size(draw, spec)

    def stages(self, spec: PrimFuncSpec) -> tuple[StageInfo, ...]:
        out: list[StageInfo] = []
        if spec.prologue:
            out.append(StageInfo("pre", "S" * len(spec.shape)))
        out.extend(self.core_stages(spec))
        if spec.epilogue:
            last = out[-1]
            out.append(StageInfo("post", "S" * last.n_spatial))
        last = out[-1]
        out[-1] = dataclasses.replace(last, output=True)
        return tuple(out)

    def build(self, spec: PrimFuncSpec, dtype: str) -> Any:
        from tvm import te

        b = TeBuilder(spec, dtype)
        try:
            params, out = self._kernel(b)
            func = te.create_prim_func([*params, out])
        except (ValueError, TypeError, RuntimeError) as e:  # TVM errors subclass these
            raise GeneratorRejected(f"{spec.short()}: {type(e).__name__}: {str(e).strip()[-200:]}") from e
        return func.with_attr("global_symbol", "main")

    def _kernel(self, b: TeBuilder) -> tuple[list[Any], Any]:
        spec = b.spec
        x_shape = b.dims(spec.shape, symbolic_first=True)
        x = b.placeholder(x_shape, "X")
        src = x
        if spec.prologue:
            src = b.compute(x_shape, lambda *ix: x(*ix) * b.f(0.5) + b.f(1.0), "pre")
        params, out = self.compute(b, x, src, x_shape)
        if spec.epilogue:
            core = out
            fn = {
                "relu_shift": lambda *ix: b.te.max(core(*ix), b.f(0.0)) - b.f(0.25),
                "bias": lambda *ix: core(*ix) + b.f(1.5),
                "clip": lambda *ix: b.te.min(b.te.max(core(*ix), b.f(-2.0)), b.f(2.0)),
            }[spec.epilogue_op]
            out = b.compute(list(core.shape), fn, "post")
        return params, out
