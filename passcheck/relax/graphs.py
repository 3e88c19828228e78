"""Hypothesis strategies for Relax graphs (as plain-data ``GraphSpec``s).

Graphs are DAGs: an op's operands are chosen among all earlier values (recent ones more
often), so values get several consumers and branches merge; every value nobody consumes is
an output (a tuple when there are several). Each pass gets a ``GraphBias`` that makes its
interesting patterns common.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import strategies as st

from passcheck.core.rounding import INT_RANGE
from passcheck.relax.budget import op_allowed, open_for
from passcheck.relax.ops.base import (
    OPS,
    SAFE_MAGNITUDE,
    DrawContext,
    Drawn,
    ValueInfo,
    attrs_key,
    budget_roll,
    chance,
    finite_interval,
    op_registry,
    value_limit,
)
from passcheck.relax.spec import GraphSpec, Node, TensorDecl
from passcheck.relax.swarm import Swarm, aim, draw_features, draw_ops

DIMS = (1, 2, 3, 4, 5, 6, 7, 8, 11, 13)  # primes and 1s on purpose
SYM_NAMES = ("n", "m", "k")
SYM_SIZES = (1, 2, 3, 5, 7, 0)  # run-time values of shape variables: 1 first (it shrinks there)
# dtypes a graph's first input may have besides float32/float16 (bfloat16 compiles for the CPU
# with llvm in TVM 0.27: its arithmetic is done in float32 and rounded back)
OTHER_DTYPES = ("float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool")


@dataclass(frozen=True)
class GraphBias:
    """Knobs a pass uses to make its interesting patterns common."""

    op_weights: tuple[tuple[str, float], ...] = ()  # unlisted ops weigh 1.0; 0 disables
    min_nodes: int = 1
    max_nodes: int = 8
    const_bias: float = 0.25  # chance a fresh input is a constant rather than a parameter
    prefer_const: float = 0.0  # chance an op's first operand is taken among constant-only values
    symbolic: float = 0.15  # chance the first input has symbolic dims (one to three, anywhere)
    zero_size: float = 0.05  # chance the first input has a dim of extent 0
    float16: float = 0.0  # chance the graph is float16 (only ops that support it)
    other_dtypes: float = 0.1  # chance the first input has one of OTHER_DTYPES
    dtypes: tuple[str, ...] = ()  # the first input's dtype is drawn among these, when given
    first_ranks: tuple[int, ...] = (1, 2, 3, 4)
    allow_special: bool = False  # NaN/Inf input values
    square: float = 0.0  # chance a rank-4 first input has H == W (layout bugs that swap H and W)
    tensor_inputs: float = 0.5  # chance the inputs reach the VM as TVM tensor copies, not NumPy arrays
    special_consts: float = 0.0  # chance a fresh float constant holds NaN/+-Inf/0 (DrawContext)
    equal_extents: float = 0.0  # chance the first input has one extent on several axes
    reuse: float = 0.0  # chance an op's first operand is a value that already has a consumer
    # (consumer, producer) pairs, each an op name or OpSpec.pattern: with chance ``fed``, an op
    # matching a consumer takes as first operand the output of an op matching its producer
    fed_by: tuple[tuple[str, str], ...] = ()
    fed: float = 0.0
    extra: tuple[tuple[str, Any], ...] = field(default=())  # strategies for pass-specific extras
    # motifs (``relax.motifs``: a few ops in the shape a pass rewrites) and the chance each op
    # drawn is one of them instead
    motifs: tuple[str, ...] = ()
    motif: float = 0.0
    # at most this many motifs per graph (by default as many as fit): where a motif of one op
    # fills every slot it crowds out what the op feeds (AlterOpLayout: 1)
    max_motifs: int = 99
    # (op, known bug) pairs: ops this pass meets a kept TVM bug on whenever it acts on them, drawn
    # at the bug's budget (``relax.budget``)
    ops_at_budget: tuple[tuple[str, str], ...] = ()
    # (op, attribute test, known bug) triples: an op's attribute form this pass meets a kept TVM
    # bug on (a squeeze's negative axis for ConvertLayout), drawn at the bug's budget; the op in
    # its other forms is drawn as before
    forms_at_budget: tuple[tuple[str, Callable[[dict[str, Any]], bool], str], ...] = ()
    # (dtype, known bug) pairs: a graph dtype this pass meets a kept TVM bug in whenever it acts,
    # drawn at the bug's budget (float32 instead)
    dtypes_at_budget: tuple[tuple[str, str], ...] = ()
    # swarm testing (``relax.swarm``): how often an example keeps a few ops and one dtype only
    swarm: Swarm = Swarm()

    def weight(self, op: str) -> float:
        for name, w in reversed(self.op_weights):  # (the last of a name counts, as in a dict)
            if name == op:
                return w
        # an op tagged "biased-only" is drawn where a bias names it (batch_norm's training form:
        # DecomposeOpsForTraining), not from every pass's menu
        return 0.0 if "biased-only" in op_registry()[op].tags else 1.0


def _dims(draw: Any, rank: int) -> list[int]:
    return [draw(st.sampled_from(DIMS)) for _ in range(rank)]


def _symbolic_dims(draw: Any, shape: list[Any], sizes: dict[str, int]) -> None:
    """Make one to three dims of ``shape`` symbolic, in any position; a name may come back (equal
    extents); each name is bound at run time to 0, 1 or a prime (<= SYM_MAX, ops.bounds)."""
    rank = len(shape)
    positions = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=min(rank, 3), unique=True))
    for p in positions:
        name = draw(st.sampled_from(SYM_NAMES))
        shape[p] = name
        if name not in sizes:
            sizes[name] = draw(st.sampled_from(SYM_SIZES))


def _first_interval(draw: Any, dtype: str) -> tuple[float, float]:
    if dtype in INT_RANGE:
        lo, hi = INT_RANGE[dtype]
        # the whole range (wraparound is common), small values, or small non-negative ones
        kind = draw(st.sampled_from(("full", "small", "nonneg")))
        if kind == "full":
            return float(lo), float(hi)
        return (float(max(lo, -8)) if kind == "small" else 0.0), float(min(hi, 100))
    scale = draw(st.sampled_from((1.0, 1.0, 0.01, 10.0, 100.0)))
    return -scale, scale


def _zero_size_parameter(inputs: list[TensorDecl], sym_sizes: dict[str, int]) -> bool:
    """Whether a parameter (not a constant) has an extent 0 when the graph runs."""
    return any(not d.const and any((sym_sizes.get(x) if isinstance(x, str) else x) == 0 for x in d.shape)
               for d in inputs)


@functools.lru_cache(maxsize=256)
def _menu(bias: GraphBias, dtype: str, version: int) -> tuple[tuple[str, ...], st.SearchStrategy[int], int, bool]:
    """The ops a graph of first dtype ``dtype`` draws from (weighted by repetition), the index
    of the next one, the stride a refused choice moves the index by, and whether any op the
    bias draws takes that dtype; made once per bias, dtype and op declarations (``version``): a
    graph draws from it many times, and building it costs more than drawing."""
    ops = op_registry()
    takes = any(o.accepts(dtype) for n, o in ops.items() if bias.weight(n) > 0)
    # ops of the first input's dtype, and those declaring their dtypes (other dtypes than the
    # first input's come from astype and comparisons)
    names = [n for n, o in sorted(ops.items()) if bias.weight(n) > 0 and (o.accepts(dtype) or o.dtypes)
             and "ir-node" not in o.tags]  # TupleGetItem follows a tuple-valued op, never drawn alone
    # Weighted choice as a sampled_from over repeated names: Hypothesis shrinks an index into a
    # list far better than a float threshold (it tries each earlier name in turn).
    menu = tuple(n for n in names for _ in range(max(1, round(2 * bias.weight(n)))))
    # about 0.618 of the menu, coprime with its length: successive refusals visit every entry,
    # each far from the last (a weighted op fills up to 24 entries in a row)
    stride = max(1, int(len(menu) * 0.6180339887))
    while math.gcd(stride, len(menu)) != 1:
        stride += 1
    return menu, st.sampled_from(range(len(menu))), stride, takes


@st.composite
def relax_graphs(draw: Any, bias: GraphBias = GraphBias()) -> GraphSpec:
    ops = op_registry()
    swarmed = chance(draw, bias.swarm.rate)
    menu_bias = bias  # (the menu is the bias's, whatever the swarm does to its chances)
    if swarmed:
        bias = replace(bias, **dict(draw_features(draw, bias.swarm, bias)))
    dtype = "float16" if chance(draw, bias.float16) else "float32"
    if bias.dtypes:
        dtype = draw(st.sampled_from(bias.dtypes))
    elif swarmed and bias.swarm.dtypes:
        dtype = draw(st.sampled_from(_swarm_dtypes(menu_bias, OPS.version)))
    elif chance(draw, bias.other_dtypes):
        dtype = draw(st.sampled_from(OTHER_DTYPES))
        if not _menu(bias, dtype, OPS.version)[3]:
            dtype = "float32"  # no op the bias draws takes it (a user's float-only op, say)
    roll = None
    for at, bug in bias.dtypes_at_budget:
        if dtype == at:
            roll = budget_roll(draw) if roll is None else roll
            dtype = dtype if open_for(roll, bug) else "float32"
    menu, choose_op, stride, _ = _menu(menu_bias, dtype, OPS.version)
    subset = draw_ops(draw, menu, _kinds(menu, OPS.version), bias.swarm) if swarmed else ()
    choose_kept = st.integers(0, len(subset) - 1) if subset else None
    ctx = DrawContext(draw, dtype, symbolic_ok=True, const_bias=bias.const_bias,
                      limit=SAFE_MAGNITUDE.get(dtype, SAFE_MAGNITUDE["float32"]), budget_roll=roll)
    # a graph whose float constants hold NaN/+-Inf/0 (all of them, so that whole constant
    # subgraphs are non-finite), or none
    ctx.special_consts = 1.0 if chance(draw, bias.special_consts) else 0.0

    rank = draw(st.sampled_from(bias.first_ranks))
    shape: list[Any] = _dims(draw, rank)
    if rank == 4 and chance(draw, bias.square):
        shape[3] = shape[2]
    if rank >= 2 and chance(draw, bias.equal_extents):
        axes = draw(st.lists(st.integers(0, rank - 1), min_size=2, max_size=rank, unique=True))
        extent = draw(st.sampled_from(DIMS[1:]))  # not 1: equal unit dims are everywhere anyway
        for a in axes:
            shape[a] = extent
    if rank and chance(draw, bias.zero_size):
        shape[draw(st.integers(0, rank - 1))] = 0
    sym_sizes: dict[str, int] = {}
    if rank and chance(draw, bias.symbolic):
        _symbolic_dims(draw, shape, sym_sizes)
    lo, hi = _first_interval(draw, dtype)
    special = bias.allow_special and dtype not in INT_RANGE and draw(st.booleans())
    ctx.fresh(tuple(shape), lo, hi, const=False, style="special" if special else None)
    if bias.prefer_const:
        ctx.fresh(tuple(d if isinstance(d, int) else 1 for d in shape), lo, hi, const=True)

    nodes: list[tuple[str, str, Drawn]] = []
    has_consumer: set[int] = set()  # values with a consumer (reuse gives them more)
    producer: dict[int, str] = {}  # value id -> the op that computed it
    n_nodes = draw(st.integers(bias.min_nodes, bias.max_nodes))
    attempts = 0
    # Ops refused so far (no operand fits, the draw failed): the next choice moves past them.
    # Hypothesis draws the same index again and again in its simplest examples, and an int64
    # graph whose first menu op takes only floats gave up as a lone relu (9% of FuseOps's graphs:
    # nothing to fuse). A graph that meets no refusal draws what it drew before.
    refused = 0
    def add(name: str, drawn: Drawn) -> ValueInfo:
        out_dtype = drawn.dtype or (ctx.info(drawn.args[0]).dtype if drawn.args else ctx.dtype)
        _add_node(ctx, nodes, name, out_dtype, drawn)
        has_consumer.update(drawn.args)
        producer[len(nodes) - 1] = name
        return ctx.values[-1]

    motifs_placed = 0
    while len(nodes) < n_nodes and attempts < 4 * n_nodes + 8:
        attempts += 1
        # (a motif where the draw is smallest: minimal examples, and what shrinking reaches, hold
        # what the pass acts on). At most max_motifs per graph: with a motif in every slot
        # SimplifyInference drew no layer_norm in 400 graphs
        if bias.motifs and motifs_placed < bias.max_motifs and not chance(draw, 1.0 - bias.motif):
            from passcheck.relax.motifs import MOTIFS

            if MOTIFS.get(draw(st.sampled_from(bias.motifs)))(ctx, add):
                motifs_placed += 1
                continue
            # (a motif with nothing to build on draws an op instead: FuseOps's float chains in an
            # integer graph wasted three attempts in four, and 45% of its int graphs held one op)
        kept = choose_kept is not None and refused < 2 * len(subset) and chance(draw, bias.swarm.keep)
        if kept:
            name = subset[(draw(choose_kept) + refused) % len(subset)]
        else:  # (not swarmed, or every op it kept refused twice: the whole menu)
            name = menu[(draw(choose_op) + refused * stride) % len(menu)]
        refused += 1
        op = ops[name]
        if not op_allowed(lambda: ctx.budget_roll, name, dtype, bias.ops_at_budget):
            continue  # the op (in this dtype) meets a kept TVM bug: at the bug's budget
        const_first = chance(draw, bias.prefer_const)
        feeders = {p for c, p in bias.fed_by if c in (name, op.pattern)}
        fed = bool(feeders) and chance(draw, bias.fed)
        reused = chance(draw, bias.reuse)

        def ok(v: ValueInfo, op: Any = op, const_first: bool = const_first) -> bool:
            return (op.symbolic or v.static) and (v.const_only or not const_first) and op.accepts(v.dtype)

        def wanted(v: ValueInfo, feeders: set[str] = feeders, fed: bool = fed, reused: bool = reused) -> bool:
            made_by = producer.get(v.vid)
            return ((not fed or (made_by is not None and {made_by, ops[made_by].pattern} & feeders))
                    and (not reused or v.vid in has_consumer))

        # the biased choice when a value fits it, any fitting value otherwise
        first = ctx.pick(lambda v, ok=ok, wanted=wanted: ok(v) and wanted(v)) if fed or reused else None
        first = first or ctx.pick(ok)
        draw_op = functools.partial(aim, draw, draw_op=_draw_for) if kept and bias.swarm.forms else _draw_for
        drawn = draw_op(ctx, op, first) if first is not None else None
        if drawn is None and kept and chance(draw, bias.swarm.fresh):
            for _ in range(3):  # (a rank the op takes comes in three tries mostly)
                first = _fresh_operand(ctx, op)
                drawn = draw_op(ctx, op, first) if first is not None else None
                if drawn is not None:
                    break
        if drawn is None or not all(ctx.budget_open(bug) for form_op, form, bug in bias.forms_at_budget
                                    if form_op == name and form(drawn.attrs)):
            continue  # (a form meeting a kept TVM bug: at the bug's budget)
        if drawn.args and not op_allowed(lambda: ctx.budget_roll, name, ctx.info(drawn.args[0]).dtype):
            continue  # (the same for the dtype it reads: a comparison of two bool comparisons)
        out_dtype = drawn.dtype or (ctx.info(drawn.args[0]).dtype if drawn.args else ctx.dtype)
        if not finite_interval(drawn.lo, drawn.hi, value_limit(ctx, out_dtype)) \
                or not all(ctx.fits(s) for s in (drawn.parts or (drawn.shape,))):
            continue
        if not op.symbolic and any(not ctx.info(a).static for a in drawn.args):
            continue
        _add_node(ctx, nodes, name, out_dtype, drawn)
        refused -= 1
        has_consumer.update(drawn.args)
        producer[len(nodes) - 1] = name
        if drawn.parts is not None:
            for get in _take_parts(ctx, ops["tuple_get_item"], len(nodes) - 1):
                _add_node(ctx, nodes, "tuple_get_item", out_dtype, get)
                has_consumer.update(get.args)
                producer[len(nodes) - 1] = "tuple_get_item"
    if not nodes:
        # Every op refused (tiny draws); fall back to something always valid for the dtype.
        first = ctx.values[0]
        name = next(n for n in ("relu", "abs", "bitwise_not") if ops[n].accepts(first.dtype))
        drawn = ops[name].draw(ctx, first)
        assert drawn is not None
        _add_node(ctx, nodes, name, first.dtype, drawn)

    n_in = len(ctx.inputs)

    def renum(vid: int) -> int:
        return -1 - vid if vid < 0 else n_in + vid

    spec_nodes = tuple(
        Node(name, tuple(renum(a) for a in d.args), attrs_key(d.attrs), tuple(d.shape), out_dtype, d.parts)
        for name, out_dtype, d in nodes
    )
    consumed = {a for n in spec_nodes for a in n.args}
    outputs = [n_in + i for i in range(len(spec_nodes)) if n_in + i not in consumed]
    if len(spec_nodes) > 1 and draw(st.integers(0, 4)) == 0:
        extra_out = n_in + draw(st.integers(0, len(spec_nodes) - 1))
        if extra_out not in outputs and spec_nodes[extra_out - n_in].parts is None \
                and extra_out - n_in not in ctx.private:
            outputs.insert(0, extra_out)
    extras = tuple((k, draw(s)) for k, s in bias.extra)
    seed = draw(st.integers(0, 2**16))
    # how the inputs reach the VM, drawn last (the earlier draws stay as they were): NumPy arrays
    # (where it refuses zero-size ones, a kept TVM bug) or TVM tensor copies (where they run)
    tensors = chance(draw, bias.tensor_inputs)
    if not tensors and _zero_size_parameter(ctx.inputs, sym_sizes) \
            and not ctx.budget_open("test_vm_zero_size_numpy_input"):
        tensors = True  # the VM refuses a zero-size NumPy argument (kept TVM bug): at its budget
    # a data-dependent op's match_cast on the call itself or on its bound value (drawn after the
    # rest, which stays as it was)
    cast_calls = any("match-cast" in ops[n.op].tags for n in spec_nodes) and draw(st.booleans())
    inputs: tuple[TensorDecl, ...] = tuple(ctx.inputs)
    return GraphSpec(inputs, spec_nodes, tuple(outputs), tuple(sorted(sym_sizes.items())), seed, True, extras,
                     tensors, cast_calls)


@functools.lru_cache(maxsize=256)
def _kinds(menu: tuple[str, ...], version: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The menu's ops by kind (their fusion pattern; tuple-valued ops a kind of their own)."""
    ops = op_registry()
    by_kind: dict[str, list[str]] = {}
    for name in dict.fromkeys(menu):
        kind = "tuple" if "tuple" in ops[name].tags else ops[name].pattern
        by_kind.setdefault(kind, []).append(name)
    return tuple((k, tuple(v)) for k, v in sorted(by_kind.items()))


