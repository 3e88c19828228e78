"""Plain-data schedule steps and their replay on a ``tvm.s_tir.Schedule``.

A ``Step`` names a primitive, the block it targets (by name) and loops by index into that
block's loop nest *at the time the step applies* (taken modulo the number of loops, so a step
drawn against the original structure still lands on some loop after earlier steps changed it).
Everything else -- factors, permutations, scopes, index-map descriptions -- is plain data in
``args``. ``apply_step`` resolves the step, calls the primitive, and returns the call it made
as a line of Python (the readable repro).

A step that cannot be resolved (its block was inlined away, the loop nest is too short)
raises ``StepNotApplicable``; TVM refusing it raises TVM's ``ScheduleError``; both mean the
example is discarded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from passcheck.core.errors import Discard


class StepNotApplicable(Discard):
    """The step does not resolve on the current schedule (block gone, too few loops)."""


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


# --------------------------------------------------------------------------------------------
# Resolution helpers
# --------------------------------------------------------------------------------------------


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


def index_map(desc: tuple[Any, ...], shape: list[Any], index_dtype: str) -> Any:
    """An IndexMap over a buffer of ``shape`` from a plain description:
    ("permute", perm) | ("split", dim, factor) | ("fuse", dim)."""
    from tvm import tirx

    nd = len(shape)
    kind = desc[0]
    if kind == "permute":
        perm = [p % nd for p in desc[1]]
        if sorted(perm) != list(range(nd)):
            perm = list(range(nd))[::-1]
        return tirx.IndexMap.from_func(lambda *v: [v[p] for p in perm], ndim=nd, index_dtype=index_dtype)
    if kind == "split":
        d, f = desc[1] % nd, int(desc[2])

        def split(*v: Any) -> list[Any]:
            c = tirx.IntImm(v[d].ty.dtype, f)
            return [*v[:d], tirx.floordiv(v[d], c), tirx.floormod(v[d], c), *v[d + 1:]]

        return tirx.IndexMap.from_func(split, ndim=nd, index_dtype=index_dtype)
    if kind == "fuse":
        if nd < 2:
            raise StepNotApplicable("fuse needs a buffer of 2 or more dims")
        d = desc[1] % (nd - 1)
        inner = shape[d + 1]

        def fuse(*v: Any) -> list[Any]:
            return [*v[:d], v[d] * tirx.Cast(v[d].ty.dtype, inner) + v[d + 1], *v[d + 2:]]

        return tirx.IndexMap.from_func(fuse, ndim=nd, index_dtype=index_dtype)
    raise StepNotApplicable(f"unknown index map kind {kind!r}")


def shape_dtype(shape: list[Any]) -> str:
    return str(shape[0].ty.dtype) if shape else "int32"


# --------------------------------------------------------------------------------------------
# Appliers: one per primitive; each returns the call it made as a line of Python
# --------------------------------------------------------------------------------------------


def _split_like(sch: Any, step: Step, method: str) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    factors = list(a["factors"])
    kw: dict[str, Any] = {"preserve_unit_iters": a.get("preserve_unit_iters", True)}
    if method == "split":
        kw["disable_predication"] = a.get("disable_predication", False)
    getattr(sch, method)(loop, factors, **kw)
    return f"sch.{method}({lname!r} of {step.block!r}, factors={factors}, {', '.join(f'{k}={v}' for k, v in kw.items())})"


def apply_split(sch: Any, step: Step) -> str:
    return _split_like(sch, step, "split")


def apply_loop_partition(sch: Any, step: Step) -> str:
    return _split_like(sch, step, "loop_partition")


def apply_fuse(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loops = loops_of(sch, b)
    start, count = step.loops[0], step.arg["count"]
    if len(loops) < count:
        raise StepNotApplicable("not enough loops to fuse")
    s = start % (len(loops) - count + 1)
    chosen = loops[s : s + count]
    names = [name_of(sch, x) for x in chosen]
    sch.fuse(*chosen, preserve_unit_iters=step.arg.get("preserve_unit_iters", True))
    return f"sch.fuse({', '.join(map(repr, names))})  # block {step.block!r}"


def apply_reorder(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    chosen = distinct_loops(sch, b, step.loops)
    if len(chosen) < 2:
        raise StepNotApplicable("reorder needs two distinct loops")
    names = [name_of(sch, x) for x in chosen]
    sch.reorder(*chosen)
    return f"sch.reorder({', '.join(map(repr, names))})  # block {step.block!r}"


def _at(sch: Any, step: Step, method: str) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    tb = get_block(sch, a["target"])
    loop = loop_at(sch, tb, step.loops[0])
    lname = name_of(sch, loop)
    getattr(sch, method)(b, loop, preserve_unit_loops=a.get("preserve_unit_loops", False), index=a.get("index", -1))
    return f"sch.{method}({step.block!r}, {lname!r} of {a['target']!r}, preserve_unit_loops={a.get('preserve_unit_loops', False)}, index={a.get('index', -1)})"


def apply_compute_at(sch: Any, step: Step) -> str:
    return _at(sch, step, "compute_at")


def apply_reverse_compute_at(sch: Any, step: Step) -> str:
    return _at(sch, step, "reverse_compute_at")


def apply_compute_inline(sch: Any, step: Step) -> str:
    sch.compute_inline(get_block(sch, step.block))
    return f"sch.compute_inline({step.block!r})"


def apply_reverse_compute_inline(sch: Any, step: Step) -> str:
    sch.reverse_compute_inline(get_block(sch, step.block))
    return f"sch.reverse_compute_inline({step.block!r})"


def apply_cache_read(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "read", step.arg["buffer"])
    sch.cache_read(b, j, step.arg["scope"])
    return f"sch.cache_read({step.block!r}, {j}, {step.arg['scope']!r})"


def apply_cache_write(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "write", step.arg["buffer"])
    sch.cache_write(b, j, step.arg["scope"])
    return f"sch.cache_write({step.block!r}, {j}, {step.arg['scope']!r})"


def apply_cache_inplace(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "read", step.arg["buffer"])
    sch.cache_inplace(b, j, step.arg["scope"])
    return f"sch.cache_inplace({step.block!r}, {j}, {step.arg['scope']!r})"


def apply_cache_index(sch: Any, step: Step) -> str:
    sch.cache_index(get_block(sch, step.block), "global", cse_thresh=step.arg.get("cse_thresh", 0))
    return f"sch.cache_index({step.block!r}, 'global', cse_thresh={step.arg.get('cse_thresh', 0)})"


def apply_reindex(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    kind = step.arg["kind"]
    j, _ = region_buffer(sch, b, kind, step.arg["buffer"])
    sch.reindex(b, (kind, j))
    return f"sch.reindex({step.block!r}, ({kind!r}, {j}))"


def _block_iter_map(sch: Any, b: Any, perm: tuple[int, ...]) -> tuple[Any, list[int]]:
    from tvm import tirx

    iters = list(sch.get(b).iter_vars)
    n = len(iters)
    if n == 0:
        raise StepNotApplicable("block has no iterators")
    order = [p % n for p in perm]
    order = list(dict.fromkeys(order)) + [i for i in range(n) if i not in order]
    dt = str(iters[0].var.ty.dtype)
    return tirx.IndexMap.from_func(lambda *v: [v[i] for i in order], ndim=n, index_dtype=dt), order


def _reindex_cache(sch: Any, step: Step, kind: str) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, kind, step.arg["buffer"])
    imap, order = _block_iter_map(sch, b, step.arg["perm"])
    getattr(sch, f"reindex_cache_{kind}")(b, j, step.arg["scope"], imap)
    return f"sch.reindex_cache_{kind}({step.block!r}, {j}, {step.arg['scope']!r}, lambda *v: [v[i] for i in {order}])"


def apply_reindex_cache_read(sch: Any, step: Step) -> str:
    return _reindex_cache(sch, step, "read")


def apply_reindex_cache_write(sch: Any, step: Step) -> str:
    return _reindex_cache(sch, step, "write")


def _at_loop(sch: Any, step: Step, kind: str) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    j, _ = region_buffer(sch, b, kind, step.arg["buffer"])
    lname = name_of(sch, loop)
    getattr(sch, f"{kind}_at")(loop, b, j, step.arg["scope"])
    return f"sch.{kind}_at({lname!r}, {step.block!r}, {j}, {step.arg['scope']!r})"


def apply_read_at(sch: Any, step: Step) -> str:
    return _at_loop(sch, step, "read")


def apply_write_at(sch: Any, step: Step) -> str:
    return _at_loop(sch, step, "write")


def apply_rfactor(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.rfactor(loop, step.arg["factor_axis"])
    return f"sch.rfactor({lname!r} of {step.block!r}, factor_axis={step.arg['factor_axis']})"


def apply_decompose_reduction(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.decompose_reduction(b, loop)
    return f"sch.decompose_reduction({step.block!r}, {lname!r})"


def _loop_kind(method: str) -> Any:
    def apply(sch: Any, step: Step) -> str:
        b = get_block(sch, step.block)
        loop = loop_at(sch, b, step.loops[0])
        lname = name_of(sch, loop)
        getattr(sch, method)(loop)
        return f"sch.{method}({lname!r} of {step.block!r})"

    return apply


apply_vectorize = _loop_kind("vectorize")
apply_parallel = _loop_kind("parallel")
apply_unroll = _loop_kind("unroll")


def apply_bind(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.bind(loop, step.arg["thread"])
    return f"sch.bind({lname!r} of {step.block!r}, {step.arg['thread']!r})"


def apply_transform_layout(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, a["kind"], a["buffer"])
    if is_param_buffer(sch, buf):
        # A parameter's layout is the function's interface: callers would have to change too.
        raise StepNotApplicable("transform_layout of a function parameter changes the signature")
    shape = list(buf.shape)
    imap = index_map(a["map"], shape, shape_dtype(shape))
    pad = a.get("pad_value")
    sch.transform_layout(b, (a["kind"], j), imap, pad_value=pad)
    return f"sch.transform_layout({step.block!r}, ({a['kind']!r}, {j}), {a['map']!r}, pad_value={pad!r})"


def apply_transform_block_layout(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    imap, order = _block_iter_map(sch, b, step.arg["perm"])
    sch.transform_block_layout(b, imap)
    return f"sch.transform_block_layout({step.block!r}, lambda *v: [v[i] for i in {order}])"


def apply_storage_align(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, "write", a["buffer"])
    axis = a["axis"] % max(1, len(buf.shape))
    sch.storage_align(b, j, axis, a["factor"], a["offset"] % a["factor"])
    return f"sch.storage_align({step.block!r}, {j}, axis={axis}, factor={a['factor']}, offset={a['offset'] % a['factor']})"


def apply_set_scope(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "write", step.arg["buffer"])
    sch.set_scope(b, j, step.arg["scope"])
    return f"sch.set_scope({step.block!r}, {j}, {step.arg['scope']!r})"


def apply_blockize(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.blockize(loop, preserve_unit_iters=step.arg.get("preserve_unit_iters", True))
    return f"sch.blockize({lname!r} of {step.block!r})"


def apply_pad_einsum(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    n = len(sch.get(b).iter_vars)
    pads = [step.arg["padding"][i % len(step.arg["padding"])] for i in range(n)]
    sch.pad_einsum(b, pads)
    return f"sch.pad_einsum({step.block!r}, {pads})"


def apply_annotate(sch: Any, step: Step) -> str:
    a = step.arg
    b = get_block(sch, step.block)
    target = b if a["on"] == "block" else loop_at(sch, b, step.loops[0])
    tname = step.block if a["on"] == "block" else name_of(sch, target)
    sch.annotate(target, a["key"], a["value"])
    line = f"sch.annotate({tname!r}, {a['key']!r}, {a['value']!r})"
    if a.get("remove"):
        sch.unannotate(target, a["key"])
        line += f"; sch.unannotate({tname!r}, {a['key']!r})"
    return line


def apply_add_unit_loop(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    if step.arg.get("on") == "loop" and loops_of(sch, b):
        target = loop_at(sch, b, step.loops[0])
        tname = name_of(sch, target)
    else:
        target, tname = b, step.block
    sch.add_unit_loop(target)
    return f"sch.add_unit_loop({tname!r})"


def apply_merge(sch: Any, step: Step) -> str:
    b1 = get_block(sch, step.block)
    b2 = get_block(sch, step.arg["other"])
    l1 = loop_at(sch, b1, step.loops[0])
    l2 = loop_at(sch, b2, step.loops[0])
    n1, n2 = name_of(sch, l1), name_of(sch, l2)
    sch.merge(l1, l2)
    return f"sch.merge({n1!r} of {step.block!r}, {n2!r} of {step.arg['other']!r})"


def apply_reorder_block_iter_var(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    n = len(sch.get(b).iter_vars)
    if n < 2:
        raise StepNotApplicable("block has fewer than two iterators")
    order = [p % n for p in step.arg["perm"]]
    order = list(dict.fromkeys(order)) + [i for i in range(n) if i not in order]
    sch.reorder_block_iter_var(b, order)
    return f"sch.reorder_block_iter_var({step.block!r}, {order})"


def apply_rolling_buffer(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "write", step.arg["buffer"])
    sch.rolling_buffer(b, j)
    return f"sch.rolling_buffer({step.block!r}, {j})"


def apply_decompose_padding(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    sch.decompose_padding(b, loop)
    return f"sch.decompose_padding({step.block!r}, {lname!r})"


def apply_fuse_reduction_epilogue(sch: Any, step: Step) -> str:
    sch.fuse_reduction_epilogue(get_block(sch, step.block), get_block(sch, step.arg["epilogue"]))
    return f"sch.fuse_reduction_epilogue({step.block!r}, {step.arg['epilogue']!r})"


def apply_unsafe_set_dtype(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, "write", step.arg["buffer"])
    if is_param_buffer(sch, buf):
        raise StepNotApplicable("unsafe_set_dtype of a parameter changes the signature")
    sch.unsafe_set_dtype(b, j, step.arg["dtype"])
    return f"sch.unsafe_set_dtype({step.block!r}, {j}, {step.arg['dtype']!r})"


def apply_annotate_buffer_access(sch: Any, step: Step) -> str:
    """Re-declare a read region as what the block already reads, widened by ``grow`` on each
    side and clipped to the buffer: a sound annotation must not change the values computed."""
    from tvm import tirx

    b = get_block(sch, step.block)
    j, buf = region_buffer(sch, b, "read", step.arg["buffer"])
    region = sch.get(b).reads[j].region
    grow = step.arg.get("grow", 0)

    def gen(*_block_vars: Any) -> list[tuple[Any, Any]]:
        # The callback receives the block's own iterator vars, which the region already uses.
        out = []
        for r, ext in zip(region, buf.shape, strict=True):
            lo, hi = r.min, r.min + r.extent
            if grow:
                dt = str(lo.ty.dtype)
                lo = tirx.max(lo - tirx.IntImm(dt, grow), tirx.IntImm(dt, 0))
                hi = tirx.min(hi + tirx.IntImm(dt, grow), ext)
            out.append((lo, hi))
        return out

    sch.annotate_buffer_access(b, j, "read", gen)
    return f"sch.annotate_buffer_access({step.block!r}, {j}, 'read', <its own region, grown by {grow}>)"


def apply_unsafe_hide_buffer_access(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    j, _ = region_buffer(sch, b, "read", step.arg["buffer"])
    sch.unsafe_hide_buffer_access(b, "read", [j])
    return f"sch.unsafe_hide_buffer_access({step.block!r}, 'read', [{j}])"


def apply_sample_perfect_tile(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    tiles = sch.sample_perfect_tile(loop, n=step.arg["n"], max_innermost_factor=step.arg.get("max_innermost", 16))
    sch.split(loop, tiles)
    vals = [_sampled(sch, t) for t in tiles]
    return f"sch.split({lname!r} of {step.block!r}, sch.sample_perfect_tile(n={step.arg['n']}))  # sampled {vals}"


def apply_sample_partitioned_tile(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    n = step.arg["n"]
    tiles = sch.sample_partitioned_tile(loop, n=n, partition_pos=step.arg["pos"] % n,
                                        innerpart_factor=step.arg["inner"])
    sch.split(loop, tiles)
    vals = [_sampled(sch, t) for t in tiles]
    return f"sch.split({lname!r} of {step.block!r}, sch.sample_partitioned_tile(n={n}))  # sampled {vals}"


def apply_sample_compute_location(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loc = sch.sample_compute_location(b)
    # The sample may be one of the special locations (root, inline) that sch.get cannot show;
    # compute_at accepts them.
    try:
        lname = sch.get(loc).loop_var.name
    except (TypeError, AttributeError, ValueError):
        lname = "<root or inline>"
    sch.compute_at(b, loc)
    return f"sch.compute_at({step.block!r}, sch.sample_compute_location({step.block!r}))  # sampled {lname!r}"


def apply_sample_categorical(sch: Any, step: Step) -> str:
    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    cands = [0, 16, 64, 512]
    v = sch.sample_categorical(cands, [0.25] * 4)
    sch.annotate(loop, "pragma_auto_unroll_max_step", v)
    return f"sch.annotate({lname!r}, 'pragma_auto_unroll_max_step', sch.sample_categorical({cands}))  # sampled {int(sch.get(v))}"


def apply_tensorize(sch: Any, step: Step) -> str:
    from passcheck.tir.analysis.concrete import dtype_of
    from passcheck.tir.schedule.intrinsics import ensure_dot

    b = get_block(sch, step.block)
    loop = loop_at(sch, b, step.loops[0])
    lname = name_of(sch, loop)
    name = ensure_dot(step.arg["k"], dtype_of(sch.get(loop).loop_var))
    keep = step.arg["preserve_unit_iters"]
    sch.tensorize(loop, name, preserve_unit_iters=keep)
    return f"sch.tensorize({lname!r} of {step.block!r}, {name!r}, preserve_unit_iters={keep})"


def _sampled(sch: Any, rv: Any) -> Any:
    try:
        return int(sch.get(rv))
    except (TypeError, ValueError):
        return rv


APPLIERS = {name[len("apply_"):]: fn for name, fn in list(globals().items()) if name.startswith("apply_")}


def apply_step(sch: Any, step: Step) -> str:
    """Replay one step; returns the call made (a readable line). Raises ``StepNotApplicable``
    or TVM's ``ScheduleError`` when the step does not apply."""
    fn = APPLIERS.get(step.prim)
    if fn is None:
        raise StepNotApplicable(f"unknown primitive {step.prim!r}")
    return fn(sch, step)


def apply_steps(sch: Any, steps: tuple[Step, ...] | list[Step]) -> list[str]:
    """Replay ``steps`` in order on ``sch``; returns the calls made."""
    return [apply_step(sch, s) for s in steps]
