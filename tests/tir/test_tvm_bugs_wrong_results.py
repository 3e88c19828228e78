"""TVM 0.27 schedule primitives that make kernels compute wrong values, or run block instances
zero times, twice or outside their domain (equivalent_by_execution, block_instances_*).

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
"""

from __future__ import annotations

import passcheck.properties.tir_generic as G
import passcheck.properties.tir_schedule as S
from known_bug_check import assert_recognised
from tvm_bug_repros import case_of, example_case, known_violation, rca

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.lowering import lower_to_loops
from passcheck.tir.schedule import ScheduleExample, Step

BCAST4 = PrimFuncSpec("broadcast", (4,), (("bdims", (False,)),), "int32", epilogue=True, seed=0)


def test_reverse_compute_at_skips_padding_rows() -> None:
    """`pad` (a consumer of `pre`) moved under `pre`'s row loop computes only the rows that
    depend on `pre`; the zero rows of the padding are never written."""
    spec = PrimFuncSpec("pool", (2, 2, 13, 10), (("op", "avg"), ("kernel", (3, 1)), ("stride", (1, 2)),
                                                ("padding", (1, 0))), "int32", prologue=True, seed=2)
    case = case_of("reverse_compute_at", spec, rca("pad", 2, "pre"))
    assert "80 of 600 instances are never executed" in known_violation(S.block_instances_exactly_once, case)
    # The unwritten rows are read: the marker (or NaN) every allocated buffer starts with.
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)
    # The reverse_compute_at campaign's twin: the padding inlined into the consumer that moves.
    spec = PrimFuncSpec("pad", (8,), (("pads", ((3, 2),)),), "int32", prologue=True, epilogue=True,
                        epilogue_op="clip")
    case = case_of("reverse_compute_at", spec, Step("compute_inline", "pad"), rca("post", 0, "pre"), prefix=1)
    assert "5 of 13 instances are never executed" in known_violation(S.block_instances_exactly_once, case)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # Here the rows never written are the output's own: nothing reads them, so the static
    # read-before-write check has nothing to say.
    G.reads_initialised(case)


def test_reverse_compute_at_under_a_fused_loop_shrinks_the_reduction_window() -> None:
    """max_pool 2x2 moved under the producer's fused (batch, channel) loop: the regenerated
    reduction loops have extent 1, so each window keeps only its first element."""
    spec = PrimFuncSpec("pool", (1, 5, 5, 5), (("op", "max"), ("kernel", (2, 2)), ("stride", (2, 2)),
                                               ("padding", (0, 0))), "int32", prologue=True, seed=2)
    case = case_of("reverse_compute_at", spec, Step("fuse", "pre", (0,), (("count", 2), ("preserve_unit_iters", True))),
                   Step("reverse_compute_at", "pool", (0,), (("target", "pre"), ("preserve_unit_loops", True),
                                                             ("index", -1))), prefix=1)
    assert "60 of 80 instances are never executed" in known_violation(S.block_instances_exactly_once, case)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # unfused, under pre's outer loop (`reverse_compute_at --examples 500`, seed 7): a 3-wide window of
    # stride 3 over 11 columns gets `v_rx = ax1` with ax1 in range(2): one element of each window dropped
    spec = PrimFuncSpec("pool", (1, 1, 1, 11), (("op", "max"), ("kernel", (1, 3)), ("stride", (1, 3)),
                                                ("padding", (0, 0))), "int32", prologue=True)
    ex = ScheduleExample(spec, (Step("reverse_compute_at", "pool", (4,), (("target", "pre"), ("preserve_unit_loops", False),
                                                                          ("index", -2))),))
    assert_recognised("schedule", "block_instances_exactly_once", ex,
                      "test_reverse_compute_at_under_a_fused_loop_shrinks_the_reduction_window", ir="tir")


