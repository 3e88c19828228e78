"""Structural simplifications of a failing program, after Hypothesis shrank its draws: fewer
functions, branches and extras first (a region's nodes emitted plainly in its caller, a condition
nobody reads dropped, weights made constants again, an extra binding gone), then fewer ops (the
graph's own simplifications, with the regions, tails and extras renumbered to the nodes kept)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from passcheck.relax.program.spec import ProgramSpec, Region, closed, inplace_valid

NODE_OPTIONS = ("aliases", "dead", "duplicate", "nested", "vdevice")  # program options listing node indexes


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
    for r in prog.all_regions():  # one region fewer
        yield replace(prog, regions=_without(prog.regions, r))
    for k in range(len(prog.conds)):  # an unread condition dropped (the later ones renumbered)
        if not _uses_cond(prog.regions, k):
            yield replace(prog, regions=_renumber_cond(prog.regions, k), conds=prog.conds[:k] + prog.conds[k + 1:])
    if prog.num_input is not None:  # weights back to constants
        inputs = tuple(replace(d, const=True) if i in prog.weights and all(isinstance(x, int) for x in d.shape)
                       else d for i, d in enumerate(prog.graph.inputs))
        yield replace(prog, graph=replace(prog.graph, inputs=inputs), num_input=None, weights=())
    for key, _ in prog.options:  # an extra gone
        yield replace(prog, options=tuple(kv for kv in prog.options if kv[0] != key))
    from passcheck.relax.shrink import mapped_simplifications

    for graph, moved in mapped_simplifications(prog.graph):  # an op fewer
        cand = _renumbered(prog, graph, moved)
        if cand is not None:
            yield cand


def _renumber_cond(regions: tuple[Region, ...], k: int) -> tuple[Region, ...]:
    def fix(r: Region) -> Region:
        opts = r.options
        if r.form == "branch" and int(r.option["cond"]) > k:  # type: ignore[call-overload]
            opts = tuple((key, int(v) - 1 if key == "cond" else v) for key, v in r.options)  # type: ignore[call-overload]
        return replace(r, options=opts, inner=tuple(fix(x) for x in r.inner))
    return tuple(fix(r) for r in regions)


def _renumbered(prog: ProgramSpec, graph: object, moved: dict[int, int]) -> ProgramSpec | None:
    """``prog`` on ``graph`` (a simplification of its graph keeping the nodes ``moved`` maps): every
    region over the nodes it kept (a region that kept none goes), tails and extras renumbered;
    None when the layout no longer holds (a branch whose values leave it, a single-op form that
    lost its op, an in-place call whose operand is now a parameter or read again)."""
    old, new = prog.graph, graph
    old_in, new_in = len(old.inputs), len(new.inputs)  # type: ignore[attr-defined]
    values = {old_in + j: new_in + k for j, k in moved.items()}

    def fix(r: Region) -> Region | None:
        kept = [moved[j] for j in range(r.start, r.stop) if j in moved]
        if not kept:
            return None
        opts = r.options
        if r.form == "branch":
            tails = tuple((values[v], op) for v, op in r.option.get("tails", ()) if v in values)  # type: ignore[union-attr]
            opts = tuple((key, tails if key == "tails" else v) for key, v in r.options)
        inner = tuple(x for x in (fix(i) for i in r.inner) if x is not None)
        return replace(r, start=kept[0], stop=kept[-1] + 1, options=opts, inner=inner)

    regions = tuple(x for x in (fix(r) for r in prog.regions) if x is not None)
    options = tuple((key, tuple(moved[j] for j in v if j in moved)) if key in NODE_OPTIONS else (key, v)  # type: ignore[union-attr]
                    for key, v in prog.options)
    weights = tuple(i for i in prog.weights if i < new_in)  # (weights are inputs: a dropped one shifts the rest)
    cand = replace(prog, graph=new, regions=regions, options=tuple(kv for kv in options if kv[1] != ()),
                   weights=weights if len(new.inputs) == len(old.inputs) else ())  # type: ignore[attr-defined]
    if cand.num_input is not None and not cand.weights:
        cand = replace(cand, num_input=None)
    for r in cand.all_regions():
        if r.form == "branch" and not closed(new, r.start, r.stop):  # type: ignore[arg-type]
            return None
        if r.form in ("tir", "packed") and r.stop - r.start != 1:
            return None
    return cand if inplace_valid(cand) else None  # (an operand now a parameter, or read again, would see the write)
