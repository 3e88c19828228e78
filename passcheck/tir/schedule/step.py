"""Plain-data schedule steps, and the helpers appliers use to resolve them on a schedule.

A ``Step`` names a primitive, the block it targets (by name) and loops by index into that
block's loop nest *at the time the step applies* (taken modulo the number of loops, so a step
drawn against the original structure still lands on some loop after earlier steps changed it).
Everything else -- factors, permutations, scopes, index-map descriptions -- is plain data in
``args``.

A step that cannot be resolved (its block was inlined away, the loop nest is too short)
raises ``StepNotApplicable``; TVM refusing it raises TVM's ``ScheduleError``; both mean the
example is discarded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from passcheck.core.data import plain_data
from passcheck.core.errors import Discard


class StepNotApplicable(Discard):
    """The step does not resolve on the current schedule (block gone, too few loops)."""


@plain_data("tir.schedule.Step")
@dataclass(frozen=True)
class Step:
    prim: str
    block: str = ""
    loops: tuple[int, ...] = ()
    args: tuple[tuple[str, Any], ...] = ()

    @property
    def arg(self) -> dict[str, Any]:
        return dict(self.args)

    def describe(self) -> str:
        parts = [repr(self.block)] if self.block else []
        if self.loops:
            parts.append(f"loops={list(self.loops)}")
        parts += [f"{k}={v!r}" for k, v in self.args]
        return f"{self.prim}({', '.join(parts)})"


def block_names(sch: Any) -> list[str]:
    """Names of every block of ``main`` in program order (read from the IR itself)."""
    import tvm_ffi
    from tvm import s_tir

    names: list[str] = []

    def visit(b: Any) -> None:
        if b.name_hint != "root":
            names.append(b.name_hint)

    tvm_ffi.structural_walk(sch.mod["main"].body, [(s_tir.SBlock, visit)], order="pre")
    return names


def get_block(sch: Any, name: str) -> Any:
    """The block called ``name``; failing that, the single block ``name_*`` (a primitive such
    as decompose_reduction renames ``C`` to ``C_update``)."""
    names = block_names(sch)
    if name in names:
        return sch.get_sblock(name)
    cands = [n for n in names if n.startswith(name + "_") and not n.endswith(("_init", "_rf"))]
    if len(cands) == 1:
        return sch.get_sblock(cands[0])
    raise StepNotApplicable(f"no block {name!r} (blocks: {', '.join(names)})")


def pick(seq: list[Any], i: int, what: str) -> Any:
    if not seq:
        raise StepNotApplicable(f"no {what} to choose from")
    return seq[i % len(seq)]


def loops_of(sch: Any, block: Any) -> list[Any]:
    return list(sch.get_loops(block))


def loop_at(sch: Any, block: Any, i: int) -> Any:
    return pick(loops_of(sch, block), i, "loop")


def distinct_loops(sch: Any, block: Any, idxs: tuple[int, ...]) -> list[Any]:
    loops = loops_of(sch, block)
    if not loops:
        raise StepNotApplicable("block has no loops")
    seen: list[int] = []
    for i in idxs:
        j = i % len(loops)
        if j not in seen:
            seen.append(j)
    return [loops[j] for j in seen]


def name_of(sch: Any, rv: Any) -> str:
    obj = sch.get(rv)
    if hasattr(obj, "name_hint"):
        return obj.name_hint
    return obj.loop_var.name


def is_param_buffer(sch: Any, buf: Any) -> bool:
    from passcheck.tir.analysis.concrete import key

    return any(key(p) == key(buf) for p in sch.mod["main"].params)


def region_buffer(sch: Any, block: Any, kind: str, idx: int) -> tuple[int, Any]:
    """(resolved index, buffer) of the block's ``idx``-th read or write region."""
    blk = sch.get(block)
    regions = list(blk.reads if kind == "read" else blk.writes)
    if not regions:
        raise StepNotApplicable(f"block {blk.name_hint} has no {kind} regions")
    j = idx % len(regions)
    return j, regions[j].source


def block_iter_map(sch: Any, b: Any, perm: tuple[int, ...]) -> tuple[Any, list[int]]:
    """(IndexMap, order) permuting the block's iterators by ``perm`` (taken modulo their
    number; iterators it leaves out follow in their own order)."""
    from tvm import tirx

    iters = list(sch.get(b).iter_vars)
    n = len(iters)
    if n == 0:
        raise StepNotApplicable("block has no iterators")
    order = [p % n for p in perm]
    order = list(dict.fromkeys(order)) + [i for i in range(n) if i not in order]
    dt = str(iters[0].var.ty.dtype)
    return tirx.IndexMap.from_func(lambda *v: [v[i] for i in order], ndim=n, index_dtype=dt), order