def test_vectorize_shares_a_compacted_intermediate_between_lanes() -> None:
    case = case_of("vectorize", BCAST4, rca("post", 0, "bcast"), Step("vectorize", "post", (0,)), prefix=1)
    G.bounds_safe_z3(case)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # write_at's copy back placed under the loop that computes the cache: the same compaction
    # (found by `schedule` at seed 0; lowered, the cache is a 1x1 buffer inside the vectorized loop).
    spec = PrimFuncSpec("elementwise", (8, 1), (("depth", 1),), seed=16948)
    case = case_of("vectorize", spec, Step("write_at", "ew0", (0,), (("buffer", 0), ("scope", "global"))),
                   Step("vectorize", "ew0>0", (0,)), prefix=1)
    assert "T.alloc_buffer((1, 1)" in lower_to_loops(case.after).script()
    msg = known_violation(G.equivalent_by_execution, case, "test_vectorize_shares_a_compacted_intermediate_between_lanes")
    assert "computes different values" in msg
    # read_at's copy in a loop vectorized before it, or after (`schedule --examples 800`, seed 41);
    # without the vectorize the kernel is right
    spec = PrimFuncSpec("reduce_beside", (2, 1), (("op", "sum"),), "int64")
    reindex = Step("reindex", "side", (), (("kind", "read"), ("buffer", 2), ("by_name", True)))
    vectorize = Step("vectorize", "side<2", (0,))
    read_at = Step("read_at", "side<2", (0,), (("buffer", 0), ("scope", "local")))
    for steps in ((reindex, vectorize, read_at), (reindex, read_at, vectorize)):
        assert_recognised("schedule", "equivalent_by_execution", ScheduleExample(spec, steps),
                          "test_vectorize_shares_a_compacted_intermediate_between_lanes", ir="tir")
    G.equivalent_by_execution(example_case("schedule", ScheduleExample(spec, (reindex, read_at))))


def test_reindex_write_after_reverse_compute_at_copies_back_too_late() -> None:
    case = case_of("reindex", BCAST4, rca("post", 0, "bcast"),
                   Step("reindex", "bcast", (), (("kind", "write"), ("buffer", 0))), prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)
    # write_at's copy to the output is the consumer inside the nest (`schedule --examples 2000`,
    # seed 5077): the reindexed write's copy back to conv_local comes after the whole nest
    spec = PrimFuncSpec("conv2d", (1, 1, 1, 1), (("out_channels", 4), ("kernel", (1, 3)), ("stride", (3, 1)),
                                                 ("dilation", (1, 1)), ("padding", (1, 2))), "int64")
    case = case_of("schedule", spec, Step("write_at", "conv", (6,), (("buffer", 0), ("scope", "local"))),
                   Step("reindex", "conv", (), (("kind", "write"), ("buffer", 0))))
    assert "reads conv_local" in known_violation(G.reads_initialised, case)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)


def test_reindex_read_after_reverse_compute_at_copies_before_the_producer() -> None:
    """``post`` moved under ``red``'s row loop, then its read of ``red`` reindexed: the copy
    block ``red_reindex`` is put at the root before ``red``'s nest, so it copies the
    intermediate before anything wrote it (found as wrong numbers on an H200 by ``schedule
    --target cuda``: 7 kernels of the first GPU run; the kernel is wrong on the CPU too)."""
    spec = PrimFuncSpec("reduce", (11, 2, 9), (("axes", (0, 2)), ("op", "max")), "int64", epilogue=True,
                        epilogue_op="clip", seed=5)
    case = case_of("reindex", spec, rca("post", 0, "red"), Step("reindex", "post", (), (("kind", "read"), ("buffer", 0))),
                   prefix=1)
    script = case.after.script()
    assert script.index('T.sblock("red_reindex_reindex")') < script.index('T.sblock("red")')
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # the producer a read_at copy inside the consumer's own nest (`schedule --examples 2000`, seed 43)
    ex = ScheduleExample(PrimFuncSpec("reshape", (4, 7, 4), (("out_shape", (7, 16)),), "int32", prologue=True),
                         (Step("read_at", "pre", (2,), (("buffer", 1), ("scope", "local"))),
                          Step("reindex", "pre", (), (("kind", "read"), ("buffer", 0), ("by_name", True)))))
    assert_recognised("schedule", "reads_initialised", ex,
                      "test_reindex_read_after_reverse_compute_at_copies_before_the_producer", ir="tir")


