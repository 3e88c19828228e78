"""Structural simplifications of a ``GraphSpec``, tried after Hypothesis has shrunk a finding.

Hypothesis shrinks the *draws*; an op in the middle of a graph survives when later draws
refer to it by position. These candidates remove what the draws cannot: an op nobody needs
(a dead end or a surplus output), or an op spliced out by wiring its consumers to an operand
of the same type. Every candidate is a valid spec; the runner keeps one only if it still
fails the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from passcheck.relax.spec import GraphSpec, Node


def simplifications(spec: GraphSpec) -> Iterator[GraphSpec]:
    for cand, _ in mapped_simplifications(spec):
        yield cand


def mapped_simplifications(spec: GraphSpec) -> Iterator[tuple[GraphSpec, dict[int, int]]]:
    """The simplifications, each with where the nodes it kept went (old index -> new index)."""
    n_in, n = len(spec.inputs), len(spec.nodes)
    # splice out node j: consumers read one of its operands of the same type instead
    for j in range(n):
        node = spec.nodes[j]
        if node.parts is not None:
            continue  # its consumers are TupleGetItems: they need a tuple
        for a in node.args:
            if spec.value_shape(a) == node.shape and spec.value_dtype(a) == node.dtype and not spec.is_tuple(a):
                cand = _splice(spec, j, a)
                if cand is not None:
                    yield cand
                break
    # drop one output (when there are several), then whatever only it needed
    if len(spec.outputs) > 1:
        for o in spec.outputs:
            cand = _compact(spec, list(range(n)), [x for x in spec.outputs if x != o])
            if cand is not None:
                yield cand
    # drop a node nobody consumes, unless it is the only output
    consumed = {a for nd in spec.nodes for a in nd.args}
    for j in range(n):
        vid = n_in + j
        if vid not in consumed:
            outs = [o for o in spec.outputs if o != vid]
            if outs:
                cand = _compact(spec, [k for k in range(n) if k != j], outs)
                if cand is not None:
                    yield cand


def _splice(spec: GraphSpec, j: int, source: int) -> tuple[GraphSpec, dict[int, int]] | None:
    n_in = len(spec.inputs)
    vid = n_in + j

    def sub(v: int) -> int:
        return source if v == vid else v

    nodes = list(spec.nodes)
    for k in range(j + 1, len(nodes)):
        nodes[k] = replace(nodes[k], args=tuple(sub(a) for a in nodes[k].args))
    outputs = list(dict.fromkeys(sub(o) for o in spec.outputs))
    if all(o < n_in for o in outputs):
        return None  # the function would compute nothing
    return _compact(replace(spec, nodes=tuple(nodes)), [k for k in range(len(nodes)) if k != j], outputs)


def _compact(spec: GraphSpec, keep: list[int], outputs: list[int]) -> tuple[GraphSpec, dict[int, int]] | None:
    """Keep the listed nodes (and the inputs they use), renumbering value ids; and where each kept
    node went (old index -> new index)."""
    n_in = len(spec.inputs)
    keep_set = set(keep)
    # also drop nodes that become dead (neither consumed by a kept node nor an output)
    changed = True
    while changed:
        changed = False
        used = {a for k in keep_set for a in spec.nodes[k].args} | set(outputs)
        for k in sorted(keep_set):
            if n_in + k not in used:
                keep_set.discard(k)
                changed = True
    if not keep_set or any(o >= n_in and o - n_in not in keep_set for o in outputs):
        return None
    used = {a for k in keep_set for a in spec.nodes[k].args} | set(outputs)
    inputs_kept = [i for i in range(n_in) if i in used]
    if not any(not spec.inputs[i].const for i in inputs_kept) and inputs_kept == []:
        return None
    remap = {old: new for new, old in enumerate(inputs_kept)}
    for new, k in enumerate(sorted(keep_set)):
        remap[n_in + k] = len(inputs_kept) + new
    nodes: list[Node] = [replace(spec.nodes[k], args=tuple(remap[a] for a in spec.nodes[k].args))
                         for k in sorted(keep_set)]
    moved = {k: new for new, k in enumerate(sorted(keep_set))}
    return replace(spec, inputs=tuple(spec.inputs[i] for i in inputs_kept), nodes=tuple(nodes),
                   outputs=tuple(remap[o] for o in outputs)), moved
