"""Plain-data schedule steps, and the helpers appliers use to resolve them on a schedule.

A ``Step`` names a primitive, the block it targets and loops by index into that block's loop
nest *at the time the step applies* (taken modulo the number of loops, so a step drawn against
the original structure still lands on some loop after earlier steps changed it). Everything
else -- factors, permutations, scopes, index-map descriptions -- is plain data in ``args``.

A block is named by a *block reference*: a block's name, or a name followed by operators that
walk from it to a block an earlier step made (read left to right):

  ``B<j``   the block that writes what ``B`` reads at its j-th read region (a cache_read's,
            reindex's or read_at's copy; the last writer when several write it)
  ``B>j``   the first block that reads what ``B`` writes at its j-th write region (a
            cache_write's or write_at's copy-back)
  ``B^``    the block around ``B`` (what blockize made of it)
  ``B%k``   the k-th (modulo their number) of the blocks named ``B`` or ``B_...`` that have
            iterators, in program order (the pieces loop_partition cut ``B`` into)
  ``B+s``   the block named ``<name of B>_s`` (``B+init``, ``B+rf``, ``B+o``; for a block
            decompose_reduction renamed ``X_update``, also ``X_s``)

``apply_step`` resolves every reference in a step to the block's name before the primitive's
applier sees it, so traces and repros show TVM's names. A bare name that is gone falls back to
the single block ``name_*`` (decompose_reduction renames ``C`` to ``C_update``).

A step that cannot be resolved (its block was inlined away, the loop nest is too short)
raises ``StepNotApplicable``; TVM refusing it raises TVM's ``ScheduleError``; both mean the
example is discarded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
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
    return [b.name_hint for b, _ in _blocks(sch)]


def _blocks(sch: Any) -> list[tuple[Any, Any]]:
    """Every block of ``main`` but the root, in program order, with the block around it (None
    directly under the root)."""
    import tvm_ffi
    from tvm import s_tir

    out: list[tuple[Any, Any]] = []
    parents: list[Any] = []

    def on_block(b: Any, visitor: Any) -> None:
        root = b.name_hint == "root"
        if not root:
            out.append((b, parents[-1] if parents else None))
            parents.append(b)
        if b.init is not None:
            visitor.visit(b.init)
        visitor.visit(b.body)
        if not root:
            parents.pop()

    tvm_ffi.structural_visit(sch.mod["main"].body, [(s_tir.SBlock, on_block)])
    return out


_REF = re.compile(r"([<>%])(\d+)|(\^)|\+(\w+)")
REF_OPERATORS = "<>^%+"


def is_reference(name: str) -> bool:
    """Does ``name`` walk from a block to another (rather than name one)?"""
    return any(c in name for c in REF_OPERATORS)


def derived(name: str, suffix: str) -> str:
    """The reference of the block TVM calls ``<name of name>_suffix``."""
    return f"{name}+{suffix}"


def _by_name(sch: Any, name: str) -> str:
    names = block_names(sch)
    if name in names:
        return name
    cands = [n for n in names if n.startswith(name + "_") and not n.endswith(("_init", "_rf"))]
    if len(cands) == 1:
        return cands[0]
    if name + "_update" in names:  # decompose_reduction's rename, beside blocks made from it
        return name + "_update"
    raise StepNotApplicable(f"no block {name!r} (blocks: {', '.join(names)})")


def _walk(sch: Any, ref: str) -> Any:
    """The block (the IR node) ``ref`` refers to now."""
    from passcheck.tir.analysis.concrete import key

    m = re.match(r"\w+", ref)
    if m is None:
        raise StepNotApplicable(f"not a block reference: {ref!r}")
    blocks = _blocks(sch)
    base, pos = m.group(0), m.end()
    # Before ``%`` and ``+`` the base is a name, which need not be a block's.
    cur = None if ref[pos:pos + 1] in ("%", "+") else _named(blocks, _by_name(sch, base))
    while pos < len(ref):
        op = _REF.match(ref, pos)
        if op is None:
            raise StepNotApplicable(f"not a block reference: {ref!r}")
        pos = op.end()
        name = base if cur is None else cur.name_hint
        if op.group(1) in ("<", ">"):
            reading = op.group(1) == "<"
            regions = list(cur.reads if reading else cur.writes)
            if not regions:
                raise StepNotApplicable(f"{ref}: block {name} has no {'read' if reading else 'write'}s")
            buf = key(regions[int(op.group(2)) % len(regions)].source)
            found = [b for b, _ in blocks if not b.same_as(cur)
                     and any(key(r.source) == buf for r in (b.writes if reading else b.reads))]
            if not found:
                raise StepNotApplicable(f"{ref}: no block {'writes' if reading else 'reads'} that buffer of {name}")
            cur = found[-1] if reading else found[0]
        elif op.group(3):
            parent = next(p for b, p in blocks if b.same_as(cur))
            if parent is None:
                raise StepNotApplicable(f"{ref}: block {name} is not inside another block")
            cur = parent
        elif op.group(1) == "%":
            family = [b for b, _ in blocks if (b.name_hint == name or b.name_hint.startswith(name + "_"))
                      and len(b.iter_vars)]
            if not family:
                raise StepNotApplicable(f"{ref}: no block {name} or {name}_* with iterators")
            cur = family[int(op.group(2)) % len(family)]
        else:
            cur = _named(blocks, _suffixed(sch, blocks, name, cur is None, op.group(4)), ref)
    return cur


def _suffixed(sch: Any, blocks: list[tuple[Any, Any]], name: str, bare: bool, suffix: str) -> str:
    """The name ``B+suffix`` refers to: ``<name>_suffix``, else (a bare name that is a block's
    under another name now) ``<that name>_suffix``, else without a trailing ``_update``
    (decompose_reduction names the init after the block's old name)."""
    names = {b.name_hint for b, _ in blocks}
    tries = [name]
    if bare:
        try:
            tries.append(_by_name(sch, name))
        except StepNotApplicable:
            pass
    tries += [t[: -len("_update")] for t in tries if t.endswith("_update")]
    for t in tries:
        if f"{t}_{suffix}" in names:
            return f"{t}_{suffix}"
    return f"{name}_{suffix}"


def _named(blocks: list[tuple[Any, Any]], name: str, ref: str = "") -> Any:
    for b, _ in blocks:
        if b.name_hint == name:
            return b
    raise StepNotApplicable(f"{ref or name}: no block {name!r}")


def resolve_ref(sch: Any, ref: str) -> str:
    """The name of the block ``ref`` (a block reference, see the module doc) refers to now."""
    return str(_walk(sch, ref).name_hint)


# Step arguments that hold block references (a name, or a tuple of names).
BLOCK_ARGS = ("target", "other", "epilogue", "blocks", "consumers")


def has_reference(step: Step) -> bool:
    """Does ``step`` find a block by reference (its block, or an argument that names blocks)?"""
    named = [step.block, *(x for k, v in step.args if k in BLOCK_ARGS for x in (v if isinstance(v, tuple) else (v,)))]
    return any(isinstance(r, str) and is_reference(r) for r in named)


def resolve_step(sch: Any, step: Step) -> Step:
    """``step`` with each block reference in it replaced by its block's name, where that name
    is the block's alone (TVM may give two blocks one name: two caches of one buffer); a bare
    name is left as it is (``get_block`` finds a renamed block)."""
    names = block_names(sch)

    def one(r: Any) -> Any:
        if not (isinstance(r, str) and is_reference(r)):
            return r
        name = resolve_ref(sch, r)
        return name if names.count(name) == 1 else r

    args = tuple((k, (tuple(one(x) for x in v) if isinstance(v, tuple) else one(v)) if k in BLOCK_ARGS else v)
                 for k, v in step.args)
    block = one(step.block) if step.block else step.block
    if block == step.block and args == step.args:
        return step
    return replace(step, block=block, args=args)


def get_block(sch: Any, name: str) -> Any:
    """The block ``name`` refers to (a block reference); failing an exact name, the single
    block ``name_*`` (a primitive such as decompose_reduction renames ``C`` to ``C_update``)."""
    if not is_reference(name):
        found = _by_name(sch, name)
        if block_names(sch).count(found) == 1:
            return sch.get_sblock(found)
        return _rv_of(sch, _named(_blocks(sch), found))
    return _rv_of(sch, _walk(sch, name))


def _rv_of(sch: Any, block: Any) -> Any:
    """A handle on ``block`` found by identity, not by name (names need not be unique)."""
    names = block_names(sch)
    if names.count(block.name_hint) == 1:
        return sch.get_sblock(block.name_hint)
    todo = list(sch.get_child_blocks(sch.get_sblock("root")))
    while todo:
        rv = todo.pop(0)
        if sch.get(rv).same_as(block):
            return rv
        todo.extend(sch.get_child_blocks(rv))
    raise StepNotApplicable(f"block {block.name_hint} not found")


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


def given_block(sch: Any, step: Step, rv: Any) -> Any:
    """``rv``, or its name where the step draws the name form and the name is the block's alone."""
    if not step.arg.get("by_name"):
        return rv
    name = sch.get(rv).name_hint
    return name if block_names(sch).count(name) == 1 else rv


def given_buffer(sch: Any, step: Step, block: Any, kind: str, j: int) -> Any:
    """The ``j``-th read/write buffer of ``block`` in the form the step draws: its index, its
    name (where no other buffer of the block has it) or its Var."""
    how = step.arg.get("buffer_as", "index")
    if how == "index":
        return j
    blk = sch.get(block)
    regions = list(blk.reads if kind == "read" else blk.writes)
    buf = regions[j].source
    if how == "var":
        return buf
    others = {r.source.name for r in (*blk.reads, *blk.writes) if not r.source.same_as(buf)}
    return buf.name if buf.name not in others else j


def shown(value: Any) -> str:
    """How a block or buffer argument reads in a trace line."""
    if hasattr(value, "name") and not isinstance(value, str):
        return f"<Var {value.name}>"
    if type(value).__name__ == "SBlockRV":
        return "<block>"
    return repr(value)


def with_arity(fn: Any, n: int) -> Any:
    """``fn`` (written ``lambda *v: ...``) as a function of exactly ``n`` positional
    parameters: TVM counts the parameters of an index-map callable to know its dimensions."""
    import inspect

    def call(*v: Any) -> Any:
        return fn(*v)

    params = [inspect.Parameter(f"v{i}", inspect.Parameter.POSITIONAL_ONLY) for i in range(n)]
    setattr(call, "__signature__", inspect.Signature(params))  # noqa: B010 - what inspect.signature reads
    return call
