"""A mutant of a drawn graph: its IR and its float64 reference, built in one walk.

The graph's ops are emitted and evaluated as ``build_module`` and ``reference.evaluate`` do;
after each value, the mutations targeting it are inserted on both backends (``IRCalc`` into
the module, ``RefCalc`` into the reference), so the mutant's reference carries the rounding
bound of everything the mutations added. A per-input condition records its value from the
reference, rounded to the graph's dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.core.errors import GeneratorRejected, error_line
from passcheck.core.rounding import Approx, unit_roundoff
from passcheck.relax import reference
from passcheck.relax.build import static_type
from passcheck.relax.case import RelaxCase
from passcheck.relax.mutate.calc import IRCalc, RefCalc
from passcheck.relax.mutate.relations import Mutant
from passcheck.relax.mutate.resolve import Backend, Resolved, Slot, apply_at, resolve
from passcheck.relax.ops.base import op_registry
from passcheck.relax.spec import GraphSpec, const_array

# the dtypes mutations compute in (their constants are NumPy arrays of it)
MUTABLE_DTYPES = ("float32", "float16", "float64")


def mutation_dtype(spec: GraphSpec) -> str:
    """The dtype mutations compute in: the first input's, when it is one of MUTABLE_DTYPES."""
    first = spec.inputs[0].dtype if spec.inputs else "float32"
    return first if first in MUTABLE_DTYPES else "float32"


def graph_slots(spec: GraphSpec) -> list[Slot]:
    """The values mutations may read and target: those of the mutation dtype (a graph of several
    dtypes is mutated in that one; its integer and bool values are left as they are)."""
    dtype = mutation_dtype(spec)
    n_in = len(spec.inputs)
    slots = [Slot(("base", i), tuple(d.shape), -1) for i, d in enumerate(spec.inputs) if d.dtype == dtype]
    # tuple values take no part (their parts, read through TupleGetItem, do)
    slots += [Slot(("base", n_in + k), tuple(n.shape), k, target_ok=True) for k, n in enumerate(spec.nodes)
              if n.parts is None and n.dtype == dtype]
    return slots


def build_mutant(spec: GraphSpec, mutant: Mutant, params: list[np.ndarray]) -> tuple[Any, list[Approx],
                                                                                   list[Resolved | None]]:
    """The mutant's IRModule, its reference outputs, and where each mutation landed."""
    import tvm
    from tvm import relax, tirx

    ops = op_registry()
    dtype = mutation_dtype(spec)
    slots = graph_slots(spec)
    resolved = resolve(slots, mutant.mutations)
    syms: dict[str, Any] = {}

    def dim(d: Any) -> Any:
        return syms.setdefault(d, tirx.Var(d, "int64")) if isinstance(d, str) else int(d)

    def concrete(s: Slot) -> tuple[int, ...] | None:
        return tuple(int(d) for d in s.shape) if s.static else None

    bb = relax.BlockBuilder()
    ir = Backend(IRCalc(bb, dtype), {})
    ref = Backend(RefCalc(dtype), {})
    params_it = iter(params)
    fn_params = []
    for i, decl in enumerate(spec.inputs):
        key = ("base", i)
        if decl.const:
            arr = const_array(decl)
            ir.current[key] = relax.const(arr, decl.dtype)
        else:
            arr = next(params_it)
            ir.current[key] = relax.Var(decl.name, relax.TensorType([dim(d) for d in decl.shape], decl.dtype))
            fn_params.append(ir.current[key])
        ref.current[key] = Approx.exact(arr)

    def record(s: Slot) -> np.ndarray:
        return ref.current[s.key].v.astype(dtype)

    n_in = len(spec.inputs)
    try:
        with bb.function("main", fn_params):
            with bb.dataflow() if spec.dataflow else _no_block():
                for k, node in enumerate(spec.nodes):
                    key = ("base", n_in + k)
                    args = [("base", a) for a in node.args]
                    expr = ops[node.op].build([ir.current[a] for a in args], dict(node.attrs))
                    if "match-cast" in ops[node.op].tags:
                        expr = bb.match_cast(bb.emit(expr), static_type(node))
                    ir.current[key] = bb.emit(expr)
                    with np.errstate(all="ignore"):
                        ref.current[key] = ops[node.op].reference([ref.current[a] for a in args],
                                                                   dict(node.attrs), unit_roundoff(node.dtype))
                        for part in reference.parts_of(ref.current[key]):
                            part.dtype = node.dtype
                        apply_at(k, resolved, [ref, ir], concrete, record)
                outs = [ir.current[("base", o)] for o in spec.outputs]
                out = outs[0] if len(outs) == 1 else relax.Tuple(outs)
                out = bb.emit_output(out) if spec.dataflow else bb.emit(out)
            bb.emit_func_output(out)
    except (tvm.error.InternalError, tvm.error.DiagnosticError, TypeError, ValueError) as e:
        raise GeneratorRejected(f"{type(e).__name__}: {error_line(e, 200)}") from e
    return bb.get(), [ref.current[("base", o)] for o in spec.outputs], resolved


class _no_block:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc: object) -> None:
        return None


def describe_resolved(resolved: list[Resolved | None]) -> str:
    parts = [r.describe() if r is not None else "skipped (nothing it applies to)" for r in resolved]
    return "; ".join(f"#{i} {p}" for i, p in enumerate(parts))


class MutantCase(RelaxCase):
    """A ``RelaxCase`` whose ``built`` is the mutant of a drawn graph: ``spec`` is the base graph
    (its inputs, dtype and extras are the mutant's), ``reference()`` the mutant's own.

    ``base_module()`` and ``base_reference()`` are the unmutated graph's, for ``mutant_agrees``."""

    def __init__(self, subject: str, mutant: Mutant) -> None:
        super().__init__(subject, mutant.base)
        self.example = mutant
        self.mutant = mutant
        self.built, refs, self.resolved = build_mutant(mutant.base, mutant, self.params())
        self._memo["reference"] = refs
        self.notes = {"mutations": describe_resolved(self.resolved)}

    @property
    def applied(self) -> int:
        return sum(r is not None for r in self.resolved)

    def base_module(self) -> Any:
        from passcheck.relax.build import build_module

        return self.memo("base_module", lambda: build_module(self.spec))

    def base_reference(self) -> list[Approx]:
        return self.memo("base_reference", lambda: reference.evaluate(self.spec, self.params()))


def graph_mutant_case(subject: str, mutant: Mutant) -> RelaxCase:
    return MutantCase(subject, mutant)

