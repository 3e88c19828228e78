"""The whole signature of ``tvm.s_tir.Schedule``: which parameter of which method each
primitive draws, in which forms, and why the methods nobody draws are left out.

The forms are declared by the primitives themselves (``Primitive.params``); this module
gathers them for ``passcheck list --signatures`` and compares them with the methods' Python
signatures (``uncovered``), which a test keeps empty.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from passcheck.tir.schedule.registry import PRIMITIVES

# Methods of tvm.s_tir.Schedule no primitive draws, each with the reason.
UNDRAWN: dict[str, str] = {
    "copy": "copies the schedule, changes no IR (sequences use it to undo a refused step)",
    "seed": "reseeds the sampler, changes no IR (each example seeds its schedule)",
    "fork_seed": "returns a seed, changes no IR",
    "get": "reads a random variable, changes no IR",
    "get_sref": "reads a random variable, changes no IR",
    "get_sblock": "looks a block up, changes no IR (every applier uses it)",
    "get_loops": "looks loops up, changes no IR (every applier uses it)",
    "get_child_blocks": "looks blocks up, changes no IR",
    "get_producers": "looks blocks up, changes no IR",
    "get_consumers": "looks blocks up, changes no IR",
    "get_output_blocks": "looks blocks up, changes no IR",
    "remove_rv": "forgets a random variable, changes no IR",
    "show": "prints the schedule",
    "work_on": "selects the function to schedule: passcheck's modules hold one, `main`",
    "enter_postproc": "marks the trace for meta-schedule postprocessing, changes no IR",
    "can_decompose_padding": "a question (may decompose_padding apply?), changes no IR",
    "same_as": "object identity, not a schedule method",
    "is_": "object identity, not a schedule method",
}


@dataclass(frozen=True)
class DrawnParam:
    method: str
    name: str
    forms: tuple[str, ...]
    primitives: tuple[str, ...]


def drawn() -> list[DrawnParam]:
    """Every (method, parameter) some primitive draws, with the union of the forms drawn."""
    table: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for pname, prim in PRIMITIVES.items():
        for p in prim.params:
            forms, prims = table.setdefault((p.method, p.name), ([], []))
            forms.extend(f for f in p.forms if f not in forms)
            if pname not in prims:
                prims.append(pname)
    return [DrawnParam(m, n, tuple(f), tuple(ps)) for (m, n), (f, ps) in sorted(table.items())]


def schedule_methods() -> dict[str, list[str]]:
    """Every public method of ``tvm.s_tir.Schedule`` with its parameters (``self`` left out)."""
    from tvm import s_tir

    out = {}
    for name, member in inspect.getmembers(s_tir.Schedule):
        if name.startswith("_") or not callable(member) or inspect.isclass(member):
            continue
        try:
            sig = inspect.signature(member)
        except (TypeError, ValueError):
            continue
        out[name] = [p for p in sig.parameters if p != "self"]
    return out


def uncovered() -> list[str]:
    """What the declarations miss or invent, one line each (empty when every parameter of
    every method is drawn or its method is left out with a reason)."""
    methods = schedule_methods()
    declared: dict[str, set[str]] = {}
    for d in drawn():
        declared.setdefault(d.method, set()).add(d.name)
    problems = []
    for m, params in sorted(methods.items()):
        if m in UNDRAWN:
            if m in declared:
                problems.append(f"{m}: drawn, but also listed as undrawn")
            continue
        if m not in declared:
            problems.append(f"{m}: no primitive draws it and it is not listed as undrawn (with a reason)")
            continue
        for p in params:
            if p not in declared[m]:
                problems.append(f"{m}: parameter {p!r} is never drawn")
        for p in sorted(declared[m] - set(params)):
            problems.append(f"{m}: declares parameter {p!r}, which the method does not have")
    for m in sorted(set(declared) - set(methods)):
        problems.append(f"{m}: declared, but tvm.s_tir.Schedule has no such method")
    for m in sorted(set(UNDRAWN) - set(methods)):
        problems.append(f"{m}: listed as undrawn, but tvm.s_tir.Schedule has no such method")
    return problems
