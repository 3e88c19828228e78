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

from passcheck.core.rounding import INT_RANGE
from passcheck.relax.ops.base import (
    SAFE_MAGNITUDE,
    DrawContext,
    Drawn,
    ValueInfo,
    attrs_key,
    chance,
    finite_interval,
    op_registry,
    value_limit,
)
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

DIMS = (1, 2, 3, 4, 5, 6, 7, 8, 11, 13)  # primes and 1s on purpose
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
    symbolic: float = 0.15  # chance the first input has a symbolic leading dim
    float16: float = 0.0  # chance the graph is float16 (only ops that support it)
    other_dtypes: float = 0.1  # chance the first input has one of OTHER_DTYPES
    dtypes: tuple[str, ...] = ()  # the first input's dtype is drawn among these, when given
    first_ranks: tuple[int, ...] = (1, 2, 3, 4)
    allow_special: bool = False  # NaN/Inf input values
    square: float = 0.0  # chance a rank-4 first input has H == W (layout bugs that swap H and W)
    extra: tuple[tuple[str, Any], ...] = field(default=())  # strategies for pass-specific extras

    def weight(self, op: str) -> float:
        return dict(self.op_weights).get(op, 1.0)


def _dims(draw: Any, rank: int) -> list[int]:
    return [draw(st.sampled_from(DIMS)) for _ in range(rank)]


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


@st.composite
def relax_graphs(draw: Any, bias: GraphBias = GraphBias()) -> GraphSpec:
    ops = op_registry()
    dtype = "float16" if chance(draw, bias.float16) else "float32"
    if bias.dtypes:
        dtype = draw(st.sampled_from(bias.dtypes))
    elif chance(draw, bias.other_dtypes):
        dtype = draw(st.sampled_from(OTHER_DTYPES))
    # ops of the first input's dtype, and those declaring their dtypes (other dtypes than the
    # first input's come from astype and comparisons)
    names = [n for n, o in sorted(ops.items()) if bias.weight(n) > 0 and (o.accepts(dtype) or o.dtypes)]
    # Weighted choice as a sampled_from over repeated names: Hypothesis shrinks an index into a
    # list far better than a float threshold (it tries each earlier name in turn).
    menu = [n for n in names for _ in range(max(1, round(2 * bias.weight(n))))]
    choose_op = st.sampled_from(menu)
    ctx = DrawContext(draw, dtype, symbolic_ok=True, const_bias=bias.const_bias,
                      limit=SAFE_MAGNITUDE.get(dtype, SAFE_MAGNITUDE["float32"]))

    rank = draw(st.sampled_from(bias.first_ranks))
    shape: list[Any] = _dims(draw, rank)
    if rank == 4 and chance(draw, bias.square):
        shape[3] = shape[2]
    sym_sizes: dict[str, int] = {}
    if rank and chance(draw, bias.symbolic):
        shape[0] = "n"
        sym_sizes["n"] = draw(st.sampled_from((1, 2, 3, 5, 7)))
    lo, hi = _first_interval(draw, dtype)
    special = bias.allow_special and dtype not in INT_RANGE and draw(st.booleans())
    ctx.fresh(tuple(shape), lo, hi, const=False, style="special" if special else None)
    if bias.prefer_const:
        ctx.fresh(tuple(d if isinstance(d, int) else 1 for d in shape), lo, hi, const=True)

    nodes: list[tuple[str, str, Drawn]] = []
    n_nodes = draw(st.integers(bias.min_nodes, bias.max_nodes))
    attempts = 0
    while len(nodes) < n_nodes and attempts < 4 * n_nodes + 8:
        attempts += 1
        name = draw(choose_op)
        op = ops[name]
        const_first = chance(draw, bias.prefer_const)

        def ok(v: ValueInfo, op: Any = op, const_first: bool = const_first) -> bool:
            return (op.symbolic or v.static) and (v.const_only or not const_first) and op.accepts(v.dtype)

        first = ctx.pick(ok)
        if first is None:
            continue
        drawn = _draw_for(ctx, op, first)
        if drawn is None:
            continue
        out_dtype = drawn.dtype or ctx.info(drawn.args[0]).dtype
        if not finite_interval(drawn.lo, drawn.hi, value_limit(ctx, out_dtype)) or not ctx.fits(drawn.shape):
            continue
        if not op.symbolic and any(not ctx.info(a).static for a in drawn.args):
            continue
        vid = len(nodes)
        nodes.append((name, out_dtype, drawn))
        const_only = all(ctx.info(a).const_only for a in drawn.args)
        ctx.values.append(ValueInfo(vid, tuple(drawn.shape), out_dtype, drawn.lo, drawn.hi, const_only))
    if not nodes:
        # Every op refused (tiny draws); fall back to something always valid for the dtype.
        first = ctx.values[0]
        name = next(n for n in ("relu", "abs", "bitwise_not") if ops[n].accepts(first.dtype))
        drawn = ops[name].draw(ctx, first)
        assert drawn is not None
        nodes.append((name, first.dtype, drawn))
        ctx.values.append(ValueInfo(0, tuple(drawn.shape), first.dtype, drawn.lo, drawn.hi, False))

    n_in = len(ctx.inputs)

    def renum(vid: int) -> int:
        return -1 - vid if vid < 0 else n_in + vid

    spec_nodes = tuple(
        Node(name, tuple(renum(a) for a in d.args), attrs_key(d.attrs), tuple(d.shape), out_dtype)
        for name, out_dtype, d in nodes
    )
    consumed = {a for n in spec_nodes for a in n.args}
    outputs = [n_in + i for i in range(len(spec_nodes)) if n_in + i not in consumed]
    if len(spec_nodes) > 1 and draw(st.integers(0, 4)) == 0:
        extra_out = n_in + draw(st.integers(0, len(spec_nodes) - 1))
        if extra_out not in outputs:
            outputs.insert(0, extra_out)
    extras = tuple((k, draw(s)) for k, s in bias.extra)
    seed = draw(st.integers(0, 2**16))
    inputs: tuple[TensorDecl, ...] = tuple(ctx.inputs)
    return GraphSpec(inputs, spec_nodes, tuple(outputs), tuple(sorted(sym_sizes.items())), seed, True, extras)


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
