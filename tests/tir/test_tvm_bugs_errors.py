"""TVM 0.27 schedule primitives that raise something other than a ScheduleError (InternalError,
KeyError, TypeError, ...) where they should refuse the schedule or apply it (the schedules whose
output does not lower or build are in test_tvm_bugs_build.py).

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
"""

from __future__ import annotations

import passcheck.properties.tir_generic as G
import pytest
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


def test_rfactor_after_reorder_and_compute_at_fails_internally() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(16, 4), attrs=(("n", 2),), index_dtype="int64",
                                           epilogue=True, seed=748, epilogue_op="clip"),
                         steps=(Step("reorder", "matmul", (6, 0, 5, 4)),
                                Step("compute_at", "matmul", (7,), (("target", "post"), ("preserve_unit_loops", False),
                                                                   ("index", -1))),
                                Step("rfactor", "matmul", (2,), (("factor_axis", 1),))), prefix=2)
    assert "block_realize == old_block_realize_.get()" in known_violation(G.transformation_does_not_raise,
                                                                    example_case("rfactor", ex))
    # cross_thread_reduction(rfactor=True) of a reduction whose consumer reverse_compute_at moved under
    # it (`cross_thread_reduction --examples 500`, seed 7): its rfactor raises the same
    from known_bug_check import assert_recognised

    ex = ScheduleExample(PrimFuncSpec("reduce", (6, 4), (("axes", (0,)), ("op", "max")), "int64", epilogue=True,
                                      seed=636, epilogue_op="clip"),
                         (Step("sample_perfect_tile", "post", (5,), (("n", 2), ("max_innermost", 16), ("decision", 30))),
                          Step("reverse_compute_at", "post", (6,), (("target", "red"), ("preserve_unit_loops", False),
                                                                    ("index", -1))),
                          Step("cross_thread_reduction", "red", (1,), (("threads", 7), ("rfactor", True)))), prefix=2)
    assert_recognised("cross_thread_reduction", "transformation_does_not_raise", ex,
                      "test_rfactor_after_reorder_and_compute_at_fails_internally", ir="tir")


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


def test_reverse_compute_at_of_a_pooling_raises_a_pattern_match_value_error() -> None:
    """Found by the 2,000-example reverse_compute_at campaign (about 100 of its examples): a
    pooling (even 1x1) moved under its producer's channel loop makes TVM raise a ValueError from
    a region pattern match instead of applying or refusing."""
    spec = PrimFuncSpec("pool", (1, 5, 9, 6), (("op", "avg"), ("kernel", (1, 1)), ("stride", (1, 3)),
                                               ("padding", (0, 0))), "int64", prologue=True, epilogue=True,
                        epilogue_op="bias")
    case = case_of("reverse_compute_at", spec, rca("pool", 1, "pre"))
    assert "TensorRegion pattern match failed" in known_violation(G.transformation_does_not_raise, case)




def test_compute_at_of_a_read_at_copy_raises_a_pattern_match_value_error() -> None:
    """read_at copies X's row into a local cache at loop j; compute_at of that copy block under
    matmul's reduction loop k raises ValueError 'TensorRegion pattern match failed' (static or
    symbolic, int32 or int64) instead of applying or refusing. Found by schedule --target
    cuda:sm_90 at 500 examples (seed 0); the CPU schedule raises alike."""
    import tvm
    from tvm import s_tir

    from passcheck.tir.kernels import build_primfunc

    spec = PrimFuncSpec("matmul", (13, 10), (("n", 4),))
    sch = s_tir.Schedule(tvm.IRModule({"main": build_primfunc(spec)}))
    block = sch.get_sblock("matmul")
    copy = sch.read_at(sch.get_loops(block)[1], block, 0, "local")
    with pytest.raises(ValueError, match="TensorRegion pattern match failed"):
        sch.compute_at(copy, sch.get_loops(block)[2], preserve_unit_loops=True, index=-2)
    case = case_of("compute_at", spec, Step("read_at", "matmul", (1,), (("buffer", 0), ("scope", "local"))),
                   Step("compute_at", "matmul<0", (2,), (("target", "matmul"), ("preserve_unit_loops", True),
                                                         ("index", -2))), prefix=1)
    assert "TensorRegion pattern match failed" in known_violation(G.transformation_does_not_raise, case)

# --- found by the 2,000-example `schedule` campaign (sequences), culprit step found by testing
#     each prefix of the failing sequence -------------------------------------------------------


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


