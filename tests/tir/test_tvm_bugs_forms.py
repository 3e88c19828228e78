"""TVM 0.27 bugs that only the whole signatures, the steps on made blocks and the branching
kernels of issue 21 reach: each drawn form here was never drawn before.

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
Triage, TVM's bug or a misuse, is in each docstring.
"""

from __future__ import annotations

import passcheck.properties.tir_generic as G
from known_bug_check import assert_recognised
from tvm_bug_repros import case_of, example_case, known_violation

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

RED = PrimFuncSpec("reduce", (4, 3), (("axes", (1,)), ("op", "sum")), "int32")


def _blockize(*blocks: str) -> Step:
    return Step("blockize", blocks[0], (), (("blocks", blocks), ("preserve_unit_iters", True)))


def test_blockize_of_blocks_with_reduction_loops_outside_fails_internally() -> None:
    """blockize(list of blocks) requires no reduction loop outside the blocks. That it is a
    restriction is documented in the source; that it is checked with ICHECK (InternalError)
    rather than reported as a ScheduleError is TVM's bug: a caller cannot tell a refusal from a
    crash of the primitive. Found on a softmax by a first user of the list form (issue 21)."""
    case = case_of("blockize", RED, _blockize("red"))
    assert "has_outer_reduction == false" in known_violation(G.transformation_does_not_raise, case)
    softmax = PrimFuncSpec("legalized", (2, 3), (("op", "softmax"),), "int64")
    case = case_of("blockize", softmax, _blockize("T_softmax_maxelem", "T_softmax_exp"))
    assert "has_outer_reduction == false" in known_violation(G.transformation_does_not_raise, case)


def test_blockize_of_a_list_of_one_block_fails_internally() -> None:
    """blockize([b]) is a valid call (the signature takes a list; one block is a list) and the
    same as blockize of b's outermost loop. TVM builds a SeqStmt of the list's blocks without
    flattening it and its constructor rejects length 1: TVM's bug (cache_index has the same)."""
    spec = PrimFuncSpec("elementwise", (4,), (("depth", 1),), "int32")
    case = case_of("blockize", spec, _blockize("ew0"))
    assert "A SeqStmt of length 1 is prohibited" in known_violation(G.transformation_does_not_raise, case)
    # Two blocks are fine.
    two = PrimFuncSpec("elementwise", (4,), (("depth", 2),), "int32")
    G.transformation_does_not_raise(case_of("blockize", two, _blockize("ew0", "ew1")))


def test_blockize_of_blocks_that_are_not_consecutive_fails_internally() -> None:
    """The blocks of a list must be consecutive siblings: a misuse, but one TVM reports with an
    ICHECK (InternalError), not a ScheduleError -- TVM's bug in how it refuses. Found in a
    kernel that branches (use1 is not next to shared)."""
    spec = PrimFuncSpec("fanout", (3, 3), (), "int32")
    case = case_of("blockize", spec, _blockize("shared", "use1"))
    assert "Target blocks must be consecutive" in known_violation(G.transformation_does_not_raise, case)


def test_blockize_of_a_list_naming_one_block_twice_fails_internally() -> None:
    """Found by `schedule --examples 2000` (seed 43): blockize(['reshape>0', 'post']) where the
    reference reshape>0 is post itself. A list with a block twice is a misuse, refused by an
    ICHECK (InternalError "Target blocks must not be nested with each other!"), not a
    ScheduleError -- TVM's bug in how it refuses."""
    spec = PrimFuncSpec("reshape", (1, 1, 1), (("out_shape", (68, 3, 3)),), "int64", epilogue=True, epilogue_op="clip")
    ex = ScheduleExample(spec, (Step("blockize", "reshape>0", (), (("blocks", ("reshape>0", "post")),
                                                                  ("preserve_unit_iters", True))),))
    msg = assert_recognised("schedule", "transformation_does_not_raise", ex,
                            "test_blockize_of_a_list_naming_one_block_twice_fails_internally", ir="tir")
    assert "must not be nested with each other" in msg