@functools.lru_cache(maxsize=64)
def _swarm_dtypes(bias: GraphBias, version: int) -> tuple[str, ...]:
    """The first dtypes a swarmed example draws among, uniformly: those the bias draws at all
    (float16 where it has a chance, the others where ``other_dtypes`` has) that an op it draws
    takes."""
    candidates = ("float32",) + (("float16",) if bias.float16 > 0 else ()) \
        + (OTHER_DTYPES if bias.other_dtypes > 0 else ())
    return tuple(d for d in candidates if _menu(bias, d, version)[3]) or ("float32",)


def _fresh_operand(ctx: DrawContext, op: Any) -> ValueInfo | None:
    """A new static input for a kept op no value fitted (``Swarm.fresh``): a rank from 1 to 5, the
    graph's dtype where the op takes it, else the first float (or any) dtype it takes."""
    dtypes = [ctx.dtype, "float32", "float16", *sorted(op.dtypes or ())]
    dtype = next((d for d in dtypes if op.accepts(d)), None)
    if dtype is None:
        return None
    rank = ctx.draw(st.integers(1, 5))
    # (extents up to 13 on five axes mostly exceed the element limit: at most 4096 elements)
    shape = tuple(ctx.draw(st.sampled_from(DIMS[: 8 if rank < 4 else 5])) for _ in range(rank))
    lo, hi = _first_interval(ctx.draw, dtype)
    return ctx.info(ctx.fresh(shape, lo, hi, dtype=dtype))