def test_write_at_after_decompose_reduction_leaves_the_init_behind() -> None:
    spec = PrimFuncSpec("matmul", (5, 4), (("n", 3),), "int32", seed=2)
    case = case_of("write_at", spec, Step("decompose_reduction", "matmul", (2,)),
                   Step("write_at", "matmul", (2,), (("buffer", 0), ("scope", "local"))), prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)


def test_cache_write_of_a_blockized_reduction_leaves_the_init_behind() -> None:
    """blockize of the reduction loop, then cache_write of the inner block: the outer block's
    init still zeroes the original buffer, the inner block accumulates into the fresh (never
    initialized) cache, which is copied back."""
    spec = PrimFuncSpec("legalized", (13, 7), (("op", "sum"), ("axes", (1,))), "int64")
    case = case_of("cache_write", spec, Step("blockize", "x_red", (1,), (("preserve_unit_iters", True),)),
                   Step("cache_write", "x_red", (), (("buffer", 0), ("scope", "global"))), prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)


def test_fuse_reduction_epilogue_folds_a_bias_into_a_max_reduction() -> None:
    """The Bias pattern (`out = red + b`) is exact for a sum: the bias becomes the init. For a
    max reduction it is not (max(b, x...) != max(x...) + b), yet the primitive accepts it."""
    spec = PrimFuncSpec("pool", (1, 4, 9, 6), (("op", "max"), ("kernel", (3, 1)), ("stride", (2, 2)),
                                               ("padding", (2, 0))), "int64", epilogue=True, epilogue_op="bias", seed=3)
    case = case_of("fuse_reduction_epilogue", spec, Step("fuse_reduction_epilogue", "pool", (), (("epilogue", "post"),)))
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The same bias on a sum stays exact.
    mm = PrimFuncSpec("matmul", (3, 4), (("n", 2),), "int32", epilogue=True, seed=2, epilogue_op="bias")
    G.equivalent_by_execution(case_of("fuse_reduction_epilogue", mm,
                                      Step("fuse_reduction_epilogue", "matmul", (), (("epilogue", "post"),))))


def test_merge_ignores_producer_consumer_order() -> None:
    """merge of the consumer's outer loop with an earlier producer's puts the consumer first:
    `post` reads `ew1` before the (later) nest that computes it."""
    spec = PrimFuncSpec("elementwise", (3, 3, 8), (("depth", 2),), "int32", epilogue=True)
    case = case_of("merge", spec, Step("merge", "post", (0,), (("other", "ew0"),)))
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)
    # The same merge with ew0 found by reference (ew1's producer), as sequences draw it: the case's
    # output names the blocks the references resolved to (schedule --target cuda, seed 0).
    case = case_of("merge", spec, Step("merge", "post", (0,), (("other", "ew1<0"),)))
    assert "# resolved: merge 'post', loops=[0], other='ew0'" in case.output_script()
    assert "computes different values" in known_violation(G.equivalent_by_execution, case,
                                                          "test_merge_ignores_producer_consumer_order")
    # And through a block an earlier step made: post merged with the cache it reads through
    # (post<0, made by cache_read), which the merged loop fills only after post ran.
    spec = PrimFuncSpec("elementwise", (6,), (("depth", 1),), "int32", epilogue=True)
    case = case_of("merge", spec, Step("cache_read", "post", (), (("buffer", 0), ("scope", "local"))),
                   Step("merge", "post", (0,), (("other", "post<0"),)), prefix=1)
    bug = "test_merge_ignores_producer_consumer_order"
    assert "computes different values" in known_violation(G.equivalent_by_execution, case, bug)
    assert "reads ew0_local" in known_violation(G.reads_initialised, case, bug)
    # in one sequence with the step that made the cache (`schedule --examples 2000`, seed 43)
    ex = ScheduleExample(PrimFuncSpec("reduce", (1, 1), (("axes", (1,)), ("op", "sum")), "int64"), (
        Step("reindex_cache_read", "red", (), (("buffer", 0), ("scope", "global"), ("perm", (1, 0)))),
        Step("merge", "red", (0,), (("other", "red<0"),))))
    assert_recognised("schedule", "reads_initialised", ex, bug, ir="tir")
    # the update merged with its init block (decompose_reduction's red+init; seed 43)
    ex = ScheduleExample(PrimFuncSpec("reduce", (2, 1, 1), (("axes", (1, 2)), ("op", "sum")), "int32", epilogue=True),
                         (Step("sample_partitioned_tile", "red", (3,), (("n", 3), ("pos", 2), ("inner", 2))),
                          Step("decompose_reduction", "red", (5,)), Step("merge", "red", (1,), (("other", "red+init"),))))
    assert_recognised("schedule", "reads_initialised", ex, bug, ir="tir")


