"""TVM 0.27 schedule primitives that raise something other than a ScheduleError, produce IR that
verify_well_formed or the build rejects, or accept a schedule the build then fails on.

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
"""

from __future__ import annotations

import passcheck.properties.tir_generic as G
from tvm_bug_repros import case_of, example_case, known_violation, rca, tensorize_steps

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

PAD_INT64 = (("pads", ((1, 0),)),)


def test_reverse_compute_inline_after_blockize_fails_internally() -> None:
    spec = PrimFuncSpec("pool", (1, 1, 11, 8), (("op", "max"), ("kernel", (2, 3)), ("stride", (3, 2)),
                                               ("padding", (1, 1))), "int32", prologue=True, epilogue=True,
                        epilogue_op="bias")
    case = case_of("reverse_compute_inline", spec,
                   Step("blockize", "pool", (1,), (("preserve_unit_iters", False),)),
                   Step("reverse_compute_inline", "post"), prefix=1)
    assert "unordered_map::at" in known_violation(G.transformation_does_not_raise, case)


def test_cache_index_internal_error_when_nothing_to_cache() -> None:
    """cache_index puts the blocks computing its index tables in a SeqStmt without flattening it:
    with no index to cache it is empty, with one it has length 1, and TVM's SeqStmt constructor
    rejects both (the 500-example cache_index campaign found the second: a reshape, and TOPI's
    adaptive pooling)."""
    spec = PrimFuncSpec("elementwise", (4,), (("depth", 1),), "int32")
    case = case_of("cache_index", spec, Step("cache_index", "ew0", (), (("cse_thresh", 0),)))
    assert "An empty SeqStmt is prohibited" in known_violation(G.transformation_does_not_raise, case)
    spec = PrimFuncSpec("reshape", (1,), (("out_shape", (1, 1)),), "int32")
    case = case_of("cache_index", spec, Step("cache_index", "reshape", (), (("cse_thresh", 0),)))
    assert "A SeqStmt of length 1 is prohibited" in known_violation(G.transformation_does_not_raise, case)


def test_annotate_buffer_access_rejects_a_buffer_of_fewer_dims_than_iterators() -> None:
    spec = PrimFuncSpec("matmul", (3, 4), (("n", 2),), "int32")
    case = case_of("annotate_buffer_access", spec, Step("annotate_buffer_access", "matmul", (),
                                                        (("buffer", 0), ("grow", 0))))
    assert "Number of iter_vars (3) must match" in known_violation(G.transformation_does_not_raise, case)


def test_vectorize_of_a_symbolic_loop_does_not_build() -> None:
    spec = PrimFuncSpec("elementwise", (5,), (("depth", 1),), "int32", symbolic=True)
    case = case_of("vectorize", spec, Step("vectorize", "ew0", (0,)))
    G.well_formed_before_after(case)
    G.bounds_safe_z3(case)
    assert "Failed to vectorize loop with extent n" in known_violation(G.equivalent_by_execution, case)


def test_transform_layout_with_padding_after_blockize_leaves_undefined_vars() -> None:
    """Found by the 2,000-example transform_layout campaign. After `pad` is blockized,
    transform_layout of `post`'s read of `pad` with pad_value=0.0 rewrites the producer to write
    the padding, but the new `pad` block binds its iterator to an undefined loop var (`i1`) and
    reads X at an undefined `v_i0_o`: verify_well_formed rejects it ("Loop iterator var v_0 is
    defined outside of any block, but is used inside the non-opaque current block"), while the
    blockized input was well-formed and no ScheduleError was raised."""
    spec = PrimFuncSpec("pad", (1, 1), (("pads", ((0, 0), (3, 0))),), "int32", symbolic=True, epilogue=True,
                        seed=10228, epilogue_op="bias")
    case = case_of("transform_layout", spec,
                   Step("blockize", "pad", (7,), (("preserve_unit_iters", True),)),
                   Step("transform_layout", "post", (), (("kind", "read"), ("buffer", 2), ("map", ("split", 3, 3)),
                                                        ("pad_value", 0.0))), prefix=1)
    assert "verify_well_formed rejects" in known_violation(G.well_formed_before_after, case)


