"""The plain data of a Relax *program*: a drawn graph (``GraphSpec``: the computation) and how its
nodes are laid out in Relax functions and control flow (``Region``s), the conditions of its
branches (``Cond``) and which parameters are weights (``num_input``).

A region is a consecutive range of the graph's nodes emitted in a *form* (``forms.py``: a
private or public helper function called from its caller, a local closure, an ``R.If`` whose
else-branch also negates the values it returns, a ``call_tir`` to the op's legalized PrimFunc, a
copy through ``call_dps_packed``); regions nest. The graph keeps its float64 reference: a form
changes where a value is computed, not what, except a branch's else, which the reference
follows (``reference.py``). Everything here is plain frozen data (ints, strs, tuples, nested
dataclasses): it prints as a repro and serialises as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

from passcheck.core.data import plain_data
from passcheck.relax.spec import GraphSpec

Options = tuple[tuple[str, object], ...]


@plain_data("relax.Cond")
@dataclass(frozen=True)
class Cond:
    """A branch condition: a parameter of ``main`` whose value each run sets so that both branches run.

    ``kind``: ``tensor`` (``R.Tensor((), "bool")``), ``prim`` (``R.Prim("bool")``), ``shape``
    (``R.Shape([p])``, the condition ``p > threshold``, compared in ``dtype``: int64, or int32 through a
    cast), ``tensor_to_shape`` (an int64 tensor of one element made a shape by ``R.tensor_to_shape``
    and ``match_cast``, the condition ``p > threshold``)."""

    kind: str
    threshold: int = 0
    dtype: str = "int64"


@plain_data("relax.Region")
@dataclass(frozen=True)
class Region:
    """Graph nodes ``start .. stop - 1`` emitted in ``form`` (inner regions nest inside, disjoint, in order)."""

    start: int
    stop: int
    form: str
    name: str = ""
    options: Options = ()
    inner: tuple[Region, ...] = ()

    @property
    def option(self) -> dict[str, object]:
        return dict(self.options)


@plain_data("relax.ProgramSpec")
@dataclass(frozen=True)
class ProgramSpec:
    graph: GraphSpec
    regions: tuple[Region, ...] = ()  # main's top-level regions (disjoint, in order)
    conds: tuple[Cond, ...] = ()  # the conditions branch regions name by index
    # how many of main's parameters are inputs (num_input); the graph inputs listed in ``weights``
    # are parameters after them (what LiftTransformParams lifts); None: no num_input attribute
    num_input: int | None = None
    weights: tuple[int, ...] = ()
    options: Options = field(default=())  # program-wide: dataflow, aliases, dead, duplicate, vdevice

    @property
    def option(self) -> dict[str, object]:
        return dict(self.options)

    def runs(self) -> list[tuple[bool, ...]]:
        """One truth value per condition, for each run: every combination, so every branch runs."""
        return list(product((True, False), repeat=len(self.conds)))

    def all_regions(self) -> list[Region]:
        out: list[Region] = []

        def walk(rs: tuple[Region, ...]) -> None:
            for r in rs:
                out.append(r)
                walk(r.inner)
        walk(self.regions)
        return out


def node_id(graph: GraphSpec, j: int) -> int:
    """The value id of node ``j``."""
    return len(graph.inputs) + j


def consumers(graph: GraphSpec) -> dict[int, set[int]]:
    """Value id -> the nodes (indexes) reading it."""
    out: dict[int, set[int]] = {}
    for j, node in enumerate(graph.nodes):
        for a in node.args:
            out.setdefault(a, set()).add(j)
    return out


def region_inputs(graph: GraphSpec, start: int, stop: int) -> list[int]:
    """Non-constant values the nodes ``start .. stop - 1`` read from outside, in first-use order."""
    first = node_id(graph, start)
    out: list[int] = []
    for node in graph.nodes[start:stop]:
        for a in node.args:
            if a < first and a not in out and not (a < len(graph.inputs) and graph.inputs[a].const):
                out.append(a)
    return out


def region_outputs(graph: GraphSpec, start: int, stop: int) -> list[int]:
    """Values of the nodes ``start .. stop - 1`` read after them or returned, in order."""
    used = consumers(graph)
    outs = set(graph.outputs)
    return [node_id(graph, j) for j in range(start, stop)
            if node_id(graph, j) in outs or any(c >= stop for c in used.get(node_id(graph, j), ()))]


def closed(graph: GraphSpec, start: int, stop: int) -> bool:
    """No node after the range reads a value of it (its values only leave as the graph's outputs)."""
    return not any(c >= stop for j in range(start, stop) for c in consumers(graph).get(node_id(graph, j), ()))


def inplace_ok(graph: GraphSpec, j: int, scope: int = 0) -> bool:
    """Node ``j`` may overwrite its first operand: an elementwise op whose first operand has its type,
    is computed by an earlier node of its own function (whose first node is ``scope``), and is read
    by nothing else. Never a parameter: a function that writes into its caller's tensor changes what
    the caller computes after it (a helper called twice reads its own write; DataflowUseInplaceCalls
    never does it)."""
    from passcheck.relax.ops.base import op_registry

    node = graph.nodes[j]
    if not node.args or op_registry()[node.op].pattern not in ("elemwise", "broadcast"):
        return False
    a = node.args[0]
    return (a >= node_id(graph, scope) and not graph.is_tuple(a) and graph.value_shape(a) == node.shape
            and graph.value_dtype(a) == node.dtype and consumers(graph).get(a) == {j}
            and a not in graph.outputs and node.args.count(a) == 1 and node_id(graph, j) > a)


def inplace_valid(prog: ProgramSpec) -> bool:
    """Every in-place call of ``prog`` writes into a value its own function computed (``inplace_ok``)."""
    def walk(regions: tuple[Region, ...], scope: int) -> bool:
        return all((not (r.form == "tir" and r.option.get("inplace")) or inplace_ok(prog.graph, r.start, scope))
                   and walk(r.inner, r.start if r.form in ("function", "closure") else scope) for r in regions)
    return walk(prog.regions, 0)