def test_merge_of_nests_two_stages_apart_skips_the_stage_between() -> None:
    """The producer-first twin (the 2,000-example merge campaign: 454 wrong-value examples, both
    orders): merging `pad`'s nest with `avg`'s moves `avg` ahead of the `pool` block it reads,
    which now runs after the merged nest; TVM checks no dependence."""
    spec = PrimFuncSpec("pool", (1, 5, 13, 9), (("op", "avg"), ("kernel", (1, 3)), ("stride", (1, 2)),
                                                ("padding", (0, 1))), "int32", prologue=True)
    case = case_of("merge", spec, Step("merge", "pad", (0,), (("other", "avg"),)))
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)
    # rfactor's block merged with a consumer of its write-back (`schedule --examples 2000`, seed
    # 12): `join` moves ahead of the write-back `red` it reads; a made block is in no input module.
    spec = PrimFuncSpec("reduce_beside", (1, 1, 1), (("op", "sum"),), "int32")
    ex = ScheduleExample(spec, (Step("rfactor", "red", (2,), (("factor_axis", 2),)),
                                Step("merge", "red+rf", (1,), (("other", "join"),))))
    assert_recognised("schedule", "reads_initialised", ex, "test_merge_of_nests_two_stages_apart_skips_the_stage_between",
                      ir="tir")
    # made blocks as the other and the third (seed 43): bcast, the second cache copy and post
    # merged skip the first copy, which now reads bcast_global before bcast writes it
    ex = ScheduleExample(PrimFuncSpec("broadcast", (1,), (("bdims", (False,)),), "int32", epilogue=True,
                                      epilogue_op="bias"),
                         (Step("cache_write", "bcast", (), (("buffer", 0), ("scope", "global"))),
                          Step("reindex_cache_write", "bcast>0", (), (("buffer", 0), ("scope", "global"), ("perm", (0,)))),
                          Step("merge", "bcast", (0,), (("other", "post<0"), ("third", "post<0>0")))))
    assert_recognised("schedule", "reads_initialised", ex, "test_merge_of_nests_two_stages_apart_skips_the_stage_between",
                      ir="tir")


def test_pad_einsum_pads_a_max_reduction_with_zeros() -> None:
    """pad_einsum is for sum-of-products blocks, but accepts a max reduction and pads its
    reduction axis with 0: a window of negative values now has maximum 0."""
    spec = PrimFuncSpec("reduce", (13, 10, 3), (("axes", (2,)), ("op", "max")), "int32", seed=1)
    case = case_of("pad_einsum", spec, Step("pad_einsum", "red", (), (("padding", (2, 4, 8)),)))
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)


def test_reverse_compute_at_of_a_reshape_computes_half_the_consumer() -> None:
    """Found by the 2,000-example reverse_compute_at campaign. A reshape (3, 16) -> (4, 12) moved
    under its producer's row loop: the regenerated loops cover 2 rows and a column range of
    max(i0*4, (i0*16+3)%12) + 1 - min(...) per producer row, so 24 of the 48 reshape instances
    never run and the output reads uninitialised memory (nan in practice). Same with index -1
    or -2, with or without an epilogue."""
    spec = PrimFuncSpec("reshape", (3, 16), (("out_shape", (4, 12)),), "int32", prologue=True)
    case = case_of("reverse_compute_at", spec, rca("reshape", 0, "pre"))
    assert "24 of 48 instances are never executed" in known_violation(S.block_instances_exactly_once, case)