def test_unroll_of_a_symbolic_loop_does_not_build() -> None:
    """Found by the 2,000-example unroll campaign (a sixth of its examples): the schedule accepts
    unroll on a loop of extent n, then the build fails "Cannot unroll non-constant loop"."""
    spec = PrimFuncSpec("elementwise", (5,), (("depth", 1),), "int32", symbolic=True)
    case = case_of("unroll", spec, Step("unroll", "ew0", (0,)))
    G.well_formed_before_after(case)
    G.bounds_safe_z3(case)
    assert "Cannot unroll non-constant loop" in known_violation(G.equivalent_by_execution, case)


def test_cache_read_of_an_accumulator_inside_nested_blockizes_does_not_lower() -> None:
    """Found by the 2,000-example cache_read campaign. The reduction loop of a matmul is
    blockized twice; cache_read of the innermost block's read of its own accumulator is accepted,
    puts a copy *after* the reduction (nothing reads the cache) and allocates the cache in the
    middle block, which lowering rejects: 'The buffer "matmul_global" is written in the block but
    is not in the block's signature'. verify_well_formed accepts the IR. With one blockize the
    same cache_read lowers fine."""
    spec = PrimFuncSpec("matmul", (5, 4), (("n", 4),), "int64", seed=253)
    case = case_of("cache_read", spec,
                   Step("blockize", "matmul", (2,), (("preserve_unit_iters", False),)),
                   Step("blockize", "matmul", (4,), (("preserve_unit_iters", True),)),
                   Step("cache_read", "matmul", (), (("buffer", 0), ("scope", "global"))), prefix=2)
    assert "is not in the block's signature" in known_violation(G.well_formed_before_after, case)
    # The cache_write campaign found the same with the cache on the write side.
    spec = PrimFuncSpec("matmul", (1, 1), (("n", 1),), "int32", symbolic=True, seed=883)
    case = case_of("cache_write", spec,
                   Step("blockize", "matmul", (3,), (("preserve_unit_iters", False),)),
                   Step("blockize", "matmul", (2,), (("preserve_unit_iters", False),)),
                   Step("cache_write", "matmul", (), (("buffer", 0), ("scope", "global"))), prefix=2)
    assert "is not in the block's signature" in known_violation(G.well_formed_before_after, case)


def test_rolling_buffer_fails_on_int64_indices() -> None:
    """Found once the rolling_buffer generator learned to set up overlapping windows. Any
    int64-indexed kernel (what Relax's LegalizeOps produces) makes rolling_buffer raise a
    TypeError (an int64/int32 binary op it builds itself); the same schedule on the int32
    kernel applies and stays correct."""
    steps = (Step("compute_at", "pad", (2,), (("target", "pool"), ("preserve_unit_loops", True), ("index", -1))),
             Step("rolling_buffer", "pad", (), (("buffer", 0),)))
    attrs = (("op", "max"), ("kernel", (3, 1)), ("stride", (2, 1)), ("padding", (2, 0)))
    case = case_of("rolling_buffer", PrimFuncSpec("pool", (1, 1, 3, 3), attrs, "int64", prologue=True), *steps,
                   prefix=1)
    assert "mismatched types. int64 vs. int32" in known_violation(G.transformation_does_not_raise, case)
    fine = case_of("rolling_buffer", PrimFuncSpec("pool", (1, 1, 3, 3), attrs, "int32", prologue=True), *steps,
                   prefix=1)
    G.transformation_does_not_raise(fine)
    G.bounds_safe_z3(fine)
    G.equivalent_by_execution(fine)


