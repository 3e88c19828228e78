"""Hypothesis strategies for Relax graphs (as plain-data ``GraphSpec``s).

Graphs are DAGs: an op's operands are chosen among all earlier values (recent ones more
often), so values get several consumers and branches merge; every value nobody consumes is
an output (a tuple when there are several). Each pass gets a ``GraphBias`` that makes its
interesting patterns common.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from passcheck.relax.ops.base import (
    DrawContext,
    Drawn,
    ValueInfo,
    attrs_key,
    chance,
    finite_interval,
    op_registry,
)
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

DIMS = (1, 2, 3, 4, 5, 6, 7, 8, 11, 13)  # primes and 1s on purpose
SAFE_MAGNITUDE = {"float32": 1e6, "float16": 2e3}


@dataclass(frozen=True)
class GraphBias:
    """Knobs a pass uses to make its interesting patterns common."""

    op_weights: tuple[tuple[str, float], ...] = ()  # unlisted ops weigh 1.0; 0 disables
    min_nodes: int = 1
    max_nodes: int = 8
    const_bias: float = 0.25  # chance a fresh input is a constant rather than a parameter
    prefer_const: float = 0.0  # chance an op's first operand is taken among constant-only values
    symbolic: float = 0.15  # chance the first input has a symbolic leading dim
    float16: float = 0.0  # chance the graph is float16 (only ops that support it)
    first_ranks: tuple[int, ...] = (1, 2, 3, 4)
    allow_special: bool = False  # NaN/Inf input values
    square: float = 0.0  # chance a rank-4 first input has H == W (layout bugs that swap H and W)
    extra: tuple[tuple[str, Any], ...] = field(default=())  # strategies for pass-specific extras

    def weight(self, op: str) -> float:
        return dict(self.op_weights).get(op, 1.0)


def _dims(draw: Any, rank: int) -> list[int]:
    return [draw(st.sampled_from(DIMS)) for _ in range(rank)]


@st.composite
def relax_graphs(draw: Any, bias: GraphBias = GraphBias()) -> GraphSpec:
    ops = op_registry()
    dtype = "float16" if chance(draw, bias.float16) else "float32"
    names = [n for n, o in sorted(ops.items()) if bias.weight(n) > 0 and (dtype == "float32" or o.float16)
             and "ir-node" not in o.tags]
    # Weighted choice as a sampled_from over repeated names: Hypothesis shrinks an index into a
    # list far better than a float threshold (it tries each earlier name in turn).
    menu = [n for n in names for _ in range(max(1, round(2 * bias.weight(n))))]
    choose_op = st.sampled_from(menu)
    ctx = DrawContext(draw, dtype, symbolic_ok=True, const_bias=bias.const_bias, limit=SAFE_MAGNITUDE[dtype])

    rank = draw(st.sampled_from(bias.first_ranks))
    shape: list[Any] = _dims(draw, rank)
    if rank == 4 and chance(draw, bias.square):
        shape[3] = shape[2]
    sym_sizes: dict[str, int] = {}
    if rank and chance(draw, bias.symbolic):
        shape[0] = "n"
        sym_sizes["n"] = draw(st.sampled_from((1, 2, 3, 5, 7)))
    scale = draw(st.sampled_from((1.0, 1.0, 0.01, 10.0, 100.0)))
    special = bias.allow_special and draw(st.booleans())
    ctx.fresh(tuple(shape), -scale, scale, const=False, style="special" if special else None)
    if bias.prefer_const:
        ctx.fresh(tuple(d if isinstance(d, int) else 1 for d in shape), -scale, scale, const=True)

    nodes: list[tuple[str, Drawn]] = []
    n_nodes = draw(st.integers(bias.min_nodes, bias.max_nodes))
    limit = SAFE_MAGNITUDE[dtype]
    attempts = 0
    while len(nodes) < n_nodes and attempts < 4 * n_nodes + 8:
        attempts += 1
        name = draw(choose_op)
        op = ops[name]
        const_first = chance(draw, bias.prefer_const)

        def ok(v: ValueInfo, op: Any = op, const_first: bool = const_first) -> bool:
            return (op.symbolic or v.static) and (v.const_only or not const_first)

        first = _pick_first(ctx, ok, "empty-ok" in op.tags)
        if first is None:
            continue
        drawn = op.draw(ctx, first)
        if drawn is None or not finite_interval(drawn.lo, drawn.hi, limit) \
                or not all(ctx.fits(s) for s in (drawn.parts or (drawn.shape,))):
            continue
        if not op.symbolic and any(not ctx.info(a).static for a in drawn.args):
            continue
        _add_node(ctx, nodes, name, drawn)
        if drawn.parts is not None:
            _take_parts(ctx, nodes, ops["tuple_get_item"], len(nodes) - 1)
    if not nodes:
        # Every op refused (tiny draws); fall back to something always valid.
        first = ctx.values[0]
        drawn = ops["relu"].draw(ctx, first)
        assert drawn is not None
        _add_node(ctx, nodes, "relu", drawn)

    n_in = len(ctx.inputs)

    def renum(vid: int) -> int:
        return -1 - vid if vid < 0 else n_in + vid

    spec_nodes = tuple(
        Node(name, tuple(renum(a) for a in d.args), attrs_key(d.attrs), tuple(d.shape),
             ctx.info(i).dtype, d.parts)
        for i, (name, d) in enumerate(nodes)
    )
    consumed = {a for n in spec_nodes for a in n.args}
    outputs = [n_in + i for i in range(len(spec_nodes)) if n_in + i not in consumed]
    if len(spec_nodes) > 1 and draw(st.integers(0, 4)) == 0:
        extra_out = n_in + draw(st.integers(0, len(spec_nodes) - 1))
        if extra_out not in outputs and spec_nodes[extra_out - n_in].parts is None:
            outputs.insert(0, extra_out)
    extras = tuple((k, draw(s)) for k, s in bias.extra)
    seed = draw(st.integers(0, 2**16))
    inputs: tuple[TensorDecl, ...] = tuple(ctx.inputs)
    return GraphSpec(inputs, spec_nodes, tuple(outputs), tuple(sorted(sym_sizes.items())), seed, True, extras)


def _add_node(ctx: DrawContext, nodes: list[tuple[str, Drawn]], name: str, drawn: Drawn) -> None:
    """Append a node and its value (a tuple value when ``drawn.parts`` is set)."""
    vid = len(nodes)
    nodes.append((name, drawn))
    const_only = all(ctx.info(a).const_only for a in drawn.args)
    dtype = drawn.dtype or (ctx.info(drawn.args[0]).dtype if drawn.args else ctx.dtype)
    ctx.values.append(ValueInfo(vid, tuple(drawn.shape), dtype, drawn.lo, drawn.hi, const_only, drawn.parts))


def _take_parts(ctx: DrawContext, nodes: list[tuple[str, Drawn]], getitem: Any, vid: int) -> None:
    """TupleGetItems of a drawn subset of the tuple's parts (at least one: a tuple nobody reads
    would be the function's output, which the reference compares only for tensors)."""
    tup = ctx.info(vid)
    assert tup.parts is not None
    n = len(tup.parts)
    picked = ctx.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    for i in picked:
        drawn = getitem.draw(ctx, tup, index=i)
        _add_node(ctx, nodes, "tuple_get_item", drawn)


def _pick_first(ctx: DrawContext, ok: Any, empty_ok: bool) -> ValueInfo | None:
    """The op's first operand; a zero-size value only for an op whose reference takes one."""
    if empty_ok and chance(ctx.draw, 0.5):
        found = [v for v in ctx.values if v.empty and v.parts is None and v.dtype == ctx.dtype and ok(v)]
        if found:
            return found[ctx.draw(st.integers(0, len(found) - 1))]
    return ctx.pick(ok)
