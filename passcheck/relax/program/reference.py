"""The float64 reference of a program, one run at a time: the graph's nodes in order, except that
where a branch's condition is false its else-branch's tails (a negation of what it returns)
apply. Bounds compose as the graph's do (``relax.reference``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import numpy as np

from passcheck.core import timing
from passcheck.core.rounding import Approx, unit_roundoff
from passcheck.relax.ops.base import op_registry
from passcheck.relax.program.spec import ProgramSpec, Region, region_outputs
from passcheck.relax.reference import parts_of
from passcheck.relax.spec import const_array


def evaluate(prog: ProgramSpec, params: list[np.ndarray], truths: tuple[bool, ...],
             computed_in: Mapping[str, str] | None = None) -> list[Approx]:
    """The reference outputs of ``prog`` on the graph's parameter arrays (graph order) when its
    conditions are ``truths``."""
    if computed_in:
        from passcheck.relax.reference import evaluate as graph_evaluate

        if not prog.conds:
            return graph_evaluate(prog.graph, params, computed_in)
        raise NotImplementedError("a dtype computed in another one by design, with branches")
    *_, (_, vals) = _steps(prog, params, truths)
    return [vals[o] for o in prog.graph.outputs]


def values_at(prog: ProgramSpec, params: list[np.ndarray], truths: tuple[bool, ...],
              starts: Iterable[int]) -> dict[int, list]:
    """The reference's values (indexed by graph value id) as they stand when node ``start`` is
    reached, for each of ``starts``: what a region starting there is handed."""
    wanted, out = set(starts), {}
    for j, vals in _steps(prog, params, truths):
        if j in wanted:
            out[j] = list(vals)
    return out


def _steps(prog: ProgramSpec, params: list[np.ndarray], truths: tuple[bool, ...]) -> Iterator[tuple[int, list]]:
    """The reference's values before each node ``j`` (then once more after the last), in order."""
    g, ops = prog.graph, op_registry()
    it = iter(params)
    vals: list = [Approx.exact(const_array(d) if d.const else next(it)) for d in g.inputs]
    # the branches whose else runs, innermost last: their tails apply once their nodes are done
    ends: dict[int, list[Region]] = {}
    for r in prog.all_regions():
        if r.form == "branch" and not truths[int(r.option["cond"])]:  # type: ignore[call-overload]
            ends.setdefault(r.stop, []).insert(0, r)
    with np.errstate(all="ignore"), timing.stage("reference"):
        for j, node in enumerate(g.nodes):
            yield j, vals
            out = ops[node.op].reference([vals[a] for a in node.args], dict(node.attrs), unit_roundoff(node.dtype))
            for part in parts_of(out):
                part.dtype = node.dtype
            vals.append(out)
            for r in ends.get(j + 1, ()):
                for vid, op in r.option.get("tails", ()):  # type: ignore[union-attr]
                    if vid in region_outputs(g, r.start, r.stop):
                        dtype = g.value_dtype(vid)
                        vals[vid] = ops[op].reference([vals[vid]], {}, unit_roundoff(dtype))
                        vals[vid].dtype = dtype
        yield len(g.nodes), vals