def test_reverse_compute_at_rejects_an_out_of_range_index_with_an_internal_error() -> None:
    """Found by the reverse_compute_at campaign: an `index` outside the valid insertion points
    should be a ScheduleError (a user's argument), not an InternalError."""
    spec = PrimFuncSpec("elementwise", (1,), (("depth", 1),), "int32", prologue=True)
    case = case_of("reverse_compute_at", spec, Step("reverse_compute_at", "ew0", (0,), (
        ("target", "pre"), ("preserve_unit_loops", False), ("index", 0))))
    assert "InternalError: Valid index:(-1, -2, [1, 1]), current index=0" in known_violation(
        G.transformation_does_not_raise, case)


def test_cache_index_of_an_int64_kernel_with_a_symbolic_extent_fails_internally() -> None:
    """Found by the 2,000-example cache_index campaign (int64 indices are what LegalizeOps
    produces)."""
    spec = PrimFuncSpec("pad", (1,), PAD_INT64, "int64", symbolic=True)
    case = case_of("cache_index", spec, Step("cache_index", "pad", (), (("cse_thresh", 0),)))
    assert "InternalError: Check failed: (ana->CanProve(range.min() >=" in known_violation(
        G.transformation_does_not_raise, case)


def test_cache_index_of_an_int64_kernel_mixes_index_types() -> None:
    """Same campaign: on a constant-shape int64 kernel cache_index applies, but the IR it builds
    mixes int32 and int64 operands and lowering fails."""
    spec = PrimFuncSpec("pad", (1,), PAD_INT64, "int64")
    case = case_of("cache_index", spec, Step("cache_index", "pad", (), (("cse_thresh", 0),)))
    assert "mismatched types. int32 vs. int64" in known_violation(G.well_formed_before_after, case)


def test_reindex_after_reverse_compute_at_fails_internally() -> None:
    """Found by the reindex campaign: an InternalError instead of a ScheduleError."""
    spec = PrimFuncSpec("broadcast", (10, 5), (("bdims", (True, True)),), "int32", prologue=True, seed=65536)
    case = case_of("reindex", spec, Step("reverse_compute_at", "bcast", (2,), (("target", "pre"),
                                                                             ("preserve_unit_loops", True),
                                                                             ("index", -1))),
                   Step("reindex", "bcast", (), (("kind", "write"), ("buffer", 0))), prefix=1)
    assert "InternalError: Check failed: (outer->body.get() == inner)" in known_violation(
        G.transformation_does_not_raise, case)


def test_tensorize_under_a_split_predicate_fails_internally() -> None:
    """Found as soon as tensorize was drawn (with passcheck's plain-TIR dot-product intrinsic):
    when the matmul's rows are split by a non-divisor (5 rows by 2, a predicate i < 5), tensorize
    of the inner reduction raises an InternalError instead of refusing with a ScheduleError.
    Split by a divisor, the same tensorize applies and computes the same output."""
    spec = PrimFuncSpec("matmul", (5, 4), (("n", 3),), "int32")
    case = case_of("tensorize", spec, *tensorize_steps(2), prefix=3)
    assert "InternalError: Check failed: (comparator.rhs_buffer_map_.count(desc))" in known_violation(
        G.transformation_does_not_raise, case)
    fine = case_of("tensorize", spec, *tensorize_steps(5), prefix=3)
    G.transformation_does_not_raise(fine)
    G.bounds_safe_z3(fine)
    G.equivalent_by_execution(fine)


def test_read_at_and_write_at_raise_key_errors() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(1, 1), attrs=(("axes", (0,)), ("op", "sum")),
                                           index_dtype="int64", symbolic=True),
                         steps=(Step("read_at", "red", (0,), (("buffer", 0), ("scope", "global"))),))
    assert "KeyError: 'key is not in Map'" in known_violation(G.transformation_does_not_raise, example_case("read_at", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="transpose", shape=(1, 1), attrs=(("perm", (1, 0)),),
                                           index_dtype="int32", symbolic=True, seed=2),
                         steps=(Step("write_at", "transpose", (2,), (("buffer", 0), ("scope", "global"))),))
    assert "KeyError: 'key is not in Map'" in known_violation(G.transformation_does_not_raise, example_case("write_at", ex))