def test_reindex_write_after_compute_at_copies_back_too_late() -> None:
    """Found by the 2,000-example reindex campaign, the compute_at twin of the
    reverse_compute_at case above: `reshape` computed at `post`'s loop, then reindex of its
    write puts the copy back into `reshape` after the whole nest, when `post` has already read
    it (13 of 13 outputs wrong)."""
    spec = PrimFuncSpec("reshape", (13,), (("out_shape", (13, 1)),), "int32", prologue=True, epilogue=True,
                        seed=2723, epilogue_op="clip")
    case = case_of("reindex", spec, Step("compute_at", "reshape", (0,), (("target", "post"),
                                                                       ("preserve_unit_loops", False),
                                                                       ("index", -1))),
                   Step("reindex", "reshape", (), (("kind", "write"), ("buffer", 0))), prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)


def test_write_at_of_a_blockized_reduction_leaves_the_init_behind() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(8, 10), attrs=(("n", 6),), index_dtype="int32",
                                           symbolic=True, prologue=True, epilogue=True, seed=3124, epilogue_op="clip"),
                         steps=(Step("compute_inline", "pre"),
                                Step("blockize", "matmul", (6,), (("preserve_unit_iters", True),)),
                                Step("write_at", "matmul", (3,), (("buffer", 0), ("scope", "global")))), prefix=2)
    assert "computes different values" in known_violation(G.equivalent_by_execution, example_case("write_at", ex))
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, example_case("write_at", ex))


def test_rfactor_after_a_non_dividing_split_sums_uninitialised_partials() -> None:
    """A 1-long reduction split by 5 runs 5 lanes guarded by k < 1. rfactor makes a 5-element
    partial buffer; the rfactor block keeps the guard, so 4 partials are never written, but the
    write-back sums all 5: the output is garbage (102435.875 for an expected 1.0 in the
    campaign; whatever the allocator left). In bounds, so only execution sees it."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(1, 1, 1, 1), attrs=(("axes", (0, 1)), ("op", "sum")),
                                           index_dtype="int32", prologue=True),
                         steps=(Step("split", "red", (2,), (("factors", (1, 5)), ("preserve_unit_iters", False))),
                                Step("rfactor", "red", (3,), (("factor_axis", 0),))), prefix=1)
    case = example_case("rfactor", ex)
    G.bounds_safe_z3(case)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)


def test_pad_einsum_pads_a_loop_shared_with_another_block() -> None:
    """`post` moved under the reduction's loops; pad_einsum then pads those loops (12 -> 16
    columns) and `post` runs its instances for the padding too, out of its domain."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(6, 12), attrs=(("axes", (1,)), ("op", "sum")),
                                           index_dtype="int64", epilogue=True),
                         steps=(Step("reverse_compute_at", "post", (2,), (("target", "red"), ("preserve_unit_loops", True),
                                                                          ("index", -1))),
                                Step("reverse_compute_at", "post", (3,), (("target", "red"),
                                                                          ("preserve_unit_loops", False),
                                                                          ("index", -1))),
                                Step("pad_einsum", "red", (), (("padding", (8, 2)),))), prefix=2)
    case = example_case("pad_einsum", ex)
    assert "block 'post' (outside)" in known_violation(S.block_instances_within_domain, case)
    # The block moved under the padded loop also reads past its region there (schedule --target
    # cuda, seed 0: right1 moved under right0's loop, then padded from 7 to 8).
    spec = PrimFuncSpec("branch2", (7,), (("left", 1), ("right", 2), ("join", "mul")), "int64", seed=3850,
                        epilogue_op="bias")
    case = case_of("pad_einsum", spec, Step("reverse_compute_at", "right1", (6,), (("target", "right0"),
                                                                               ("preserve_unit_loops", False),
                                                                               ("index", -1))),
                   Step("pad_einsum", "right1", (), (("padding", (8,)),)), prefix=1)
    assert "(region)" in known_violation(S.block_access_region_contained, case,
                                         "test_pad_einsum_pads_a_loop_shared_with_another_block")
    # A block merged with the padded loop (merge, `schedule --examples 2000`): the side branch
    # runs the padded iterations too, and loads and stores past its [n] buffers.
    merged = ScheduleExample(PrimFuncSpec("reduce_beside", (1, 7), (("op", "sum"),), "int64", symbolic=True),
                             (Step("merge", "red", (2,), (("other", "side"),)),
                              Step("pad_einsum", "red", (), (("padding", (8, 2)),))))
    for prop in ("bounds_safe_z3", "block_instances_within_domain"):
        assert_recognised("schedule", prop, merged, "test_pad_einsum_pads_a_loop_shared_with_another_block", ir="tir")
    # write_at's copy shares ew0's loop; padding the copy's loop runs ew0 past its domain (seed 43)
    ex = ScheduleExample(PrimFuncSpec("elementwise", (1,), (("depth", 3),), "int64"),
                         (Step("write_at", "ew0", (7,), (("buffer", 0), ("scope", "global"))),
                          Step("pad_einsum", "ew0>0", (), (("padding", (8,)),))))
    assert_recognised("schedule", "block_instances_within_domain", ex,
                      "test_pad_einsum_pads_a_loop_shared_with_another_block", ir="tir")


