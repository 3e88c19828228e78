"""What a Relax example exercised, for the coverage report: ops, producer->consumer op pairs,
dtypes, symbolic and zero-size shapes (from the drawn graph), and the shapes of the fused groups
the pass made (from its output)."""

from __future__ import annotations

from typing import Any

from passcheck.relax.spec import GraphSpec


def coverage(spec: GraphSpec, case: Any | None) -> dict[str, tuple[str, ...]]:
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
    if case is not None:
        groups = fusion_groups(case)
        if groups:
            out["fusion groups"] = groups
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