def test_read_at_and_write_at_fail_internally_on_read_write_order() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(3, 3), attrs=(("n", 3),), index_dtype="int64",
                                           prologue=True, epilogue=True, epilogue_op="bias"),
                         steps=(Step("decompose_reduction", "matmul", (2,)),
                                Step("read_at", "matmul", (5,), (("buffer", 0), ("scope", "global")))), prefix=1)
    assert "w_pos.empty() || w_pos.back() < r_pos.front()" in known_violation(G.transformation_does_not_raise,
                                                                       example_case("read_at", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="elementwise", shape=(7,), attrs=(("depth", 2),), index_dtype="int64",
                                           epilogue=True, seed=187, epilogue_op="relu_shift"),
                         steps=(Step("compute_inline", "ew1"),
                                Step("compute_at", "ew0", (6,), (("target", "post"), ("preserve_unit_loops", True),
                                                                ("index", -1))),
                                Step("write_at", "ew0", (6,), (("buffer", 0), ("scope", "global")))), prefix=2)
    assert "r_pos.empty() || r_pos.back() <= w_pos.back()" in known_violation(G.transformation_does_not_raise,
                                                                       example_case("write_at", ex))


def test_write_at_after_reverse_compute_at_and_cache_read_does_not_lower() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="elementwise", shape=(7, 10, 3), attrs=(("depth", 1),),
                                           index_dtype="int64", prologue=True, seed=474, epilogue_op="relu_shift"),
                         steps=(Step("reverse_compute_at", "ew0", (4,), (("target", "pre"), ("preserve_unit_loops", True),
                                                                         ("index", -1))),
                                Step("cache_read", "pre", (), (("buffer", 0), ("scope", "global"))),
                                Step("write_at", "pre", (3,), (("buffer", 0), ("scope", "global")))), prefix=2)
    assert "block->writes.size() == 1" in known_violation(G.well_formed_before_after, example_case("write_at", ex))


def test_rfactor_after_reorder_and_compute_at_fails_internally() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(16, 4), attrs=(("n", 2),), index_dtype="int64",
                                           epilogue=True, seed=748, epilogue_op="clip"),
                         steps=(Step("reorder", "matmul", (6, 0, 5, 4)),
                                Step("compute_at", "matmul", (7,), (("target", "post"), ("preserve_unit_loops", False),
                                                                   ("index", -1))),
                                Step("rfactor", "matmul", (2,), (("factor_axis", 1),))), prefix=2)
    assert "block_realize == old_block_realize_.get()" in known_violation(G.transformation_does_not_raise,
                                                                    example_case("rfactor", ex))


def test_blockize_of_a_split_unit_loop_is_ill_formed() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(1, 1), attrs=(("n", 3),), index_dtype="int64",
                                           prologue=True, epilogue=True, seed=2983, epilogue_op="relu_shift"),
                         steps=(Step("split", "matmul", (3,), (("factors", (4, 2, 2)), ("preserve_unit_iters", False))),
                                Step("blockize", "matmul", (5,), (("preserve_unit_iters", True),))), prefix=1)
    case = example_case("blockize", ex)
    assert "verify_well_formed rejects" in known_violation(G.well_formed_before_after, case)