def test_blockize_of_a_list_raises_an_index_error() -> None:
    """Three consecutive blocks, the middle one's three inner loops fused first: TVM indexes an
    array past its end (IndexError). TVM's bug."""
    spec = PrimFuncSpec("pool", (1, 5, 5, 17), (("op", "max"), ("kernel", (2, 2)), ("stride", (2, 3)),
                                                ("padding", (0, 1))), "int64", prologue=True)
    case = case_of("blockize", spec, Step("fuse", "pad", (3,), (("count", 3), ("preserve_unit_iters", True))),
                   Step("blockize", "pre", (), (("blocks", ("pre", "pad", "pool")), ("preserve_unit_iters", False))),
                   prefix=1)
    assert "out of bounds" in known_violation(G.transformation_does_not_raise, case)


def test_blockize_of_a_decomposed_reduction_and_its_consumer_drops_the_init() -> None:
    """decompose_reduction, then blockize([red_update, post]): the outer block holds the update
    and the consumer, and red_init is simply gone -- the update accumulates into memory nobody
    initialised. TVM's bug (a valid call: consecutive blocks, no reduction loop outside)."""
    spec = PrimFuncSpec("reduce", (2, 2), (("axes", (1,)), ("op", "max")), "int32", epilogue=True,
                        epilogue_op="clip")
    case = case_of("blockize", spec, Step("decompose_reduction", "red", (1,)), _blockize("red", "post"), prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    assert "reads red[0]" in known_violation(G.reads_initialised, case)


def test_blockize_of_a_list_holding_a_block_and_its_outer_block_duplicates_it() -> None:
    """Found by `schedule --examples 2000` (seed 5077). blockize made `ew1_o` around `ew1`; a
    second blockize of [ew0, ew1_o, ew1] is accepted (TVM's nesting check refuses one block named
    twice, not a block beside its own ancestor): the new block holds ew0, ew1_o with ew1 inside,
    and a second copy of ew1. verify_well_formed rejects the duplicate block."""
    spec = PrimFuncSpec("elementwise", (1, 1), (("depth", 2),), "int32")
    case = case_of("blockize", spec, Step("blockize", "ew1", (2,), (("preserve_unit_iters", False),)),
                   Step("blockize", "ew0", (), (("blocks", ("ew0", "ew1+o", "ew1")), ("preserve_unit_iters", False))),
                   prefix=1)
    assert case.after.script().count('T.sblock("ew1")') == 2
    assert "verify_well_formed rejects" in known_violation(G.well_formed_before_after, case)
    # a decomposed reduction's update named by reference and by its old name (seed 5077 again)
    spec = PrimFuncSpec("reduce_beside", (1, 1), (("op", "sum"),), "int32")
    case = case_of("blockize", spec, Step("decompose_reduction", "red", (0,)),
                   Step("blockize", "red+update", (), (("blocks", ("red+update", "red", "side")),
                                                      ("preserve_unit_iters", False))), prefix=1)
    assert case.after.script().count('T.sblock("red_update")') == 2
    assert "verify_well_formed rejects" in known_violation(G.well_formed_before_after, case)


def test_blockize_of_a_list_out_of_program_order_reorders_the_blocks() -> None:
    """Found by `schedule --examples 2000` (seed 5077), on reindex copies. blockize([ew1, ew0]) of
    two consecutive nests, consumer first: the outer block holds them in the list's order, so ew1
    reads ew0 before ew0 is computed (NaN from the marker fill). The same list in program order
    computes the kernel. A list is a set of blocks to wrap: its order is not the caller's to get
    right, or else it must be refused."""
    spec = PrimFuncSpec("elementwise", (4,), (("depth", 2),), "int32")
    case = case_of("blockize", spec, _blockize("ew1", "ew0"))
    assert "reads ew0" in known_violation(G.reads_initialised, case)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    G.equivalent_by_execution(case_of("blockize", spec, _blockize("ew0", "ew1")))


def test_compute_at_rejects_an_out_of_range_index_with_an_internal_error() -> None:
    """compute_at's `index` must lie in the valid insertion points or be -1/-2: an index out of
    that range is the caller's mistake, reported with an InternalError instead of a
    ScheduleError (TVM's bug, shared with reverse_compute_at). index=1 was not drawn before."""
    spec = PrimFuncSpec("elementwise", (4,), (("depth", 2),), "int32")
    case = case_of("compute_at", spec, Step("compute_at", "ew0", (0,), (("target", "ew1"), ("index", 1))))
    assert "Valid index:" in known_violation(G.transformation_does_not_raise, case)


def test_cache_inplace_of_a_buffer_given_by_name_raises_an_assertion() -> None:
    """cache_inplace's read_buffer_index accepts a buffer name. For the in-place buffer (read and
    written by the block: the point of cache_inplace) the Python wrapper looks the name up among
    the writes first and asserts it is a read buffer: TVM's bug. The index form applies."""
    steps = (Step("decompose_reduction", "red", (0,)),
             Step("cache_inplace", "red", (), (("buffer", 0), ("scope", "local"), ("inplace", True),
                                               ("buffer_as", "name"))))
    case = case_of("cache_inplace", RED, *steps, prefix=1)
    assert "Expected buffer to be read buffer" in known_violation(G.transformation_does_not_raise, case)


def test_read_at_of_a_legalized_int64_reshape_fails_internally() -> None:
    """read_at of LegalizeOps' int64 reshape (its loops are int64, one index is an int32
    expression): the cache loop gets an int32 var with int64 bounds, an ICHECK fails. TVM's bug."""
    spec = PrimFuncSpec("legalized", (6, 10, 10), (("op", "reshape"), ("new_shape", (15, 40))), "int64")
    case = case_of("read_at", spec, Step("read_at", "T_reshape", (0,), (("buffer", 0), ("scope", "global"))))
    assert "is narrower than" in known_violation(G.transformation_does_not_raise, case)


def test_transform_layout_assuming_injectivity_with_a_pad_value_fails_internally() -> None:
    """assume_injective_transform=True says the map is injective (here the identity, which is);
    with a pad_value TVM then dereferences an empty Optional (RuntimeError 'Back optional
    access'). TVM's bug: the two parameters were never drawn together before."""
    spec = PrimFuncSpec("elementwise", (3,), (("depth", 2),), "int32")
    case = case_of("transform_layout", spec, Step("transform_layout", "ew0", (), (
        ("kind", "write"), ("buffer", 0), ("map", ("permute", (0,))), ("pad_value", 0.0), ("assume_injective", True))))
    assert "Back optional access" in known_violation(G.transformation_does_not_raise, case)


def test_transform_layout_accepts_a_non_injective_index_map() -> None:
    """The map i -> i // 2 sends two elements to one. assume_injective_transform defaults to
    False, i.e. TVM checks injectivity -- and accepts this map: both elements are written to one
    place and one is lost. TVM's bug (a misuse would be refused with a ScheduleError)."""
    spec = PrimFuncSpec("elementwise", (4,), (("depth", 2),), "int32", seed=3)
    case = case_of("transform_layout", spec, Step("transform_layout", "ew0", (), (
        ("kind", "write"), ("buffer", 0), ("map", ("collapse", 0, 2)), ("pad_value", None))))
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)


