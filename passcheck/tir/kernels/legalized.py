"""PrimFuncs that are real TOPI kernels: ``LegalizeOps`` of a one-op Relax function.

The spec is a ``PrimFuncSpec`` of kind ``"legalized"`` whose attrs name the Relax op and its
arguments. Each op is a ``LegalizedOp`` declared once (in legalized_ops.py) and registered with
``register_op``: its strategy, TOPI's block names and iterator kinds (checked against TVM by
tests/tir/test_tir_primfuncs.py, so schedule strategies can target them without building
anything) and its Relax emitter. LegalizeOps kernels index with int64.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from passcheck.core.errors import GeneratorRejected
from passcheck.tir.kernels.spec import (
    SHAPE_VAR,
    KernelKind,
    PrimFuncSpec,
    Shaped,
    StageInfo,
    at_run_size,
    register_kind,
)

Shape = tuple[Any, ...]  # a Relax parameter's shape: ints, and "n" for the shape var


@dataclass(frozen=True)
class LegalizedOp:
    """One Relax op whose legalized PrimFunc passcheck draws.

    ``shapes()`` draws (input shape, attrs); ``blocks(spec)`` lists TOPI's blocks as (name,
    iterator kinds); ``emit(R, x, attr)`` takes ``tvm.relax.op``, the first parameter's shape
    (dim 0 is "n" when symbolic) and the attrs, and returns every parameter's shape and a
    function of the parameters that builds the op."""

    name: str
    shapes: Callable[[], st.SearchStrategy[Shaped]]
    blocks: Callable[[PrimFuncSpec], list[tuple[str, str]]]
    emit: Callable[[Any, Shape, dict[str, Any]], tuple[list[Shape], Callable[..., Any]]]
    symbolic: bool = False  # dim 0 may be the shape var
    nonlinear: bool = False  # see KernelKind.nonlinear


_OPS: dict[str, LegalizedOp] = {}


def register_op(op: LegalizedOp) -> LegalizedOp:
    """Make ``op`` drawable as the legalized kernel of the Relax op ``op.name``."""
    if op.name in _OPS:
        raise ValueError(f"legalized op {op.name!r} is declared twice")
    _OPS[op.name] = op
    return op


def legalized_op_names() -> tuple[str, ...]:
    """The registered ops, sorted by name (the order ``legalized_specs`` samples them in)."""
    return tuple(sorted(_OPS))


def legalized_op(name: str) -> LegalizedOp:
    """The op registered as ``name``."""
    try:
        return _OPS[name]
    except KeyError:
        raise GeneratorRejected(f"unknown legalized op {name!r}") from None


def _op_of(spec: PrimFuncSpec) -> LegalizedOp:
    return legalized_op(spec.attr["op"])


def legalized_specs(symbolic: bool = True, ops: tuple[str, ...] | None = None) -> st.SearchStrategy[PrimFuncSpec]:
    """Specs of kind "legalized" for the ops in ``ops`` (default: all registered)."""

    @st.composite
    def draw_spec(draw: st.DrawFn) -> PrimFuncSpec:
        op = legalized_op(draw(st.sampled_from(ops or legalized_op_names())))
        shape, attrs = draw(op.shapes())
        total = 1
        for d in shape:
            total *= d
        assume(total <= 3000)
        sym = symbolic and op.symbolic and draw(st.integers(0, 3)) == 0
        return at_run_size(draw, PrimFuncSpec(
            kind="legalized",
            shape=shape,
            attrs=(("op", op.name), *attrs),
            index_dtype="int64",
            symbolic=sym,
            seed=draw(st.integers(0, 2**16)),
        ))

    return draw_spec()


def build_legalized(spec: PrimFuncSpec, dtype: str = "float32") -> Any:
    """LegalizeOps of the one-op Relax function; returns its single PrimFunc as ``main``."""
    import tvm
    from tvm import relax, tirx
    from tvm.relax import op as R

    shape = list(spec.shape)
    if spec.symbolic:
        shape[0] = SHAPE_VAR
    shapes, emit = _op_of(spec).emit(R, tuple(shape), spec.attr)
    syms: dict[str, Any] = {}

    def dim(d: Any) -> Any:
        return syms.setdefault(d, tirx.Var(d, "int64")) if isinstance(d, str) else int(d)

    bb = relax.BlockBuilder()
    names = ["x", "w", "b"]
    params = [relax.Var(names[i], relax.TensorType([dim(d) for d in s], dtype)) for i, s in enumerate(shapes)]
    try:
        with bb.function("main", params):
            with bb.dataflow():
                out = bb.emit_output(emit(*params))
            bb.emit_func_output(out)
        mod = relax.transform.LegalizeOps()(bb.get())
    except (tvm.error.InternalError, tvm.error.DiagnosticError, TypeError, ValueError, RuntimeError) as e:
        raise GeneratorRejected(f"{spec.short()}: {type(e).__name__}: {str(e).strip()[-200:]}") from e
    funcs = [f for f in mod.functions.values() if isinstance(f, tirx.PrimFunc)]
    if len(funcs) != 1:
        raise GeneratorRejected(f"{spec.short()}: LegalizeOps gave {len(funcs)} PrimFuncs")
    return funcs[0].with_attr("global_symbol", "main")


@register_kind
class Legalized(KernelKind):
    """The kernel of one Relax op after LegalizeOps; the op (attr "op") decides everything,
    down to whether dim 0 may be the shape var (``LegalizedOp.symbolic``)."""

    name = "legalized"
    from_relax = True

    def draw_spec(self, draw: st.DrawFn, *, symbolic: bool, int64: bool) -> PrimFuncSpec:
        return draw(legalized_specs(symbolic=symbolic))

    def stages(self, spec: PrimFuncSpec) -> tuple[StageInfo, ...]:
        blocks = _op_of(spec).blocks(spec)
        return tuple(StageInfo(n, it, output=(i == len(blocks) - 1)) for i, (n, it) in enumerate(blocks))

    def build(self, spec: PrimFuncSpec, dtype: str) -> Any:
        return build_legalized(spec, dtype)

    def reduction_length(self, spec: PrimFuncSpec) -> int:
        # TOPI's reductions are not modelled op by op: the whole input bounds each one's length.
        return int(np.prod(spec.shape))

    def nonlinear(self, spec: PrimFuncSpec) -> bool:
        return _op_of(spec).nonlinear