def _draw_for(ctx: DrawContext, op: Any, first: ValueInfo) -> Drawn | None:
    """``op.draw`` with the context in ``first``'s float dtype, so the fresh operands an op
    makes (weights, gamma, labels) match a first operand of another dtype (after astype)."""
    if first.dtype not in SAFE_MAGNITUDE or first.dtype == ctx.dtype:
        return op.draw(ctx, first)
    dtype, limit = ctx.dtype, ctx.limit
    ctx.dtype, ctx.limit = first.dtype, value_limit(ctx, first.dtype)
    try:
        return op.draw(ctx, first)
    finally:
        ctx.dtype, ctx.limit = dtype, limit
def _add_node(ctx: DrawContext, nodes: list[tuple[str, str, Drawn]], name: str, dtype: str, drawn: Drawn) -> None:
    """Append a node and its value (a tuple value when ``drawn.parts`` is set)."""
    vid = len(nodes)
    nodes.append((name, dtype, drawn))
    const_only = all(ctx.info(a).const_only for a in drawn.args)
    ctx.values.append(ValueInfo(vid, tuple(drawn.shape), dtype, drawn.lo, drawn.hi, const_only, drawn.parts))


def _take_parts(ctx: DrawContext, getitem: Any, vid: int) -> list[Drawn]:
    """TupleGetItems of a drawn subset of the tuple's parts (at least one: a tuple nobody reads
    would be the function's output, which the reference compares only for tensors)."""
    tup = ctx.info(vid)
    assert tup.parts is not None
    n = len(tup.parts)
    picked = ctx.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    return [getitem.draw(ctx, tup, index=i) for i in picked]
