"""Mutants of a seed model: the same plain-data mutations as on drawn graphs, inserted into the
imported Relax by re-emitting ``main`` binding by binding.

A per-input condition records its value the way MT-DLCOMP does: the model as imported, with the
probed values as extra outputs, built and run on the seed's inputs. The reference is measured
as for the seed itself, against the float64 version of the model mutated the same way (same
slots, same recorded constants, the garbage weights rounded as the float model holds them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.core.rounding import UNIT_ROUNDOFF, Approx
from passcheck.relax import execution
from passcheck.relax.models.seed import SeedCase
from passcheck.relax.mutate.calc import IRCalc
from passcheck.relax.mutate.graph import describe_resolved
from passcheck.relax.mutate.relations import Mutant
from passcheck.relax.mutate.resolve import Backend, Resolved, Slot, apply_at, resolve


class _VarMap:
    """Relax vars -> replacements (identity-keyed: ``==`` on IR nodes is not identity)."""

    def __init__(self) -> None:
        self.items: dict[int, list[tuple[Any, Any]]] = {}

    def __setitem__(self, var: Any, new: Any) -> None:
        bucket = self.items.setdefault(hash(var), [])
        bucket[:] = [(v, n) for v, n in bucket if not v.same_as(var)] + [(var, new)]

    def get(self, var: Any) -> Any:
        return next((n for v, n in self.items.get(hash(var), ()) if v.same_as(var)), var)

    def subst(self, expr: Any) -> Any:
        import tvm_ffi
        from tvm import relax

        return tvm_ffi.structural_map(expr, [(relax.Var, self.get)])


def float_dtype(mod: Any) -> str:
    """The float type the model computes in (its first float parameter's, else float32)."""
    from tvm import relax

    for p in mod["main"].params:
        if isinstance(p.ty, relax.TensorType) and str(p.ty.dtype) in UNIT_ROUNDOFF:
            return str(p.ty.dtype)
    return "float32"


def _shape(ty: Any) -> tuple[Any, ...] | None:
    from tvm import relax, tirx

    if not isinstance(ty, relax.TensorType) or ty.shape is None:
        return None
    return tuple(int(d.value) if isinstance(d, tirx.IntImm) else str(d) for d in ty.shape.values)


def seed_slots(mod: Any, dtype: str) -> list[Slot]:
    """Parameters (position -1) and bindings (by position) of ``main`` that are ``dtype`` tensors."""
    from tvm import relax

    func = mod["main"]
    slots = []
    for i, p in enumerate(func.params):
        shape = _shape(p.ty)
        if shape is not None and str(p.ty.dtype) == dtype:
            slots.append(Slot(("param", i), shape, -1))
    k = 0
    for block in func.body.blocks:
        for b in block.bindings:
            shape = _shape(b.var.ty)
            if shape is not None and str(b.var.ty.dtype) == dtype and isinstance(b, relax.VarBinding):
                slots.append(Slot(("base", k), shape, k, target_ok=True))
            k += 1
    return slots


def rewrite(mod: Any, resolved: list[Resolved | None], dtype: str, recorded: dict[Any, np.ndarray],
            probes: tuple[Any, ...] = (), storage: str | None = None) -> Any:
    """``mod`` with the mutations inserted (and, if ``probes`` are given, main returning the
    probed slots' values after its own outputs)."""
    import tvm
    from tvm import relax

    func = mod["main"]
    bb = relax.BlockBuilder()
    varmap = _VarMap()
    calc = IRCalc(bb, dtype, storage=storage)
    backend = Backend(calc, {("param", i): p for i, p in enumerate(func.params)})

    def concrete(s: Slot) -> tuple[int, ...] | None:
        return tuple(int(d) for d in s.shape) if s.static else None

    k = 0
    with bb.function("main", list(func.params), attrs=dict(func.attrs) if func.attrs else None, pure=func.is_pure):
        for block in func.body.blocks:
            dataflow = isinstance(block, relax.DataflowBlock)
            outputs = []
            with bb.dataflow() if dataflow else _Nothing():
                for b in block.bindings:
                    value = varmap.subst(b.value)
                    new = bb.match_cast(value, b.ty) if isinstance(b, relax.MatchCast) else bb.emit(value)
                    backend.current[("base", k)] = new
                    apply_at(k, resolved, [backend], concrete, lambda s: recorded[s.key])
                    varmap[b.var] = backend.current[("base", k)]
                    if dataflow and not isinstance(b.var, relax.DataflowVar):
                        outputs.append(b.var)
                    k += 1
                for v in outputs:  # a block's outputs leave it as Vars, after its mutations
                    varmap[v] = bb.emit_output(varmap.get(v))
        body = varmap.subst(func.body.body)
        if probes:
            extra = [backend.current[key] for key in probes]
            fields = list(body.fields) if isinstance(body, relax.Tuple) else [body]
            body = bb.emit(relax.Tuple(fields + extra))
        bb.emit_func_output(body)
    out = tvm.IRModule(dict(mod.functions_items()), attrs=mod.attrs)
    out[out.get_global_var("main")] = bb.get()["main"]
    return out


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc: object) -> None:
        return None


class SeedMutantCase(SeedCase):
    """A ``SeedCase`` whose ``built`` is a mutant of the model; ``base_module()`` and
    ``base_reference()`` are the model's own (for ``mutant_agrees``)."""

    def __init__(self, subject: str, mutant: Mutant) -> None:
        super().__init__(subject, mutant.base)
        self.example = mutant
        base = self.built
        self._base = base
        dtype = float_dtype(base)
        self.slots = seed_slots(base, dtype)
        self.resolved = resolve(self.slots, mutant.mutations)
        self.recorded = self._record(base, dtype)
        self.built = rewrite(base, self.resolved, dtype, self.recorded)
        self._memo.pop(("run", "built"), None)  # the triage ran the model itself
        self.notes = {"mutant_of": mutant.base.source, "mutations": describe_resolved(self.resolved)}

    @property
    def applied(self) -> int:
        return sum(r is not None for r in self.resolved)

    def _record(self, base: Any, dtype: str) -> dict[Any, np.ndarray]:
        """Each per-input condition's operand, as the model computes it on the seed's inputs."""
        keys = tuple(dict.fromkeys(s.key for r in self.resolved if r is not None and not r.condition.universal
                                   for s in r.cond_ops))
        if not keys:
            return {}
        probe = rewrite(base, [], dtype, {}, probes=keys)
        outs = execution.run_relax(probe, self.params())
        return dict(zip(keys, outs[len(outs) - len(keys):]))

    def base_module(self) -> Any:
        return self._base

    def base_reference(self) -> list[Approx]:
        return self.memo("base_reference", lambda: self.measured_reference(self._base))

    # reference(): SeedCase's. The mutant computes the model's function, so its float64 value
    # is the model's; the bound is measured on the mutant itself (before any pass), so it holds
    # whatever a per-input condition adds.


def seed_mutant_case(subject: str, mutant: Mutant) -> SeedMutantCase:
    return SeedMutantCase(subject, mutant)
