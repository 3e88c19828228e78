"""Hypothesis strategies for your own ``@given`` tests: passcheck's Relax graphs, PrimFuncs,
schedules, and inputs for a module's signature.

    from hypothesis import given, strategies as st
    from passcheck.strategies import inputs_for, relax_graphs

    @given(relax_graphs(ops=["add", "subtract", "relu"], max_ops=4), st.data())
    def test_my_pass_keeps_values(mod, data):
        args = data.draw(inputs_for(mod))
        ...  # compile mod and my_pass(mod), run both on args, compare

Each strategy draws plain data and builds TVM IR from it, so Hypothesis shrinks a failure to
a small module (print it with ``mod.script()``). See ``examples/test_strategies.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

__all__ = ["Scheduled", "inputs_for", "prim_funcs", "relax_graph_specs", "relax_graphs", "schedules"]


def relax_graph_specs(ops: Iterable[str] | None = None, dtypes: Iterable[str] = ("float32",),
                      symbolic: bool = False, max_ops: int = 6) -> st.SearchStrategy[Any]:
    """Plain-data Relax graphs (``GraphSpec``: ops, shapes, attributes, seeds) over the op
    vocabulary (``passcheck list --ops``); ``relax_graphs`` builds them."""
    from passcheck.relax.graphs import OTHER_DTYPES, GraphBias
    from passcheck.relax.graphs import relax_graphs as _graphs
    from passcheck.relax.ops import op_registry

    known = sorted(op_registry())
    wanted = known if ops is None else list(ops)
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        raise ValueError(f"unknown op(s) {', '.join(unknown)}; `passcheck list --ops` shows the vocabulary")
    every = ("float32", "float16", *OTHER_DTYPES)  # what passcheck's own runs draw
    dts = tuple(d for d in every if d in set(dtypes))
    if not dts or set(dtypes) - set(every):
        raise ValueError(f"dtypes must be some of {', '.join(every)}, not {sorted(set(dtypes))}")
    registry = op_registry()
    for d in dts:
        if not any(registry[n].accepts(d) for n in wanted):
            raise ValueError(f"no op of {sorted(wanted)} takes {d}: add one that does (`passcheck list --ops` "
                             "shows each op's dtypes) or leave the dtype out")
    if max_ops < 1:
        raise ValueError("max_ops must be at least 1")
    bias = GraphBias(op_weights=tuple((n, 1.0 if n in wanted else 0.0) for n in known), max_nodes=max_ops,
                     min_nodes=1, symbolic=0.5 if symbolic else 0.0, other_dtypes=0.0, dtypes=dts)
    return _graphs(bias)


def relax_graphs(ops: Iterable[str] | None = None, dtypes: Iterable[str] = ("float32",), symbolic: bool = False,
                 max_ops: int = 6) -> st.SearchStrategy[Any]:
    """Relax ``IRModule``s with one function ``main`` in a dataflow block: DAGs of up to
    ``max_ops`` ops drawn among ``ops`` (default: every op passcheck knows), the first input of
    one of ``dtypes`` (float32, float16, float64, bfloat16, int8, int16, int32, int64, uint8,
    bool: the ten passcheck's own runs draw; an op may compute another, e.g. a comparison's
    bool), with a symbolic leading dim when ``symbolic``."""
    from passcheck.relax.build import build_module

    return relax_graph_specs(ops, dtypes, symbolic, max_ops).map(build_module)


@st.composite
def _built(draw: st.DrawFn, specs: st.SearchStrategy[Any]) -> Any:
    from passcheck.core.errors import GeneratorRejected
    from passcheck.tir.kernels import build_primfunc

    spec = draw(specs)
    try:
        return build_primfunc(spec)
    except GeneratorRejected:
        assume(False)


def prim_funcs(kinds: Iterable[str] | None = None, symbolic: bool = True, int64: bool = True) -> st.SearchStrategy[Any]:
    """Schedulable ``PrimFunc``s (s_tir blocks, named ``main``) of the given kernel kinds
    (elementwise, broadcast, transpose, reshape, pad, reduce, matmul, conv2d, pool, legalized;
    default all), with shape-var extents when ``symbolic`` and int64 indices when ``int64``."""
    from passcheck.tir.kernels import kind_names, primfunc_specs

    chosen = tuple(kinds) if kinds is not None else None
    if chosen is not None and set(chosen) - set(kind_names()):
        raise ValueError(f"unknown kernel kind(s) {sorted(set(chosen) - set(kind_names()))}; "
                         f"use some of {', '.join(kind_names())}")
    return _built(primfunc_specs(chosen, symbolic=symbolic, int64=int64))


@dataclass
class Scheduled:
    """A drawn PrimFunc and a schedule applied to it: ``original`` and ``mod`` (IRModules with
    ``main``), ``trace`` (the calls made, as Python lines; refused steps are commented)."""

    original: Any
    mod: Any
    trace: list[str]


@st.composite
def _scheduled(draw: st.DrawFn, examples: st.SearchStrategy[Any]) -> Scheduled:
    import tvm
    from tvm import s_tir

    from passcheck.core.errors import GeneratorRejected
    from passcheck.tir.kernels import build_primfunc
    from passcheck.tir.schedule import StepNotApplicable, apply_step

    ex = draw(examples)
    try:
        original = tvm.IRModule({"main": build_primfunc(ex.spec)})
    except GeneratorRejected:
        assume(False)
    sch = s_tir.Schedule(original, error_render_level="fast")
    trace: list[str] = []
    for step in ex.steps:
        try:
            trace.append(apply_step(sch, step))
        except (StepNotApplicable, s_tir.ScheduleError):
            trace.append(f"# refused: {step.describe()}")
    return Scheduled(original, sch.mod, trace)


def schedules(primitives: Iterable[str] | None = None, max_steps: int = 4,
              kinds: Iterable[str] | None = None) -> st.SearchStrategy[Scheduled]:
    """PrimFuncs with a random sequence of 1..``max_steps`` schedule primitives applied (among
    ``primitives``; default every primitive that is safe to run, see ``passcheck list``); a step
    TVM refuses (ScheduleError) is skipped and commented in the trace."""
    from passcheck.tir.kernels import primfunc_specs
    from passcheck.tir.schedule import PRIMITIVES, schedule_examples

    pool = tuple(primitives) if primitives is not None else None
    if pool is not None and set(pool) - set(PRIMITIVES):
        raise ValueError(f"unknown primitive(s) {sorted(set(pool) - set(PRIMITIVES))}; `passcheck list` has them")
    specs = primfunc_specs(tuple(kinds) if kinds is not None else None)
    return _scheduled(schedule_examples(None, max_steps=max_steps, specs=specs, sequence=pool))


def _array(dtype: str, shape: tuple[int, ...]) -> st.SearchStrategy[Any]:
    import numpy as np
    from hypothesis.extra import numpy as hnp

    if dtype == "bool":
        return hnp.arrays(np.bool_, shape)
    if dtype.startswith(("int", "uint")):
        return hnp.arrays(dtype, shape, elements=st.integers(0, 1))
    width = {"float16": 16, "float32": 32}.get(dtype, 64)
    return hnp.arrays(dtype, shape, elements=st.floats(-1.0, 1.0, width=width))


@st.composite
def inputs_for(draw: st.DrawFn, mod: Any, func: str = "main") -> list[Any]:
    """Arguments for ``mod[func]`` (a Relax function or a PrimFunc): one array per tensor or
    buffer parameter, symbolic dims drawn in 1..4 (one value per name), floats in [-1, 1],
    integers 0 or 1 (they are often indices)."""
    import tvm
    from tvm import relax, sym, tirx

    f = mod[func]
    sizes: dict[str, int] = {}

    def dim(d: Any) -> int:
        if isinstance(d, tirx.IntImm):
            return int(d.value)
        import tvm_ffi

        free: list[Any] = []
        tvm_ffi.structural_walk(d, [(tvm.ir.Var, free.append)])
        ana = sym.Analyzer()
        for v in free:
            if v.name not in sizes:
                sizes[v.name] = draw(st.integers(1, 4))
            ana.bind(v, tvm.ir.Range.from_min_extent(sizes[v.name], 1))
        value = ana.simplify(d)
        if not isinstance(value, tirx.IntImm):
            raise ValueError(f"inputs_for: cannot give the dim {d} a value")
        return int(value.value)

    out = []
    for p in f.params:
        ty = p.ty
        if isinstance(f, relax.Function):
            if not isinstance(ty, relax.TensorType) or ty.shape is None:
                raise ValueError(f"inputs_for: parameter {p.name} has type {ty}; only tensors with a shape")
            out.append(draw(_array(str(ty.dtype), tuple(dim(d) for d in ty.shape.values))))
        elif hasattr(ty, "shape"):
            out.append(draw(_array(str(p.dtype), tuple(dim(d) for d in p.shape))))
        else:
            raise ValueError(f"inputs_for: scalar parameter {p.name} of a PrimFunc: pass it yourself")
    return out
