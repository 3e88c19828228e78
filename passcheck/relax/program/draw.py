"""Drawing programs: a graph (``relax_graphs`` with the pass's ``GraphBias``), then its layout —
regions of its nodes in the forms a ``StructureBias`` weighs, nested up to a depth, the branches'
conditions, weights after ``num_input``, and program-wide extras (no dataflow blocks, redundant
bindings, dead code, computations done twice). Every draw shrinks towards fewer regions, fewer
extras and the plain graph."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from passcheck.core.rounding import INT_RANGE
from passcheck.relax.graphs import GraphBias, relax_graphs
from passcheck.relax.ops.base import budget_roll, op_registry, open_for
from passcheck.relax.ops.base import chance as _chance
from passcheck.relax.program.spec import (
    Cond,
    ProgramSpec,
    Region,
    closed,
    consumers,
    inplace_ok,
    node_id,
    region_outputs,
)
from passcheck.relax.spec import GraphSpec

# Function names, the usual and those passes generate themselves (a helper named like the
# PrimFunc LegalizeOps makes, like the function LiftTransformParams or LambdaLift adds)
NAMES = ("helper", "f", "add", "relu", "fused_add", "main_inner", "lifted_func_0", "main_transform_params",
         "main1", "transform_params")
COND_KINDS = ("tensor", "prim", "shape", "tensor_to_shape")


@dataclass(frozen=True)
class StructureBias:
    """How a pass's programs are drawn: each form's weight (0: never), how many regions per level
    and how deep, which conditions, and the chances of the program-wide extras."""

    forms: tuple[tuple[str, float], ...] = (("function", 1.0), ("closure", 0.5), ("branch", 1.0), ("tir", 0.5),
                                            ("packed", 0.3))
    regions: int = 2  # at most this many regions per level (0 to this many are drawn)
    depth: int = 2  # regions inside regions, up to this depth
    conds: tuple[str, ...] = COND_KINDS
    private: float = 0.7  # chance a helper function is private
    weights: float = 0.0  # chance constants become weight parameters after num_input
    every_weight: bool = False  # then every constant (else a drawn subset)
    no_dataflow: float = 0.0  # chance the program has no dataflow blocks
    aliases: float = 0.0  # chance of redundant bindings (an alias and a match_cast to its own type)
    dead: float = 0.0  # chance of dead bindings
    duplicate: float = 0.0  # chance of a computation done twice
    nested: float = 0.0  # chance of a call nested in its consumer's arguments (not in normal form)
    vdevice: float = 0.0  # chance of R.hint_on_device annotations (only RealizeVDevice lowers them)
    patterns: bool = False  # draw a FuseOpsByPattern table from the graph's ops (extras["patterns"])
    options: tuple[tuple[str, float], ...] = ()  # per-form options' chances ("inplace", "unused_param", ...)
    weights_only_bug: str = ""  # a kept bug an output computed from weights alone meets: at its budget
    # (else a constant such an output reads is passed as an input: it reads an input and weights)
    lifts_nothing_bug: str = ""  # a kept bug a transform_params that lifts nothing meets: at its budget
    dataflow_bug: str = ""  # a kept bug a dataflow block meets: blocks at its budget (else none)
    # a kept bug of a module the pass uses and TVM forgets to import: at its budget the pass runs as
    # in a fresh process (extras["fresh_process"]: ``needs.PassNeeds.imports``), else after the import
    fresh_process_bug: str = ""
    min_regions: int = 0  # redraw the layout (a few times) until it has this many regions


def chance(draw: Any, p: float) -> bool:
    """True with probability ``p``, always when ``p`` is 1 (a float draw can be 0.0)."""
    return p >= 1.0 or _chance(draw, p)


def relax_programs(bias: GraphBias, structure: StructureBias) -> st.SearchStrategy[ProgramSpec]:
    return relax_graphs(bias).flatmap(lambda g: _programs(g, structure))


@st.composite
def _programs(draw: Any, graph: GraphSpec, sb: StructureBias) -> ProgramSpec:
    conds: list[Cond] = []
    regions = _regions(draw, graph, sb, 0, len(graph.nodes), 0, conds, top=True)
    prog = ProgramSpec(graph, tuple(regions), tuple(conds))
    if chance(draw, sb.weights):
        prog = _with_weights(draw, prog, sb)
    if sb.patterns:
        table = _pattern_table(draw, prog.graph)
        prog = replace(prog, graph=replace(prog.graph, extra=prog.graph.extra + (("patterns", table),)))
    if sb.fresh_process_bug and not _closed(draw, sb.fresh_process_bug):
        prog = replace(prog, graph=replace(prog.graph, extra=prog.graph.extra + (("fresh_process", True),)))
    options: list[tuple[str, object]] = []
    if _closed(draw, sb.dataflow_bug) or chance(draw, sb.no_dataflow):
        options.append(("dataflow", False))
    plain = [j for j in range(len(graph.nodes)) if not _in_region(prog, j)]
    used = consumers(prog.graph)
    # a call nested in its only consumer, the next node (a plain node too)
    top = [j for j in plain if not any(r.start <= j < r.stop for r in prog.regions)]  # (a branch normalizes its body)
    nestable = [j for j in top if j + 1 in top and used.get(node_id(graph, j)) == {j + 1}
                and node_id(graph, j) not in graph.outputs and graph.nodes[j].parts is None
                and "match-cast" not in op_registry()[graph.nodes[j].op].tags]
    for key, p, among in (("aliases", sb.aliases, plain), ("dead", sb.dead, plain), ("duplicate", sb.duplicate, plain),
                          ("nested", sb.nested, nestable), ("vdevice", sb.vdevice, plain)):
        picked = draw(st.lists(st.sampled_from(among), unique=True, min_size=1, max_size=2)) \
            if among and chance(draw, p) else []
        if picked:
            options.append((key, tuple(sorted(picked))))
    return replace(prog, options=tuple(options))


def _with_weights(draw: Any, prog: ProgramSpec, sb: StructureBias) -> ProgramSpec:
    """``prog`` with constants made weights after ``num_input``; where a kept bug's budget is
    closed, no output is computed from weights alone (``weights_only_bug``) and something is
    lifted (``lifts_nothing_bug``)."""
    graph = prog.graph
    made_inputs = _inputs_for_constant_outputs(graph) if _closed(draw, sb.weights_only_bug) else set()
    consts = [i for i, d in enumerate(graph.inputs) if d.const and i not in made_inputs]
    weights = consts if sb.every_weight else \
        draw(st.lists(st.sampled_from(consts), unique=True, min_size=1, max_size=len(consts))) if consts else []
    if _closed(draw, sb.lifts_nothing_bug):
        lifted = _liftable_weights(draw, prog, set(weights), set(consts))
        if lifted is None:
            return prog  # (no weights: nothing LiftTransformParams could lift)
        weights = sorted(set(weights) | lifted)
    inputs = tuple(replace(d, const=False) if i in weights or i in made_inputs else d
                   for i, d in enumerate(graph.inputs))
    return replace(prog, graph=replace(graph, inputs=inputs), num_input=0, weights=tuple(sorted(weights)))


def _closed(draw: Any, bug: str) -> bool:
    """Whether the program's roll keeps the feature that triggers the kept bug ``bug`` out (never
    without a bug named)."""
    return bool(bug) and not open_for(budget_roll(draw), bug)


def _reads(graph: GraphSpec) -> list[set[int]]:
    """The inputs each value is computed from."""
    reads: list[set[int]] = [{i} for i in range(len(graph.inputs))]
    for node in graph.nodes:
        reads.append(set().union(*(reads[a] for a in node.args)) if node.args else set())
    return reads


def _liftable_weights(draw: Any, prog: ProgramSpec, weights: set[int], consts: set[int]) -> set[int] | None:
    """Constants to make weights too so that main computes something from weights alone, which
    LiftTransformParams lifts (nothing where one is already; None where no computation can be)."""
    graph, n_in = prog.graph, len(prog.graph.inputs)
    reads = _reads(graph)
    top = [j for j in range(len(graph.nodes)) if not any(r.start <= j < r.stop for r in prog.regions)
           and node_id(graph, j) not in graph.outputs and reads[n_in + j] and reads[n_in + j] <= consts]
    if any(reads[n_in + j] & weights for j in top):  # (a computation on constants, a weight among them)
        return set()
    if not top:
        return None
    return reads[n_in + draw(st.sampled_from(top))]


def _inputs_for_constant_outputs(graph: GraphSpec) -> set[int]:
    """Constants to pass as inputs so that no output is computed from constants alone: one of
    each such output's (made weights, it would be computed from weights alone)."""
    reads = _reads(graph)
    made: set[int] = set()
    for o in graph.outputs:
        if reads[o] and all(graph.inputs[i].const and i not in made for i in reads[o]):
            made.add(min(reads[o]))
    return made


