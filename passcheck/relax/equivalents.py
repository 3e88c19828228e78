"""The algebra a pass applies by design, as a rewrite of the drawn graph: the reference allows
the rounding of both forms.

A pass that rewrites ``x @ (a + b)`` into ``x @ a + x @ b`` (ExpandMatmulOfSum) computes the same
value with other roundings: where ``a`` and ``b`` nearly cancel, the expanded form's error is
about ``u |x| (|a| + |b|)``, far above the bound derived for the input's ``u |x| |a + b|``. Such a
pass declares its rewrite next to it (``PassNeeds.equivalent``): the graph as the pass means to
compute it, whose reference bound counts too (elementwise, the larger of the two; the values are
the input's). A rewrite that finds nothing returns None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from passcheck.relax.spec import GraphSpec, Node


def _rewritten(graph: GraphSpec, rewrite: Callable[[Node, Node, dict[int, int], int], tuple[list[Node], Node] | None]
               ) -> GraphSpec | None:
    """``graph`` with each node as ``rewrite(drawn, node, moved, next_id)`` gives it: the nodes to
    insert before it and the node itself, or None to keep it (``node`` is ``drawn`` with its
    arguments renumbered; ``moved`` maps the drawn graph's value ids to the new ones; ``next_id`` is
    the id the first inserted node gets). None where nothing was rewritten."""
    n_in = len(graph.inputs)
    nodes: list[Node] = []
    moved: dict[int, int] = {i: i for i in range(n_in)}  # old value id -> new
    changed = False
    for j, drawn in enumerate(graph.nodes):
        node = replace(drawn, args=tuple(moved[a] for a in drawn.args))
        out = rewrite(drawn, node, moved, n_in + len(nodes))
        if out is not None:
            inserted, node = out
            nodes += inserted
            changed = True
        moved[n_in + j] = n_in + len(nodes)
        nodes.append(node)
    if not changed:
        return None
    return replace(graph, nodes=tuple(nodes), outputs=tuple(moved[o] for o in graph.outputs))


def expand_matmul_of_sum(graph: GraphSpec) -> GraphSpec | None:
    """Every ``matmul(x, add(a, b))`` (whose terms have the sum's shape) as ``add(matmul(x, a),
    matmul(x, b))``, the sum kept for whatever else reads it (the pass expands it all the same)."""
    n_in = len(graph.inputs)

    def expand(drawn: Node, node: Node, moved: dict[int, int], first: int) -> tuple[list[Node], Node] | None:
        s = drawn.args[1] if drawn.op == "matmul" and len(drawn.args) == 2 else -1  # (the drawn graph's ids)
        add = graph.nodes[s - n_in] if s >= n_in else None
        if add is None or add.op != "add" or not all(
                graph.value_shape(t) == add.shape and graph.value_dtype(t) == add.dtype for t in add.args):
            return None
        x = node.args[0]
        return ([replace(node, args=(x, moved[add.args[0]])), replace(node, args=(x, moved[add.args[1]]))],
                Node("add", (first, first + 1), (), node.shape, node.dtype))

    return _rewritten(graph, expand)


def reassociate_matmuls(graph: GraphSpec) -> GraphSpec | None:
    """Every ``matmul(matmul(a, b), c)`` as ``matmul(a, matmul(b, c))`` and every
    ``matmul(a, matmul(b, c))`` as ``matmul(matmul(a, b), c)`` (AdjustMatmulOrder moves a chain
    either way: what is cheaper, or what keeps a product of weights computable at compile time).
    The other order rounds its own intermediate product: in float16 a product of two small weights
    is subnormal, its rounding is absolute, and the third operand scales it. Chains with a symbolic
    extent are left as they are (the intermediate's shape is not drawn)."""
    n_in = len(graph.inputs)

    def reassociate(drawn: Node, node: Node, moved: dict[int, int], new_id: int) -> tuple[list[Node], Node] | None:
        inner_at = next((k for k, a in enumerate(drawn.args) if a >= n_in and graph.nodes[a - n_in].op == "matmul"
                         and len(graph.nodes[a - n_in].args) == 2), None) if drawn.op == "matmul" else None
        if inner_at is None or len(drawn.args) != 2:
            return None
        inner = graph.nodes[drawn.args[inner_at] - n_in]
        a, b, c = (*inner.args, drawn.args[1]) if inner_at == 0 else (drawn.args[0], *inner.args)
        # (a @ b) @ c -> a @ (b @ c), or a @ (b @ c) -> (a @ b) @ c: the new inner product first
        first, second = (b, c) if inner_at == 0 else (a, b)
        shape = _matmul_shape(graph.value_shape(first), graph.value_shape(second))
        outer = None if shape is None else _matmul_shape(
            *((graph.value_shape(a), shape) if inner_at == 0 else (shape, graph.value_shape(c))))
        if outer != tuple(drawn.shape):
            return None
        return ([Node("matmul", (moved[first], moved[second]), inner.attrs, shape, inner.dtype)],
                replace(drawn, args=(moved[a], new_id) if inner_at == 0 else (new_id, moved[c])))

    return _rewritten(graph, reassociate)


def _matmul_shape(x: tuple[Any, ...], y: tuple[Any, ...]) -> tuple[int, ...] | None:
    """NumPy's matmul shape of static shapes (None where an extent is symbolic or they do not multiply)."""
    if not all(isinstance(d, int) for d in (*x, *y)):
        return None
    try:
        return tuple(int(d) for d in np.matmul(np.empty(x, np.int8), np.empty(y, np.int8)).shape)
    except ValueError:
        return None
