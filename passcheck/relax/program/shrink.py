"""Structural simplifications of a failing program, after Hypothesis shrank its draws: fewer
functions, branches and extras first (a region flattened into its caller, a condition dropped with
the branches that read it, weights made constants again, an extra binding gone), then the graph's
own (an op spliced out or dropped), for the layouts that stay valid."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from passcheck.relax.program.spec import ProgramSpec, Region, closed


def _without(regions: tuple[Region, ...], target: Region) -> tuple[Region, ...]:
    """``regions`` with ``target`` replaced by its inner regions (its nodes go to its caller)."""
    out: list[Region] = []
    for r in regions:
        if r is target:
            out.extend(r.inner)
        else:
            out.append(replace(r, inner=_without(r.inner, target)))
    return tuple(out)


def _uses_cond(regions: tuple[Region, ...], k: int) -> bool:
    return any((r.form == "branch" and r.option.get("cond") == k) or _uses_cond(r.inner, k) for r in regions)


def simplifications(prog: ProgramSpec) -> Iterator[ProgramSpec]:
    # one region fewer: its nodes emitted plainly in its caller
    for r in prog.all_regions():
        regions = _without(prog.regions, r)
        conds = prog.conds
        if r.form == "branch" and not _uses_cond(regions, r.option["cond"]):
            conds = prog.conds  # a condition nobody reads stays a parameter: dropped below
        yield replace(prog, regions=regions, conds=conds)
    # an unread condition dropped (the later ones renumbered)
    for k in range(len(prog.conds)):
        if not _uses_cond(prog.regions, k):
            yield replace(prog, regions=_renumber(prog.regions, k), conds=prog.conds[:k] + prog.conds[k + 1:])
    if prog.num_input is not None:
        inputs = tuple(replace(d, const=True) if i in prog.weights and all(isinstance(x, int) for x in d.shape)
                       else d for i, d in enumerate(prog.graph.inputs))
        yield replace(prog, graph=replace(prog.graph, inputs=inputs), num_input=None, weights=())
    for key, _ in prog.options:
        yield replace(prog, options=tuple(kv for kv in prog.options if kv[0] != key))
    if not prog.regions and not prog.conds and not prog.options and prog.num_input is None:
        from passcheck.relax.shrink import simplifications as graph_simplifications

        for g in graph_simplifications(prog.graph):
            yield replace(prog, graph=g)
    elif not prog.options:
        from passcheck.relax.shrink import simplifications as graph_simplifications

        # the graph's own, while its node numbering keeps every region where it was
        for g in graph_simplifications(prog.graph):
            if len(g.nodes) == len(prog.graph.nodes) and _valid(replace(prog, graph=g)):
                yield replace(prog, graph=g)


def _renumber(regions: tuple[Region, ...], k: int) -> tuple[Region, ...]:
    def fix(r: Region) -> Region:
        opts = r.options
        if r.form == "branch" and int(r.option["cond"]) > k:  # type: ignore[call-overload]
            opts = tuple((key, int(v) - 1 if key == "cond" else v) for key, v in r.options)  # type: ignore[call-overload]
        return replace(r, options=opts, inner=tuple(fix(x) for x in r.inner))
    return tuple(fix(r) for r in regions)


def _valid(prog: ProgramSpec) -> bool:
    return all(closed(prog.graph, r.start, r.stop) for r in prog.all_regions() if r.form == "branch")