def test_loop_partition_drops_the_iterations_its_factors_miss() -> None:
    """loop_partition of a 3-long reduction loop with factors [1, 1] is accepted (a split with
    factors short of the extent is refused); the third iteration is never run."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="legalized", shape=(1, 3), attrs=(("op", "matmul"), ("n", 1)),
                                           index_dtype="int64", symbolic=True),
                         steps=(Step("loop_partition", "matmul", (2,), (("factors", (1, 1)),
                                                                       ("preserve_unit_iters", False))),))
    assert "computes different values" in known_violation(G.equivalent_by_execution, example_case("loop_partition", ex))


def test_decompose_padding_after_compute_at_reads_the_producer_too_early() -> None:
    """`pre` computed at `pad`'s loop, then decompose_padding of `pad`: the in-bound copy runs
    before `pre` is computed, so it copies an unwritten element (NaN-poisoned: wrong every time;
    1.57e26 in the campaign)."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="pad", shape=(1,), attrs=(("pads", ((0, 2),)),), index_dtype="int32",
                                           symbolic=True, prologue=True),
                         steps=(Step("compute_at", "pre", (0,), (("target", "pad"), ("preserve_unit_loops", False),
                                                                ("index", -1))),
                                Step("decompose_padding", "pad", (0,))), prefix=1)
    case = example_case("decompose_padding", ex)
    G.bounds_safe_z3(case)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)
    ex = ScheduleExample(spec=PrimFuncSpec(kind="pad", shape=(1,), attrs=(("pads", ((0, 0),)),), index_dtype="int32",
                                           symbolic=True, prologue=True),
                         steps=(Step("reverse_compute_at", "pad", (0,), (("target", "pre"), ("preserve_unit_loops", True),
                                                                         ("index", -1))),
                                Step("compute_at", "pre", (7,), (("target", "pad"), ("preserve_unit_loops", False),
                                                                ("index", -1))),
                                Step("decompose_padding", "pad", (0,))), prefix=2)
    assert "in_bound_filling_pos.defined()" in known_violation(G.transformation_does_not_raise,
                                                         example_case("decompose_padding", ex))


def test_reindex_of_a_blockized_reduction_computes_garbage() -> None:
    """Found by the 2,000-example reindex campaign (all 27 of its wrong-value examples): reindex
    of a read or of the write of a reduction whose loops were blockized. Like cache_write and
    write_at of a blockized reduction, the outer block's init stays on the original buffer."""
    spec = PrimFuncSpec("reduce", (7, 13, 9), (("axes", (2,)), ("op", "max")), "int32", symbolic=True, epilogue=True,
                        epilogue_op="clip")
    case = case_of("reindex", spec, Step("blockize", "red", (4,), (("preserve_unit_iters", False),)),
                   Step("reindex", "red", (), (("kind", "read"), ("buffer", 0))), prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The accumulator's copy is never written back: the output reads the init, not garbage,
    # so every read here reads what was written.
    G.reads_initialised(case)
    spec = PrimFuncSpec("matmul", (5, 12), (("n", 17),), "int32", prologue=True)
    case = case_of("reindex", spec, Step("blockize", "matmul", (5,), (("preserve_unit_iters", False),)),
                   Step("reindex", "matmul", (), (("kind", "write"), ("buffer", 0))), prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    # The value read was never written: the static check sees the read itself.
    assert "reads memory no store wrote before" in known_violation(G.reads_initialised, case)