def test_write_at_after_loop_partition_copies_back_what_is_not_written_yet() -> None:
    """A piece of a loop_partition declares the whole partition's region as what each instance
    reads and writes. write_at under the piece's loop then copies that whole region back at
    every iteration, reading cache elements later iterations have not written. TVM's bug (in
    loop_partition's regions or in write_at's use of them); the copy in the last iteration
    makes the buffer right again only where nothing read it in between."""
    spec = PrimFuncSpec("elementwise", (6, 4), (("depth", 1),), "int32", prologue=True)
    case = case_of("write_at", spec, Step("loop_partition", "pre", (0,), (("factors", (None, 4)),)),
                   Step("write_at", "pre%1", (1,), (("buffer", 0), ("scope", "global"))), prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    assert "reads pre_global" in known_violation(G.reads_initialised, case)


def test_cache_write_in_a_loop_partition_piece_copies_back_the_whole_partition() -> None:
    """The write_at case above, through cache_write: the cache is allocated inside the piece, each
    iteration writes one row of it and copies all eleven back, so every row but the last is
    overwritten with what nobody wrote. Found by `bind --target cuda:sm_90` (seed 0) as a race:
    bind_rest binds the piece's outer loop to threads, each of which copies the whole cache."""
    from known_bug_check import assert_recognised

    from passcheck.tir.schedule import ScheduleExample

    spec = PrimFuncSpec("fanout", (11, 12), (), prologue=True, epilogue=True, seed=733, epilogue_op="clip")
    part = Step("loop_partition", "shared", (5,), (("factors", (3, None, 4)), ("preserve_unit_iters", True)))
    cache = Step("cache_write", "shared%0", (), (("buffer", 0), ("scope", "global")))
    case = case_of("cache_write", spec, part, cache, prefix=1)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    on_gpu = ScheduleExample(spec, (part, cache, Step("bind", "use0", (1,), (("thread", "vthread.x"),)),
                                    Step("bind_rest", "", (), (("threads", 7),))), 2)
    msg = assert_recognised("bind@cuda:sm_90", "gpu_threads_ordered", on_gpu,
                            "test_cache_write_in_a_loop_partition_piece_copies_back_the_whole_partition", ir="tir")
    assert "reads shared_global" in msg


def test_merge_of_a_loop_with_itself_duplicates_the_nest() -> None:
    """rfactor, the rf-block computed at the write-back's outer loop, then merge of three loops
    two of which are that one loop: the nest is emitted twice, verify_well_formed rejects the
    second definition of its loop vars. TVM's bug (it does not check that the loops are
    distinct; a plain merge of a loop with itself segfaults, kept in the crashes file)."""
    spec = PrimFuncSpec("pool", (1, 2, 3, 3), (("op", "avg"), ("kernel", (1, 1)), ("stride", (3, 2)),
                                               ("padding", (0, 0))), "int32", prologue=True, seed=120)
    case = case_of("merge", spec, Step("rfactor", "pool", (4,), (("factor_axis", -2),)),
                   Step("compute_at", "pool+rf", (0,), (("target", "pool"),)),
                   Step("merge", "pre", (0,), (("other", "pool+rf"), ("third", "pool"))), prefix=2)
    assert "verify_well_formed rejects" in known_violation(G.well_formed_before_after, case)
    # References that name one loop twice (`schedule --examples 2000`, seed 43): post<0, post's
    # producer, is bcast itself
    ex = ScheduleExample(PrimFuncSpec("broadcast", (1,), (("bdims", (False,)),), "int32", epilogue=True,
                                      epilogue_op="bias"),
                         (Step("merge", "bcast", (0,), (("other", "post<0"), ("third", "post<0>0"))),))
    for prop in ("well_formed_before_after", "block_instances_exactly_once"):  # the nest runs twice
        assert_recognised("schedule", prop, ex, "test_merge_of_a_loop_with_itself_duplicates_the_nest", ir="tir")
    # read_at's copy sits in reshape's nest: merging the two is merging one loop (seed 43)
    ex = ScheduleExample(PrimFuncSpec("reshape", (1, 1), (("out_shape", (4, 10)),), "int32", epilogue=True,
                                      epilogue_op="bias"),
                         (Step("read_at", "reshape", (7,), (("buffer", 0), ("scope", "local"))),
                          Step("merge", "reshape", (2,), (("other", "reshape<0"), ("third", "post")))))
    for prop in ("well_formed_before_after", "block_instances_exactly_once"):
        assert_recognised("schedule", prop, ex, "test_merge_of_a_loop_with_itself_duplicates_the_nest", ir="tir")
    # decompose_reduction put pool's init inside pool's nest: its loop and pool's are one (`merge
    # --examples 500`, seed 7)
    spec = PrimFuncSpec("pool", (1, 1, 1, 1), (("op", "avg"), ("kernel", (3, 3)), ("stride", (1, 1)),
                                               ("padding", (2, 2))), "int32")
    ex = ScheduleExample(spec, (Step("decompose_reduction", "pool", (3,)),
                                Step("merge", "pool", (1,), (("other", "pool+init"), ("third", "pad")))), prefix=1)
    assert_recognised("merge", "well_formed_before_after", ex, "test_merge_of_a_loop_with_itself_duplicates_the_nest",
                      ir="tir")


def test_decompose_padding_at_a_loop_a_consumer_shares_drops_the_consumer() -> None:
    """post moved under pad's loop (reverse_compute_at), their loops fused, then
    decompose_padding of pad at the fused loop: the fill and the copy are emitted, post is not
    -- the output is never written. TVM's bug (without the fuse it raises the kept
    'in_bound_filling_pos' InternalError instead)."""
    spec = PrimFuncSpec("pad", (4, 4), (("pads", ((0, 0), (0, 2))),), "int64", epilogue=True, epilogue_op="bias")
    case = case_of("decompose_padding", spec,
                   Step("reverse_compute_at", "post", (1,), (("target", "pad"),)),
                   Step("fuse", "post", (0,), (("count", 2), ("preserve_unit_iters", True))),
                   Step("decompose_padding", "pad", (0,)), prefix=2)
    assert "24 of 24 elements differ" in known_violation(G.equivalent_by_execution, case)


def test_fuse_reduction_epilogue_of_a_join_reads_the_other_branch_too_early() -> None:
    """join = red + side, side computed after red: fusing join into red computes it where red
    runs, before side exists. The primitive checks the epilogue's form, not that its other
    inputs are ready there: TVM's bug, reached only in a kernel that branches."""
    spec = PrimFuncSpec("reduce_beside", (3, 4, 5), (("op", "max"),), "int32", seed=2)
    case = case_of("fuse_reduction_epilogue", spec, Step("fuse_reduction_epilogue", "red", (), (("epilogue", "join"),)))
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    assert "reads side" in known_violation(G.reads_initialised, case)
    # Found by `schedule --examples 500` (seed 32333): the epilogue named by reference ('red>0',
    # red's first consumer: join) is the same bug.
    ex = ScheduleExample(PrimFuncSpec("reduce_beside", (1, 1, 1), (("op", "sum"),), "int64"),
                         (Step("fuse_reduction_epilogue", "red", (), (("epilogue", "red>0"),)),))
    assert_recognised("schedule", "reads_initialised", ex,
                      "test_fuse_reduction_epilogue_of_a_join_reads_the_other_branch_too_early", ir="tir")


def test_cache_read_after_loop_partition_copies_before_the_last_piece() -> None:
    """Found by `schedule --examples 2000` (seed 12, through reindex_cache_read). A pooling's batch
    loop partitioned into pieces of 1 and 1; `post` reads the pooled rows through cache_read. The
    copy lands after the first piece, whose block declares the whole partition's region, and
    before the second writes row 1: the copy reads row 1 unwritten, and `post` computes from the
    marker the buffers are filled with."""
    spec = PrimFuncSpec("pool", (2, 1, 1, 2), (("op", "max"), ("kernel", (1, 2)), ("stride", (1, 2)),
                                               ("padding", (0, 0))), "int32", epilogue=True)
    partition = Step("loop_partition", "pool", (6,), (("factors", (None, 1)), ("preserve_unit_iters", True),
                                                      ("factors_as", "expr")))
    for read in (Step("cache_read", "post", (), (("buffer", 0), ("scope", "global"))),
                 Step("reindex_cache_read", "post", (), (("buffer", 2), ("scope", "local"), ("perm", (1, 3, 0, 2)),
                                                          ("by_name", True)))):
        ex = ScheduleExample(spec, (partition, read))
        assert_recognised("schedule", "reads_initialised", ex,
                          "test_cache_read_after_loop_partition_copies_before_the_last_piece", ir="tir")
    # the write side (`reindex_cache_write --examples 500`, seed 7): side's write-back, its consumer
    # join partitioned, lands after join's first piece; the later pieces read side unwritten
    ex = ScheduleExample(PrimFuncSpec("reduce_beside", (11, 1, 1), (("op", "sum"),), "int32"), (
        Step("loop_partition", "join", (6,), (("factors", (None, 1, 4)), ("preserve_unit_iters", False))),
        Step("reindex_cache_write", "side", (), (("buffer", 0), ("scope", "global"), ("perm", (0, 1)),
                                                 ("by_name", True)))), prefix=1)
    assert_recognised("reindex_cache_write", "reads_initialised", ex,
                      "test_cache_read_after_loop_partition_copies_before_the_last_piece", ir="tir")
    ex = ScheduleExample(spec, (partition, Step("cache_read", "post", (), (("buffer", 0), ("scope", "global")))))
    assert "computes different values" in assert_recognised(
        "schedule", "equivalent_by_execution", ex, "test_cache_read_after_loop_partition_copies_before_the_last_piece",
        ir="tir")


def test_blockize_of_a_loop_partition_piece_binds_the_outer_loop_to_zero() -> None:
    """Found by `blockize --examples 500` (seed 7). ew0's column loop partitioned [None, 3] (the
    pieces cover all 5 columns); blockize of the first piece's loop makes an outer block whose
    iterators are `T.axis.spatial(1, 0)`: the row loop i0 outside is bound to 0, so every row
    iteration rewrites row 0's two columns and rows 1 and 2 keep what memory held."""
    import numpy as np
    import tvm

    from passcheck.tir.kernels import build_primfunc

    spec = PrimFuncSpec("elementwise", (3, 5), (("depth", 1),), "int32")
    steps = (Step("loop_partition", "ew0", (1,), (("factors", (None, 3)), ("preserve_unit_iters", False),
                                                  ("factors_as", "expr"))),
             Step("blockize", "ew0%0", (1,), (("preserve_unit_iters", True),)))
    assert_recognised("blockize", "equivalent_by_execution", ScheduleExample(spec, steps, prefix=1),
                      "test_blockize_of_a_loop_partition_piece_binds_the_outer_loop_to_zero", ir="tir")
    G.equivalent_by_execution(example_case("loop_partition", ScheduleExample(spec, steps[:1])))
    sch = tvm.s_tir.Schedule(tvm.IRModule({"main": build_primfunc(spec)}))
    sch.loop_partition(sch.get_loops(sch.get_sblock("ew0"))[1], factors=[None, 3], preserve_unit_iters=False)
    sch.blockize(sch.get_loops(sch.get_sblock("ew0_i10"))[-1], preserve_unit_iters=True)
    out = tvm.runtime.tensor(np.full((3, 5), -7, "float32"))
    tvm.compile(sch.mod, "llvm")(tvm.runtime.tensor(np.zeros((3, 5), "float32")),
                                 tvm.runtime.tensor(np.zeros((3, 5), "float32")), out)
    assert (out.numpy()[1:, :2] == -7).all() and (out.numpy()[:, 2:] == 0).all() and (out.numpy()[0] == 0).all()


def test_decompose_padding_of_a_loop_partition_piece_uses_loop_vars_inside_the_block() -> None:
    """Found by `decompose_padding --examples 500` (seed 7). A padding's last loop partitioned [None,
    4]; decompose_padding of the second piece makes the in-bound copy block with `v_i0 =
    T.axis.spatial(1, 0)` and the body `pad[v_i0 + i0, ...] = X[v_i0 + i0 - 1, ...]`: the loop var
    i0 used inside the block, which verify_well_formed rejects."""
    spec = PrimFuncSpec("pad", (1, 1, 13), (("pads", ((1, 3), (3, 3), (0, 0))),), "int32")
    steps = (Step("loop_partition", "pad", (2,), (("factors", (None, 4)), ("preserve_unit_iters", False))),
             Step("decompose_padding", "pad%1", (0,)))
    assert_recognised("decompose_padding", "well_formed_before_after", ScheduleExample(spec, steps, prefix=1),
                      "test_decompose_padding_of_a_loop_partition_piece_uses_loop_vars_inside_the_block", ir="tir")
    G.well_formed_before_after(example_case("loop_partition", ScheduleExample(spec, steps[:1])))


def test_loop_partition_of_a_fused_loop_reuses_the_block_iterators() -> None:
    """Found by the loop_partition campaign (a fused post nest partitioned [7, 3, 4], kept first as
    the short-factors bug) and `loop_partition --examples 500` (seed 7; [1, None, 2] of a fused 2 x 2
    flip). The pieces' blocks all define `v_i0` and `v_i1`, the same variables: verify_well_formed
    reports multiple definitions. An unfused loop partitions well-formed."""
    from tvm import s_tir

    from passcheck.tir.kernels import build_primfunc

    ex = ScheduleExample(spec=PrimFuncSpec(kind="reshape", shape=(12, 12, 1), attrs=(("out_shape", (18, 8)),),
                                           index_dtype="int32", epilogue=True, seed=594, epilogue_op="relu_shift"),
                         steps=(Step("fuse", "post", (5,), (("count", 2), ("preserve_unit_iters", False))),
                                Step("loop_partition", "post", (4,), (("factors", (7, 3, 4)),
                                                                     ("preserve_unit_iters", True)))), prefix=1)
    assert "verify_well_formed rejects" in known_violation(G.well_formed_before_after, example_case("loop_partition", ex))
    for fused in (True, False):
        sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("elementwise", (2, 2), (("depth", 1),), "int64")))
        loops = sch.get_loops(sch.get_sblock("ew0"))
        loop = sch.fuse(*loops, preserve_unit_iters=False) if fused else loops[0]
        sch.loop_partition(loop, factors=[1, None, 2] if fused else [1, None], preserve_unit_iters=False)
        assert s_tir.analysis.verify_well_formed(sch.mod, assert_mode=False) != fused