def test_a_compacted_int32_intermediate_gets_int32_max_rows_and_does_not_build() -> None:
    """An int32 kernel with a symbolic extent, an intermediate computed at a tile of its
    consumer: lowering compacts the intermediate to the region one tile reads, fails to bound it,
    and allocates 2147483647 (INT32_MAX) rows; the allocation's byte size then overflows and the
    build fails "cannot make uint from negative value". The int64 kernel compacts to n rows and
    runs. Reached by compute_at after a split (found once symbolic kernels were drawn more
    often), by decompose_reduction after split and compute_at, and by annotate_buffer_access
    after compute_at (a sound annotation: the block's own read region widened by 1, clipped)."""
    import dataclasses

    steps = (Step("split", "post", (0,), (("factors", (None, 2)), ("preserve_unit_iters", False))),
             Step("compute_at", "ew0", (0,), (("target", "post"), ("preserve_unit_loops", False), ("index", -1))))
    spec = PrimFuncSpec("elementwise", (5, 2), (("depth", 1),), "int32", symbolic=True, epilogue=True)
    case = example_case("compute_at", ScheduleExample(spec, steps, prefix=1))
    G.bounds_safe_z3(case)
    assert "cannot make uint from negative value" in known_violation(G.equivalent_by_execution, case)
    assert "T.alloc_buffer((2147483647, 2)" in case.lowered("after").script()
    fine = example_case("compute_at", ScheduleExample(dataclasses.replace(spec, index_dtype="int64"), steps, prefix=1))
    G.equivalent_by_execution(fine)
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(13, 13), attrs=(("n", 4),), index_dtype="int32",
                                           symbolic=True, epilogue=True, seed=2, epilogue_op="clip"),
                         steps=(Step("split", "post", (0,), (("factors", (None, 3)), ("preserve_unit_iters", False))),
                                Step("compute_at", "matmul", (2,), (("target", "post"), ("preserve_unit_loops", False),
                                                                   ("index", -1))),
                                Step("decompose_reduction", "matmul", (1,))), prefix=2)
    case = example_case("decompose_reduction", ex)
    G.bounds_safe_z3(case)
    assert "cannot make uint from negative value" in known_violation(G.equivalent_by_execution, case)
    assert "T.alloc_buffer((2147483647, 4)" in case.lowered("after").script()
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(1, 2), attrs=(("axes", (0,)), ("op", "sum")),
                                           index_dtype="int32", symbolic=True, prologue=True),
                         steps=(Step("compute_at", "pre", (1,), (("target", "red"), ("preserve_unit_loops", False),
                                                                ("index", -1))),
                                Step("annotate_buffer_access", "red", (), (("buffer", 0), ("grow", 1)))), prefix=1)
    case = example_case("annotate_buffer_access", ex)
    assert "cannot make uint from negative value" in known_violation(G.equivalent_by_execution, case)
    assert "T.alloc_buffer((2147483647, 2)" in case.lowered("after").script()


