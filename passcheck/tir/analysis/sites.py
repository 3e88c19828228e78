"""Where the blocks of a block (s_tir) PrimFunc run: their sites, their accesses, and the
original block's access hull, for the domain checks.

A *site* is one realization of a block with the trail that reaches it: the enclosing loops,
``if`` conditions, ``Bind`` statements, and the predicates and iterator bindings of enclosing
blocks, then the block's own predicate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from passcheck.tir.analysis.concrete import key
from passcheck.tir.analysis.intervals import Intervals
from passcheck.tir.analysis.limits import shape_var_limits
from passcheck.tir.analysis.trail import Bind, Guard, Loop, Trail


@dataclass
class Site:
    """One realization of a block in a loop nest."""

    name: str
    block: Any
    realize: Any
    trail: Trail

    def bindings(self) -> dict[str, Any]:
        """The value bound to each of the block's iterators here, by iterator name."""
        return {iv.var.name: v for iv, v in zip(self.block.iter_vars, self.realize.iter_values, strict=True)}

    def own_binds(self) -> Trail:
        """The block's own iterator bindings as trail steps (the trail stops before them)."""
        return tuple(Bind(iv.var, v) for iv, v in zip(self.block.iter_vars, self.realize.iter_values, strict=True))


def block_sites(func: Any) -> list[Site]:
    """Every block realization of ``func`` (except the root) with the trail that reaches it."""
    from tvm import s_tir, tirx

    out: list[Site] = []

    def stmt(s: Any, trail: Trail) -> None:
        t = type(s)
        if t is tirx.SeqStmt:
            cur = trail
            for x in s.seq:
                if type(x) is tirx.Bind:
                    cur = cur + (Bind(x.var, x.value),)
                else:
                    stmt(x, cur)
        elif t is tirx.For:
            # The loop's step is not modelled here (nor by the enumeration): every value in
            # [min, min + extent) is taken.
            stmt(s.body, trail + (Loop(s.loop_var, s.min, s.extent),))
        elif t is tirx.IfThenElse:
            stmt(s.then_case, trail + (Guard(s.condition, True),))
            if s.else_case is not None:
                stmt(s.else_case, trail + (Guard(s.condition, False),))
        elif t is s_tir.SBlockRealize:
            blk = s.block
            inner = trail + (Guard(s.predicate, True),)
            site = Site(blk.name_hint, blk, s, inner)
            if blk.name_hint != "root":
                out.append(site)
            stmt(blk.body, inner + site.own_binds())
        elif t is tirx.AttrStmt:
            stmt(s.body, trail)
        elif t is tirx.While:
            stmt(s.body, trail + (Guard(s.condition, True),))

    stmt(func.body, ())
    return out


def block_guards(block: Any) -> dict[str, Any]:
    """Conditions guarding expressions/statements in a block body, by their printed form."""
    import tvm
    import tvm_ffi
    from tvm import tirx

    found: dict[str, Any] = {}

    def on_call(c: Any) -> None:
        if getattr(c.op, "name", "") == "prim.if_then_else":
            found.setdefault(str(c.args[0]), c.args[0])

    def on_if(s: Any) -> None:
        found.setdefault(str(s.condition), s.condition)

    tvm_ffi.structural_walk(block.body, [(tvm.ir.Call, on_call), (tirx.IfThenElse, on_if)])
    return found


def iter_doms(block: Any) -> dict[str, tuple[str, str]]:
    return {iv.var.name: (str(iv.dom.min), str(iv.dom.extent)) for iv in block.iter_vars}


def is_piece(name: str, original: str) -> bool:
    """Is block ``name`` (a piece of) the original block: itself, decompose_reduction's
    ``X_update``, or a loop_partition copy ``X_<loop><k>``? Other derived blocks (``_init``,
    ``_rf``, caches, ``_pad_const`` fills) compute something else."""
    if name in (original, original + "_update"):
        return True
    return re.fullmatch(re.escape(original) + r"_[A-Za-z_]*[0-9]+", name) is not None


def writes_param(o: Site, func: Any) -> bool:
    params = {key(p) for p in func.params}
    return any(key(w.source) in params for w in o.block.writes)


def block_accesses(block: Any) -> list[tuple[Any, Any, Trail]]:
    """(node, buffer, guards) of every load/store directly in a block body (not in nested
    blocks); ``guards`` are the enclosing if/if_then_else conditions as trail steps."""
    import tvm
    from tvm import s_tir, tirx

    out: list[tuple[Any, Any, Trail]] = []

    def expr(e: Any, g: Trail) -> None:
        t = type(e)
        if t is tvm.ir.TensorLoad:
            out.append((e, e.source, g))
            for i in e.indices:
                expr(i, g)
        elif t is tvm.ir.Call and getattr(e.op, "name", "") == "prim.if_then_else":
            c, a, b = e.args
            expr(c, g)
            expr(a, g + (Guard(c, True),))
            expr(b, g + (Guard(c, False),))
        elif t is tvm.ir.Call:
            for a in e.args:
                if hasattr(a, "ty") and hasattr(a.ty, "dtype"):
                    expr(a, g)
        else:
            for f in ("a", "b", "value", "condition", "true_value", "false_value"):
                c = getattr(e, f, None)
                if c is not None and hasattr(c, "ty") and hasattr(c.ty, "dtype"):
                    expr(c, g)

    def stmt(x: Any, g: Trail) -> None:
        t = type(x)
        if t is tirx.BufferStore:
            expr(x.value, g)
            for i in x.indices:
                expr(i, g)
            out.append((x, x.buffer, g))
        elif t is tirx.SeqStmt:
            for y in x.seq:
                stmt(y, g)
        elif t is tirx.IfThenElse:
            expr(x.condition, g)
            stmt(x.then_case, g + (Guard(x.condition, True),))
            if x.else_case is not None:
                stmt(x.else_case, g + (Guard(x.condition, False),))
        elif t is tirx.Evaluate:
            expr(x.value, g)
        elif t is s_tir.SBlockRealize or t is tirx.For:
            return  # nested loops/blocks: their own sites

    stmt(block.body, ())
    return out


def access_hull(o: Site, func: Any) -> dict[tuple[str, str], list[tuple[Any, Any] | None]]:
    """Per (buffer, shape): per dim an affine [lo, hi] covering every access of the original
    block over its iteration domain (intervals; guards ignored, so it over-approximates)."""
    iv = Intervals(limits=shape_var_limits(func))
    for v in o.block.iter_vars:
        iv.loop(v.var, v.dom.min, v.dom.extent)
    hull: dict[tuple[str, str], list[tuple[Any, Any] | None]] = {}
    for node, buf, _ in block_accesses(o.block):
        k = (buf.name, str(list(buf.shape)))
        dims = [iv.of(i) for i in node.indices]
        if k not in hull:
            hull[k] = dims
            continue
        merged = []
        for a, b in zip(hull[k], dims, strict=True):
            merged.append(None if a is None or b is None else (iv._lower(a[0], b[0]), iv._upper(a[1], b[1])))
        hull[k] = merged
    return hull
