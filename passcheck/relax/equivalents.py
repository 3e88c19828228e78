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

from dataclasses import replace

from passcheck.relax.spec import GraphSpec, Node


def expand_matmul_of_sum(graph: GraphSpec) -> GraphSpec | None:
    """Every ``matmul(x, add(a, b))`` (whose terms have the sum's shape) as ``add(matmul(x, a),
    matmul(x, b))``, the sum kept for whatever else reads it (the pass expands it all the same)."""
    n_in = len(graph.inputs)
    nodes: list[Node] = []
    moved: dict[int, int] = {i: i for i in range(n_in)}  # old value id -> new
    changed = False
    for j, drawn in enumerate(graph.nodes):
        args = tuple(moved[a] for a in drawn.args)
        node = replace(drawn, args=args)
        s = drawn.args[1] if drawn.op == "matmul" and len(drawn.args) == 2 else -1  # (the drawn graph's ids)
        add = graph.nodes[s - n_in] if s >= n_in else None
        if (add is not None and add.op == "add"
                and all(graph.value_shape(t) == add.shape and graph.value_dtype(t) == add.dtype for t in add.args)):
            first = n_in + len(nodes)
            nodes += [replace(node, args=(args[0], moved[add.args[0]])), replace(node, args=(args[0], moved[add.args[1]]))]
            node = Node("add", (first, first + 1), (), node.shape, node.dtype)
            changed = True
        moved[n_in + j] = n_in + len(nodes)
        nodes.append(node)
    if not changed:
        return None
    return replace(graph, nodes=tuple(nodes), outputs=tuple(moved[o] for o in graph.outputs))