def test_bind_of_a_reduction_loop_is_accepted_but_cannot_be_lowered() -> None:
    """bind is checked symbolically on CPU (the CUDA lowering prefix): the schedule accepts
    binding a reduction loop to threadIdx.x although the cross-thread reduction lowering then
    rejects the nest (`post` sits under the reduction loop)."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(9, 3, 6), attrs=(("axes", (0, 1)), ("op", "sum")),
                                           index_dtype="int32", symbolic=True, prologue=True, epilogue=True,
                                           seed=446, epilogue_op="clip"),
                         steps=(Step("compute_inline", "pre"),
                                Step("reverse_compute_at", "post", (5,), (("target", "red"),
                                                                          ("preserve_unit_loops", False),
                                                                          ("index", -1))),
                                Step("bind", "red", (4,), (("thread", "threadIdx.x"),))), prefix=2)
    assert "Cross-thread reduction" in known_violation(G.well_formed_before_after, example_case("bind", ex))


def test_fuse_reduction_epilogue_raises_instead_of_refusing() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="legalized", shape=(10, 11), attrs=(("op", "softmax"),),
                                           index_dtype="int64", symbolic=True, seed=3),
                         steps=(Step("fuse_reduction_epilogue", "T_softmax_maxelem", (),
                                     (("epilogue", "T_softmax_exp"),)),))
    assert "ValueError: Check failed: reduction_data_vars.size() == epilogue_data_vars.size()" in known_violation(
        G.transformation_does_not_raise, example_case("fuse_reduction_epilogue", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(1, 7), attrs=(("axes", (1,)), ("op", "sum")),
                                           index_dtype="int32", prologue=True, epilogue=True, seed=12719,
                                           epilogue_op="bias"),
                         steps=(Step("blockize", "post", (1,), (("preserve_unit_iters", True),)),
                                Step("fuse_reduction_epilogue", "red", (), (("epilogue", "post"),))), prefix=1)
    assert "InternalError: Check failed: (false) is false: Expect StmtSRef" in known_violation(
        G.transformation_does_not_raise, example_case("fuse_reduction_epilogue", ex))


def test_cache_index_raises_key_and_type_errors() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="pad", shape=(5, 3, 5), attrs=(("pads", ((0, 1), (3, 3), (0, 1))),),
                                           index_dtype="int32", symbolic=True, epilogue=True, seed=23005,
                                           epilogue_op="relu_shift"),
                         steps=(Step("sample_perfect_tile", "post", (2,), (("n", 3), ("max_innermost", 16))),
                                Step("cache_index", "pad", (), (("cse_thresh", 0),))), prefix=1)
    assert "KeyError: 'key is not in Map'" in known_violation(G.transformation_does_not_raise,
                                                        example_case("cache_index", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="pad", shape=(5, 5), attrs=(("pads", ((2, 0), (1, 0))),),
                                           index_dtype="int32", symbolic=True, seed=9, epilogue_op="clip"),
                         steps=(Step("cache_index", "pad", (), (("cse_thresh", 0),)),))
    assert "loop_var.ty() == extent.ty()" in known_violation(G.transformation_does_not_raise,
                                                       example_case("cache_index", ex))


def test_cache_inplace_after_decompose_reduction_uses_block_iterators_outside_the_block() -> None:
    """The copy-in and copy-out blocks around `matmul_update` index the cache with v_i, v_j,
    the update block's own iterators, where they are undefined; verify_well_formed rejects it.
    65 of the 72 cache_inplace applications in the campaign were ill-formed."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(1, 1), attrs=(("n", 1),), index_dtype="int32",
                                           symbolic=True),
                         steps=(Step("decompose_reduction", "matmul", (0,)),
                                Step("cache_inplace", "matmul", (), (("buffer", 0), ("scope", "global")))), prefix=1)
    assert "verify_well_formed rejects" in known_violation(G.well_formed_before_after, example_case("cache_inplace", ex))


def test_reverse_compute_at_of_a_pooling_raises_a_pattern_match_value_error() -> None:
    """Found by the 2,000-example reverse_compute_at campaign (about 100 of its examples): a
    pooling (even 1x1) moved under its producer's channel loop makes TVM raise a ValueError from
    a region pattern match instead of applying or refusing."""
    spec = PrimFuncSpec("pool", (1, 5, 9, 6), (("op", "avg"), ("kernel", (1, 1)), ("stride", (1, 3)),
                                               ("padding", (0, 0))), "int64", prologue=True, epilogue=True,
                        epilogue_op="bias")
    case = case_of("reverse_compute_at", spec, rca("pool", 1, "pre"))
    assert "TensorRegion pattern match failed" in known_violation(G.transformation_does_not_raise, case)



# --- found by the 2,000-example `schedule` campaign (sequences), culprit step found by testing
#     each prefix of the failing sequence -------------------------------------------------------