def _pattern_table(draw: Any, graph: GraphSpec) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A FuseOpsByPattern table naming ops of the graph: each entry one op, or a producer and the op
    its value feeds as first operand; and now and then an entry nothing matches."""
    from passcheck.relax.pattern_tables import BACKENDS, PATTERN_OPS

    known, n_in = dict(PATTERN_OPS), len(graph.inputs)
    chains = []
    for node in graph.nodes:
        if node.op in known:
            chains.append((node.op,))
            first = node.args[0] if node.args else -1
            if first >= n_in and graph.nodes[first - n_in].op in known:
                chains.append((graph.nodes[first - n_in].op, node.op))
    chains.append((draw(st.sampled_from(sorted(known))),))
    picked = draw(st.lists(st.sampled_from(sorted(set(chains))), min_size=1, max_size=3, unique=True))
    return tuple((draw(st.sampled_from(BACKENDS)), chain) for chain in picked)


def _in_region(prog: ProgramSpec, j: int) -> bool:
    """Node ``j`` is emitted by a form of its own (tir, packed)."""
    return any(r.start <= j < r.stop and r.form in ("tir", "packed") for r in prog.all_regions())


def _menu(sb: StructureBias, depth: int) -> list[str]:
    names = [f for f, w in sb.forms for _ in range(max(0, round(2 * w)))]
    return names if depth < sb.depth else [f for f in names if f in ("tir", "packed")]


def _regions(draw: Any, graph: GraphSpec, sb: StructureBias, a: int, b: int, depth: int, conds: list[Cond],
             top: bool = False, scope: int = 0) -> list[Region]:
    menu = _menu(sb, depth)
    if not menu or a >= b:
        return []
    lo = min(sb.min_regions, sb.regions) if top else 0
    count = draw(st.integers(lo, sb.regions))
    out: list[Region] = []
    pos = a
    for _ in range(count):
        if pos >= b:
            break
        form = draw(st.sampled_from(menu))
        start = draw(st.integers(pos, b - 1))
        stop = start + 1 if form in ("tir", "packed") else draw(st.integers(start + 1, b))
        region = _region(draw, graph, sb, form, start, stop, depth, conds, scope)
        if region is not None:
            out.append(region)
            pos = stop
    return out


def _region(draw: Any, graph: GraphSpec, sb: StructureBias, form: str, start: int, stop: int, depth: int,
            conds: list[Cond], scope: int = 0) -> Region | None:
    """A region of ``form`` over nodes ``start .. stop - 1``, inside the function whose first node is
    ``scope`` (what it computes itself; values from before are its parameters)."""
    opts: list[tuple[str, object]] = []
    node = graph.nodes[start]
    if form in ("tir", "packed") and (node.parts is not None or {"ir-node", "match-cast"} & op_registry()[node.op].tags):
        return None  # a tuple, an IR node (TupleGetItem) or a data-dependent op: emitted as it is
    if form == "tir" and inplace_ok(graph, start, scope) and chance(draw, dict(sb.options).get("inplace", 0.3)):
        opts.append(("inplace", True))
    if form == "branch":
        if not closed(graph, start, stop):
            return None
        k = _cond(draw, sb, conds)
        tails = _tails(draw, graph, start, stop)
        opts += [("cond", k), ("tails", tails)]
    name = ""
    if form in ("function", "closure"):
        name = draw(st.sampled_from(NAMES))
        for key in ("unused_param", "unused_output", "tuple_param", "capture", "shared"):
            if chance(draw, dict(sb.options).get(key, 0.15)):
                opts.append((key, True))
        if form == "function" and not chance(draw, sb.private):
            opts.append(("private", False))
            # a global_symbol other than its name: not well-formed until NormalizeGlobalVar (only its programs)
            if chance(draw, dict(sb.options).get("symbol", 0.0)):
                opts.append(("symbol", draw(st.sampled_from([n for n in NAMES if n != name]))))
    inner = tuple(_regions(draw, graph, sb, start, stop, depth + 1, conds,
                           scope=start if form in ("function", "closure") else scope)) \
        if form in ("function", "closure", "branch") else ()
    return Region(start, stop, form, name, tuple(opts), inner)


def _cond(draw: Any, sb: StructureBias, conds: list[Cond]) -> int:
    if conds and (len(conds) >= 2 or draw(st.booleans())):
        return draw(st.integers(0, len(conds) - 1))
    kind = draw(st.sampled_from(sb.conds))
    conds.append(Cond(kind, draw(st.integers(0, 4)), draw(st.sampled_from(("int64", "int32")))))
    return len(conds) - 1


def _tail_op(dtype: str) -> str | None:
    if dtype == "bool":
        return "logical_not"
    if dtype == "uint8":
        return "bitwise_not"
    return "negative" if dtype in INT_RANGE or dtype.startswith(("float", "bfloat")) else None


def _tails(draw: Any, graph: GraphSpec, start: int, stop: int) -> tuple[tuple[int, str], ...]:
    """The else-branch's tail on each of a subset (non-empty where it can be) of the region's results."""
    ops = op_registry()
    able = [(v, op) for v in region_outputs(graph, start, stop) if not graph.is_tuple(v)
            for op in [_tail_op(graph.value_dtype(v))] if op is not None and ops[op].accepts(graph.value_dtype(v))]
    if not able:
        return ()
    picked = draw(st.lists(st.sampled_from(range(len(able))), unique=True, min_size=1, max_size=len(able)))
    return tuple(able[i] for i in sorted(picked))