def test_blockize_of_an_int64_loop_partition_piece_mixes_index_types() -> None:
    """Found by `schedule --examples 2000` (seed 12): loop_partition of the 5-long int64 loop of a
    prologue into [1, 2, rest], then blockize of the second piece's loop with
    preserve_unit_iters=False: the new outer block's iterator gets an int32 extent for an int64
    var, and TVM's IterVar constructor fails its check instead of the primitive applying or
    refusing. (In an int32 kernel the same steps apply.)"""
    from known_bug_check import assert_recognised

    steps = (Step("loop_partition", "pre", (1,), (("factors", (1, 2)), ("preserve_unit_iters", True),
                                                  ("factors_as", "expr"))),
             Step("blockize", "pre%1", (0,), (("preserve_unit_iters", False),)))
    ex = ScheduleExample(PrimFuncSpec("matmul", (1, 5), (("n", 2),), "int64", prologue=True), steps)
    msg = assert_recognised("schedule", "transformation_does_not_raise", ex,
                            "test_blockize_of_an_int64_loop_partition_piece_mixes_index_types", ir="tir")
    assert "must match its associated Var's dtype (int64)" in msg
    G.transformation_does_not_raise(example_case("schedule", ScheduleExample(
        PrimFuncSpec("matmul", (1, 5), (("n", 2),), "int32", prologue=True), steps)))
    # tensorize blockizes the loop it is given: the same (seed 12, the rerun after the triage)
    ex = ScheduleExample(PrimFuncSpec("pad", (1, 1), (("pads", ((2, 3), (1, 0))),), "int64", epilogue=True,
                                      epilogue_op="bias"),
                         (Step("loop_partition", "post", (0,), (("factors", (None, 3)), ("preserve_unit_iters", True))),
                          Step("tensorize", "post%1", (0,), (("k", 4), ("preserve_unit_iters", False)))))
    assert_recognised("schedule", "transformation_does_not_raise", ex,
                      "test_blockize_of_an_int64_loop_partition_piece_mixes_index_types", ir="tir")


def test_reverse_compute_inline_into_a_read_at_copy_of_a_broadcast_read_fails_internally() -> None:
    """Found by `schedule --examples 800` (seed 41): `bcast = X[i] * Y[0]`; read_at copies Y's one
    element under the i loop into a block with no iterators, then reverse_compute_inline of bcast
    into that copy raises InternalError "Cannot dispatch a null expression" (the consumer's
    index maps onto no producer iterator) instead of refusing with a ScheduleError."""
    from known_bug_check import assert_recognised

    read_at = Step("read_at", "bcast", (0,), (("buffer", 1), ("scope", "local")))
    ex = ScheduleExample(PrimFuncSpec("broadcast", (3,), (("bdims", (True,)),)),
                         (read_at, Step("reverse_compute_inline", "bcast")))
    assert_recognised("schedule", "transformation_does_not_raise", ex,
                      "test_reverse_compute_inline_into_a_read_at_copy_of_a_broadcast_read_fails_internally", ir="tir")
    G.transformation_does_not_raise(example_case("schedule", ScheduleExample(ex.spec, (read_at,))))


def test_annotate_buffer_access_of_a_blockized_reduction_fails_internally() -> None:
    """Found by `annotate_buffer_access --examples 500` (seed 7). The outer block blockize makes
    of a max reduction reads X[v, 0:7]; annotating that read (index 0, with its own region)
    raises InternalError "Buffer index out of range (0 vs. 0)": the index is checked against an
    empty list of regions, not the block's one read. A ScheduleError or the annotation was due."""
    from known_bug_check import assert_recognised

    spec = PrimFuncSpec("reduce_beside", (10, 7), (("op", "max"),), "int64", seed=64, epilogue_op="bias")
    blockize = Step("blockize", "red", (5,), (("preserve_unit_iters", False),))
    ex = ScheduleExample(spec, (blockize, Step("annotate_buffer_access", "red+o", (), (("buffer", 1), ("grow", 0)))),
                         prefix=1)
    assert_recognised("annotate_buffer_access", "transformation_does_not_raise", ex,
                      "test_annotate_buffer_access_of_a_blockized_reduction_fails_internally", ir="tir")
    # the reduction block itself takes the same annotation
    G.transformation_does_not_raise(case_of("annotate_buffer_access", spec, Step(
        "annotate_buffer_access", "red", (), (("buffer", 1), ("grow", 0)))))