def test_compute_inline_after_write_at_does_not_lower() -> None:
    """The write_at cache block of `ew1` inlined: accepted, then lowering fails "Multiple
    buffer read"."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="elementwise", shape=(13, 6, 8), attrs=(("depth", 2),),
                                           index_dtype="int32", epilogue=True, seed=21, epilogue_op="bias"),
                         steps=(Step("sample_partitioned_tile", "ew1", (7,), (("n", 3), ("pos", 0), ("inner", 2))),
                                Step("write_at", "ew1", (5,), (("buffer", 0), ("scope", "global"))),
                                Step("compute_inline", "ew1")))
    assert "Multiple buffer read" in known_violation(G.well_formed_before_after, example_case("schedule", ex))


def test_reverse_compute_inline_after_write_at_does_not_lower() -> None:
    """Found by the 100-example `schedule` campaign (relax-bias branch): the consumer of the
    write_at cache block of `pre` inlined into it: accepted, then lowering fails "Multiple buffer
    read" (like compute_inline of the cache block itself). A schedule primitive must refuse with
    a ScheduleError or give IR that lowers; static and symbolic shapes alike."""
    for symbolic in (False, True):
        spec = PrimFuncSpec(kind="broadcast", shape=(1, 1, 1), attrs=(("bdims", (False, False, False)),),
                            index_dtype="int32", symbolic=symbolic, prologue=True, seed=6237)
        ex = ScheduleExample(spec=spec, steps=(Step("write_at", "pre", (1,), (("buffer", 0), ("scope", "global"))),
                                               Step("reverse_compute_inline", "bcast")))
        assert "Multiple buffer read" in known_violation(G.well_formed_before_after, example_case("schedule", ex))


def test_fuse_reduction_epilogue_after_transform_layout_fails_internally() -> None:
    """The epilogue reads the reduction's output through a re-laid-out (5-d) buffer; fusing it
    indexes the 4-d output with 5 indices: InternalError instead of a ScheduleError."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="conv2d", shape=(1, 1, 16, 3),
                                           attrs=(("out_channels", 1), ("kernel", (3, 1)), ("stride", (2, 2)),
                                                  ("dilation", (2, 2)), ("padding", (0, 2))),
                                           index_dtype="int64", epilogue=True, seed=113, epilogue_op="bias"),
                         steps=(Step("reorder_block_iter_var", "conv", (), (("perm", (1, 5, 3, 6, 4, 0, 2)),)),
                                Step("storage_align", "conv", (), (("buffer", 0), ("axis", 0), ("factor", 8),
                                                                   ("offset", 0))),
                                Step("transform_layout", "post", (), (("kind", "read"), ("buffer", 0),
                                                                     ("map", ("split", 2, 4)), ("pad_value", 0.0))),
                                Step("sample_categorical", "pad", (0,)),
                                Step("cache_read", "pad", (), (("buffer", 2), ("scope", "local"))),
                                Step("fuse_reduction_epilogue", "conv", (), (("epilogue", "post"),))))
    assert "cannot be indexed with the 5-dimensional indices" in known_violation(G.transformation_does_not_raise,
                                                                            example_case("schedule", ex))


def test_fuse_of_a_reordered_symbolic_padding_fails_internally() -> None:
    """Found by the slow schedule-sequence test (the 2,000-example fuse campaign never drew it):
    reorder (i1, i0, i2) of a symbolic 3-d padding, then fuse of all three loops: TVM's
    iterator-map analysis hits an InternalError ("The padding factor ... is not divisible by")
    instead of fusing or refusing."""
    spec = PrimFuncSpec("pad", (16, 16, 17), (("pads", ((3, 3), (0, 2), (1, 3))),), "int64", symbolic=True)
    case = case_of("fuse", spec, Step("reorder", "pad", (1, 0, 2)),
                   Step("fuse", "pad", (4,), (("count", 3), ("preserve_unit_iters", True))), prefix=1)
    assert "CanProveDivisible(info.padding_factor, divisor)" in known_violation(G.transformation_does_not_raise, case)


def test_parallel_of_a_loop_inside_a_parallel_loop_does_not_build() -> None:
    """The slow `schedule` campaign used to let "Nested parallel loop" build failures through an
    ad-hoc filter, with no repro kept; kept here when the known-bug registry replaced that
    filter. parallel of the inner loop of an already parallel nest is accepted by the schedule,
    then the build fails "Nested parallel loop is not supported by threadpool"."""
    spec = PrimFuncSpec("elementwise", (4, 3), (("depth", 1),), "int32")
    ex = ScheduleExample(spec, (Step("parallel", "ew0", (0,)), Step("parallel", "ew0", (1,))))
    case = example_case("schedule", ex)
    G.well_formed_before_after(case)
    G.bounds_safe_z3(case)
    assert "Nested parallel loop is not supported" in known_violation(G.equivalent_by_execution, case)
    # Parallel on the outer loop alone builds and computes the same output.
    G.equivalent_by_execution(example_case("schedule", ScheduleExample(spec, ex.steps[:1])))
