"""TVM 0.27 bug test_split_index_past_end_legalize (test_split_index_past_end_legalize.py, which
holds its repro and note), recognised through the consumers of TOPI's unclamped part that campaigns
met after that file's (a concat, a planned branch, an attention's query, a binary op re-typed in
LegalizeOps): each consumer's words, as the real engine reports them, are the bug's.
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.relax.program.spec import Cond, ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# part 0 of [2] on axis 0 of a (1, 1, 1) constant, concatenated with a (1, 1, 1) along axis 1: Relax
# types the part (1, 1, 1), TOPI makes it (2, 1, 1) and tvm.compile refuses the concat (BundleModelParams,
# seed 2612); and part 0 of [6] on 5 elements inside a branch: StaticPlanBlockMemory, a prerequisite
# of ComputePrimValue, refuses the negative part's storage (seed 2612)
INTO_CONCAT = ProgramSpec(GraphSpec(
    inputs=(TensorDecl("c1", (1, 1, 1), "float32", True), TensorDecl("p3", (1, 1, 1), "float32", False, lo=0.0, hi=1.0)),
    nodes=(Node("split", (0,), (("axis", 0), ("sections", (2,))), (), "float32", parts=((1, 1, 1), (0, 1, 1))),
           Node("tuple_get_item", (2,), (("index", 0),), (1, 1, 1), "float32"),
           Node("concat", (3, 1), (("axis", 1),), (1, 2, 1), "float32")),
    outputs=(4,)))
IN_A_BRANCH = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", (5,), "float32", False),),
              nodes=(Node("split", (0,), (("axis", 0), ("sections", (6,))), (), "float32", parts=((5,), (0,))),
                     Node("tuple_get_item", (1,), (("index", 0),), (5,), "float32")),
              outputs=(2,)),
    regions=(Region(0, 2, "branch", options=(("cond", 0), ("tails", ()))),), conds=(Cond("shape"),))


def test_a_concat_of_the_part_and_a_planned_branch() -> None:
    message = assert_recognised("BundleModelParams", "semantics_preserved", INTO_CONCAT,
                                "test_split_index_past_end_legalize")
    assert "Concat expects the input tensors to have the same shape" in message
    message = assert_recognised("ComputePrimValue", "pass_does_not_raise", IN_A_BRANCH,
                                "test_split_index_past_end_legalize")
    assert "available_size >= 0" in message


# part 0 of [9] on 8 heads, the query of an attention: TOPI's part has 9 heads against the key's 8
# (EliminateCommonSubexpr, seed 2612)
INTO_ATTENTION = GraphSpec(
    inputs=tuple(TensorDecl(f"p{i}", (1, 1, 8, 1), "float32", False) for i in range(3)),
    nodes=(Node("split", (0,), (("axis", 2), ("sections", (9,))), (), "float32", parts=((1, 1, 8, 1), (1, 1, 0, 1))),
           Node("tuple_get_item", (3,), (("index", 0),), (1, 1, 8, 1), "float32"),
           Node("attention", (4, 1, 2), (("causal_mask", None), ("scale", None)), (1, 1, 8, 1), "float32")),
    outputs=(5,))


def test_the_query_of_an_attention() -> None:
    message = assert_recognised("EliminateCommonSubexpr", "semantics_preserved", INTO_ATTENTION,
                                "test_split_index_past_end_legalize")
    assert "query number of heads should be a multiple of key number of heads" in message


# part 0 of [10] on 9 elements, read by an atan2 with a (9,) operand: LegalizeOps re-types the atan2
# on TOPI's (10,) part and refuses it, "not broadcastable" (StaticPlanBlockMemory's prerequisites,
# seed 30089)
INTO_ATAN2 = GraphSpec(
    inputs=(TensorDecl("p1", (9,), "float32", False),),
    nodes=(Node("arange", (), (("dtype", "float32"), ("end", 9.0), ("start", 0.0), ("step", 1.0)), (9,), "float32"),
           Node("split", (1,), (("axis", 0), ("sections", (10,))), (), "float32", parts=((9,), (0,))),
           Node("tuple_get_item", (2,), (("index", 0),), (9,), "float32"),
           Node("atan2", (3, 0), (), (9,), "float32")),
    outputs=(4,))


def test_a_binary_consumer_retyped_in_legalize_ops() -> None:
    message = assert_recognised("StaticPlanBlockMemory", "pass_does_not_raise", INTO_ATAN2,
                                "test_split_index_past_end_legalize")
    assert "which are not broadcastable" in message
