"""What a Relax example exercised, for the coverage report: ops, producer->consumer op pairs,
dtypes, symbolic and zero-size shapes (from the drawn graph), and the shapes of the fused groups
the pass made (from its output)."""

from __future__ import annotations

from typing import Any

from passcheck.relax.forms import forms
from passcheck.relax.spec import GraphSpec


def coverage(example: Any, case: Any | None) -> dict[str, tuple[str, ...]]:
    """A drawn graph's ops, dtypes and shapes; a mutant's relations over its base's; a seed
    model's or a given module's origin; the fusion groups of any."""
    out = _example_coverage(example)
    if case is not None:
        groups = fusion_groups(case)
        if groups:
            out["fusion groups"] = groups
    return out


def _example_coverage(example: Any) -> dict[str, tuple[str, ...]]:
    if isinstance(example, GraphSpec):
        return _graph_coverage(example)
    graph = getattr(example, "graph", None)
    if isinstance(graph, GraphSpec) and hasattr(example, "all_regions"):  # a ProgramSpec
        out = _graph_coverage(graph)
        regions = {r.form for r in example.all_regions()}
        regions |= {f"{r.form} with {k}" for r in example.all_regions() for k, v in r.options if v}
        regions |= {f"{name}={value}" for name, value in example.options}
        out["program forms"] = tuple(sorted(regions | ({"weights (num_input)"} if example.num_input is not None
                                                        else set()))) or ("one function",)
        return out
    base = getattr(example, "base", None)
    if base is not None and hasattr(example, "mutations"):  # a Mutant
        out = _example_coverage(base)
        out["mutations"] = tuple(sorted({f"{m.condition}*{m.garbage}" for m in example.mutations}))
        return out
    if hasattr(example, "source"):  # a SeedModel
        return {"seed models": (str(example.source),)}
    return {"example kinds": (type(example).__name__,)}


def _graph_coverage(spec: GraphSpec) -> dict[str, tuple[str, ...]]:
    n_in = len(spec.inputs)
    ops = spec.ops()
    pairs = {f"{ops[a - n_in]}->{node.op}" for node in spec.nodes for a in node.args if a >= n_in}
    dtypes = {d.dtype for d in spec.inputs} | {n.dtype for n in spec.nodes}
    shapes = {"symbolic" if any(isinstance(d, str) for d in s) else "static"
              for s in [d.shape for d in spec.inputs] + [n.shape for n in spec.nodes]}
    if any(d == 0 for s in [d.shape for d in spec.inputs] + [n.shape for n in spec.nodes] for d in s):
        shapes.add("zero-size")
    if any(d.const for d in spec.inputs):
        shapes.add("constant input")
    out: dict[str, tuple[str, ...]] = {"ops": tuple(sorted(set(ops))), "op pairs": tuple(sorted(pairs)),
                                       "dtypes": tuple(sorted(dtypes)), "shapes": tuple(sorted(shapes)),
                                       "graph size": (f"{len(ops)} ops",)}
    out.update(forms(spec))
    return out


def fusion_groups(case: Any) -> tuple[str, ...]:
    """The op sequence of each fused function the pass made (``stages["FuseOps"]``), e.g.
    ``matmul+add+relu``: the shapes of fusion a campaign has seen."""
    stage = getattr(case, "stages", {}).get("FuseOps")
    if stage is None:
        return ()
    import tvm_ffi
    from tvm import relax

    shapes = set()
    for gv in stage.get_global_vars():
        func = stage[gv]
        if not isinstance(func, relax.Function) or not func.attrs or "Primitive" not in func.attrs:
            continue
        members: list[str] = []

        def visit(call: Any, members: list[str] = members) -> None:
            if getattr(call.op, "name", "") == "relax.call_tir":
                members.append(call.args[0].name_hint.rstrip("0123456789_"))

        tvm_ffi.structural_walk(func, [(relax.Call, visit)])
        if members:
            shapes.add("+".join(members))
    return tuple(sorted(shapes))
