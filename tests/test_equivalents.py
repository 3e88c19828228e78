"""The algebra a pass applies by design widens the reference's bound by its own rounding, and no
further: ExpandMatmulOfSum's ``x @ (a + b)`` -> ``x @ a + x @ b`` where ``a`` and ``b`` nearly
cancel was a wrong-numbers false alarm (10 of 500 examples, seed 36: |diff| 8.3e-9 against an
allowed 3.0e-9 derived from the input's formula); a result that drops a term is still one. And
AdjustMatmulOrder's reassociation of a matmul chain: in float16, ``p0 @ (c1 @ c2)`` of two small
weights rounds a subnormal product (seed 2612: |diff| 2.74e-6 against an allowed 1.56e-6)."""

from __future__ import annotations

import numpy as np

from passcheck.core.engine.repro import recheck
from passcheck.core.subject import Options, resolve
from passcheck.relax.equivalents import expand_matmul_of_sum, reassociate_matmuls
from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

F = "float32"
# p0 @ (p1 + p2): the example of the false alarm, as shrunk
GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1), F, False), TensorDecl("p1", (1, 5), F, False, style="narrow"),
            TensorDecl("p2", (1, 5), F, False)),
    nodes=(Node("add", (1, 2), (), (1, 5), F), Node("matmul", (0, 3), (), (1, 5), F)),
    outputs=(4,))


def test_the_rewrite_is_the_pass_s_algebra() -> None:
    expanded = expand_matmul_of_sum(GRAPH)
    assert expanded is not None
    assert [(n.op, n.args) for n in expanded.nodes] == [("add", (1, 2)), ("matmul", (0, 1)), ("matmul", (0, 2)),
                                                        ("add", (4, 5))]
    assert expanded.outputs == (6,)
    # the sum read elsewhere too (returned, or by another matmul): the pass expands it all the same
    also = expand_matmul_of_sum(GraphSpec(GRAPH.inputs, GRAPH.nodes, (3, 4)))
    assert also is not None and also.outputs == (3, 6)
    assert expand_matmul_of_sum(GraphSpec(GRAPH.inputs, GRAPH.nodes[:1], (3,))) is None


def test_cancelling_terms_are_no_false_alarm_and_a_dropped_term_is_caught() -> None:
    assert recheck("ExpandMatmulOfSum", "semantics_preserved", GRAPH) == 0
    case = resolve("ExpandMatmulOfSum").make_case(GRAPH, None, Options())
    ref = case.reference()[0]
    x, a, _ = case.params()
    dropped = x.astype(np.float64) @ a.astype(np.float64)
    from passcheck.relax.tolerance import allowed

    assert np.all(np.abs(dropped - ref.v) > allowed(ref, F))


def test_later_sums_are_found_by_the_drawn_graph_s_ids() -> None:
    """Two matmuls of sums: the second is found although the first's expansion moved every later
    value by two (it was looked up by its new id: IndexError on 264 of 500 examples)."""
    graph = GraphSpec(
        inputs=(*GRAPH.inputs, TensorDecl("p3", (5, 2), F, False), TensorDecl("p4", (5, 2), F, False)),
        nodes=(Node("add", (1, 2), (), (1, 5), F), Node("matmul", (0, 5), (), (1, 5), F),
               Node("add", (3, 4), (), (5, 2), F), Node("matmul", (6, 7), (), (1, 2), F)),
        outputs=(8,))
    expanded = expand_matmul_of_sum(graph)
    assert expanded is not None
    assert [(n.op, n.args) for n in expanded.nodes] == [
        ("add", (1, 2)), ("matmul", (0, 1)), ("matmul", (0, 2)), ("add", (6, 7)),
        ("add", (3, 4)), ("matmul", (8, 3)), ("matmul", (8, 4)), ("add", (10, 11))]
    assert expanded.outputs == (12,)


# (p0 @ c1) @ c2 with c1, c2 weights, float16: the false alarm as shrunk (AdjustMatmulOrder, seed 2612)
H = "float16"
CHAIN = ProgramSpec(GraphSpec(
    inputs=(TensorDecl("p0", (1,), H, False, lo=-100.0, hi=100.0), TensorDecl("c1", (1, 1), H, False, style="wide"),
            TensorDecl("c2", (1, 1), H, False, style="wide")),
    nodes=(Node("matmul", (0, 1), (), (1,), H), Node("matmul", (3, 2), (), (1,), H)),
    outputs=(4,), input_seed=142), num_input=0, weights=(1, 2))


def test_a_matmul_chain_is_reassociated_either_way() -> None:
    g = CHAIN.graph
    left = reassociate_matmuls(g)
    assert left is not None and [(n.op, n.args) for n in left.nodes] == [("matmul", (0, 1)), ("matmul", (1, 2)),
                                                                          ("matmul", (0, 4))]
    assert left.nodes[1].shape == (1, 1) and left.outputs == (5,)
    right = GraphSpec(g.inputs, (Node("matmul", (1, 2), (), (1, 1), H), Node("matmul", (0, 3), (), (1,), H)), (4,))
    other = reassociate_matmuls(right)
    assert other is not None and [(n.op, n.args) for n in other.nodes] == [("matmul", (1, 2)), ("matmul", (0, 1)),
                                                                           ("matmul", (4, 2))]
    assert reassociate_matmuls(GraphSpec(g.inputs, g.nodes[:1], (3,))) is None


def test_a_subnormal_intermediate_is_no_false_alarm() -> None:
    assert recheck("AdjustMatmulOrder", "semantics_preserved", CHAIN) == 0
