"""TVM 0.27 schedule primitives that make kernels access memory out of bounds: found statically by
Z3 (bounds_safe_z3), each with a witness replayed concretely.

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
"""

from __future__ import annotations

import re

import passcheck.properties.tir_generic as G
from tvm_bug_repros import case_of, example_case, known_violation, tensorize_steps

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

CONV_PADDED = PrimFuncSpec("conv2d", (1, 3, 6, 10), (("out_channels", 3), ("kernel", (2, 3)), ("stride", (1, 3)),
                                                    ("dilation", (2, 2)), ("padding", (2, 0))), "int64",
                           prologue=True, seed=1)


def test_cache_read_after_compute_at_drops_the_predicate() -> None:
    """compute_at gives `pre` the predicate 2 <= y < 8 (rows outside are padding). cache_read of
    `pad`'s input then adds a copy block `pre_global` under the same loop *without* that
    predicate: at y = 0 it copies row y - 2 = -2 of the compacted buffer."""
    case = case_of("cache_read", CONV_PADDED,
                   Step("compute_at", "pre", (6,), (("target", "pad"), ("preserve_unit_loops", True), ("index", -1))),
                   Step("cache_read", "pad", (), (("buffer", 0), ("scope", "global"))), prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "pre_global[" in msg and "evaluates to -2" in msg and "y=0" in msg


def test_split_tail_index_wraps_in_int32_near_the_largest_extent() -> None:
    """A symbolic int32 extent: split(i, [None, 3]) of n + 1 iterations computes i_0 * 3 + i_1
    up to 3 * ceil((n + 1) / 3) - 1, which for n + 1 = 2**31 - 1 (a legal int32-indexed
    buffer) exceeds INT32_MAX and wraps to -2**31; the tail guard `i_0 * 3 + i_1 < n + 1`
    wraps too and lets the access through. Index arithmetic is not widened to int64."""
    spec = PrimFuncSpec("pad", (1,), (("pads", ((0, 1),)),), "int32", symbolic=True)
    case = case_of("split", spec, Step("split", "pad", (0,), (("factors", (None, 3)), ("preserve_unit_iters", False))))
    msg = known_violation(G.bounds_safe_z3, case)
    assert "evaluates to -2147483648" in msg and re.search(r"n=214748364[56]\b", msg)
    # cache_shared's split and a cache computed at its outer loop (`cache_shared --examples 500`,
    # seed 7): the same wrap runs pad's instances at v_i0 = -2**31 (outside its domain, its region),
    # and the cache's extent needs a literal 2**31 that lowering rejects
    from known_bug_check import assert_recognised

    spec = PrimFuncSpec("pad", (1,), (("pads", ((1, 0),)),), "int32", symbolic=True)
    ex = ScheduleExample(spec, (Step("cache_shared", "pad", (3,), (("buffer", 2), ("threads", 3),
                                                                   ("cooperative", False))),))
    for prop in ("block_instances_within_domain", "block_access_region_contained", "well_formed_before_after"):
        assert_recognised("cache_shared", prop, ex, "test_split_tail_index_wraps_in_int32_near_the_largest_extent",
                          ir="tir")


def test_read_at_copies_the_unguarded_region() -> None:
    """read_at of the padded read of X copies X rows -2..: the copy ignores the if_then_else."""
    spec = PrimFuncSpec("pool", (1, 5, 3, 8), (("op", "avg"), ("kernel", (3, 2)), ("stride", (1, 2)),
                                               ("padding", (2, 0))), "int64", epilogue=True, seed=1,
                        epilogue_op="clip")
    case = case_of("read_at", spec, Step("read_at", "pad", (1,), (("buffer", 0), ("scope", "global"))))
    msg = known_violation(G.bounds_safe_z3, case)
    assert "load X[" in msg and "evaluates to -2" in msg


def test_rfactor_after_a_non_dividing_split_drops_the_predicate() -> None:
    """split(i, [2, None]) of 5 iterations runs 6 guarded by i < 5; rfactor's write-back block
    loses that guard and stores red[5]."""
    spec = PrimFuncSpec("reduce", (5, 6), (("axes", (1,)), ("op", "sum")), "int32")
    case = case_of("rfactor", spec, Step("split", "red", (0,), (("factors", (2, None)),)),
                   Step("rfactor", "red", (2,), (("factor_axis", 0),)), prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "store red[i0_0 * 3 + i0_1]" in msg and "evaluates to 5, outside [0, 5)" in msg
    # cross_thread_reduction(rfactor=True) calls rfactor: after a non-dividing split the same
    # (`cross_thread_reduction --examples 500`, seed 7)
    from known_bug_check import assert_recognised

    spec = PrimFuncSpec("conv2d", (1, 1, 1, 1), (("out_channels", 4), ("kernel", (1, 2)), ("stride", (3, 1)),
                                                 ("dilation", (2, 1)), ("padding", (1, 2))), "int64")
    ex = ScheduleExample(spec, (Step("split", "conv", (2,), (("factors", (16, None)), ("preserve_unit_iters", True),
                                                            ("factors_as", "expr"))),
                                Step("cross_thread_reduction", "conv", (7,), (("threads", 1024), ("rfactor", True)))),
                         prefix=1)
    assert_recognised("cross_thread_reduction", "bounds_safe_z3", ex,
                      "test_rfactor_after_a_non_dividing_split_drops_the_predicate", ir="tir")


def test_decompose_reduction_init_block_loses_the_split_predicate() -> None:
    """split(j, [4, 16, None], preserve_unit_iters=False) of 9 columns, then decompose_reduction
    at j_1: the init block loops j_1_init over 16 without the guard and writes matmul[i, 9..]."""
    spec = PrimFuncSpec("matmul", (17, 11), (("n", 9),), "int32", prologue=True, epilogue=True)
    case = case_of("decompose_reduction", spec,
                   Step("split", "matmul", (1,), (("factors", (4, 16, None)), ("preserve_unit_iters", False))),
                   Step("decompose_reduction", "matmul", (2,)), prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "store matmul[i, j_0 * 16 + j_1_init]" in msg and "outside [0, 9)" in msg


def test_blockize_drops_the_predicate_of_the_loop_it_wraps() -> None:
    """split of a unit loop by 7 (preserve_unit_iters=False) leaves i1_1 in [0, 7) guarded by
    i1_1 < 1; blockize of i1_1 moves the block under a new outer block without that guard."""
    spec = PrimFuncSpec("elementwise", (3, 1), (("depth", 1),), "int32", prologue=True)
    case = case_of("blockize", spec,
                   Step("split", "pre", (1,), (("factors", (None, 7)), ("preserve_unit_iters", False))),
                   Step("blockize", "pre", (2,), (("preserve_unit_iters", False),)), prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "load X[i0, i1_1]" in msg and "outside [0, 1)" in msg


def test_write_at_write_back_drops_the_split_predicate() -> None:
    """write_at under a non-dividing split: the copy back to the output runs at i = 5 too,
    writing past the end of the output parameter (heap corruption if executed)."""
    spec = PrimFuncSpec("elementwise", (5,), (("depth", 2),), "int32")
    case = case_of("write_at", spec, Step("split", "ew1", (0,), (("factors", (2, None)),)),
                   Step("write_at", "ew1", (1,), (("buffer", 0), ("scope", "global"))), prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "store ew1[i0_0 * 3 + i0_1]" in msg and "i0_0=1, i0_1=2" in msg
    # Found by the write_at campaign at 500 (seed 7): a local cache under compute_at is compacted to
    # the split's tile of 5 rows, so the copy of row 9 of 9 stays in bounds and reads the cache's
    # element that the predicated-off producer instance never wrote.
    spec = PrimFuncSpec("transpose", (1, 9), (("perm", (1, 0)),), "int64", epilogue=True, epilogue_op="clip")
    case = case_of("schedule", spec, Step("split", "post", (6,), (("factors", (None, 5)),)),
                   Step("compute_at", "transpose", (0,), (("target", "post"), ("preserve_unit_loops", False),
                                                          ("index", -1))),
                   Step("write_at", "transpose", (5,), (("buffer", 0), ("scope", "local"))), prefix=2)
    msg = known_violation(G.reads_initialised, case)
    assert "reads transpose_local" in msg and "i0_0=1, ax0=4" in msg


def test_reindex_cache_read_copies_the_unguarded_region_of_a_padded_read() -> None:
    """Found by the 2,000-example reindex_cache_read campaign (in 291 of its examples): `pad`
    reads X[i] under `if_then_else(i < n, ...)` for i in [0, n + 1); the cache block copies
    X[i] for every i, guard dropped, so it loads X[n] (Z3 witness, confirmed concretely)."""
    spec = PrimFuncSpec("pad", (1,), (("pads", ((0, 1),)),), "int32", symbolic=True)
    case = case_of("reindex_cache_read", spec, Step("reindex_cache_read", "pad", (), (
        ("buffer", 0), ("scope", "global"), ("perm", (0, 1)))))
    msg = known_violation(G.bounds_safe_z3, case)
    assert re.search(r"load X\[\w+\] \(shape \[n\]\): index 0 evaluates to (\d+), outside \[0, \1\)", msg), msg
    # The reindex campaign found the same for reindex of the read.
    case = case_of("reindex", spec, Step("reindex", "pad", (), (("kind", "read"), ("buffer", 0))))
    msg = known_violation(G.bounds_safe_z3, case)
    assert re.search(r"load X\[\w+\] \(shape \[n\]\): index 0 evaluates to (\d+), outside \[0, \1\)", msg), msg
    # The same read given by the buffer's name, or its Var (the other forms reindex accepts).
    for form in ("name", "var"):
        case = case_of("reindex", spec, Step("reindex", "pad", (), (("kind", "read"), ("buffer", 0),
                                                                    ("buffer_as", form))))
        assert "index 0 evaluates to" in known_violation(G.bounds_safe_z3, case)


def test_reindex_cache_write_after_a_non_dividing_split_drops_the_predicate() -> None:
    """Found by the 2,000-example reindex_cache_write campaign: split(i, [1, 2]) of a 1-element
    loop runs i0_1 in [0, 2) guarded by i0_1 < 1; the write-back block of the cache loses that
    guard and stores ew0[1] of 1."""
    spec = PrimFuncSpec("elementwise", (1,), (("depth", 1),), "int32")
    case = case_of("reindex_cache_write", spec,
                   Step("split", "ew0", (0,), (("factors", (1, 2)), ("preserve_unit_iters", False))),
                   Step("reindex_cache_write", "ew0", (), (("buffer", 0), ("scope", "global"), ("perm", (0, 1)))),
                   prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "store ew0[" in msg and "index 0 evaluates to 1, outside [0, 1)" in msg, msg


def test_tensorize_drops_the_predicate_of_a_split_unit_loop() -> None:
    """Found by the tensorize campaign. A 1-row matmul whose row loop is split by 3 runs
    i_1 in [0, 3) guarded by i_1 < 1; tensorize with preserve_unit_iters=False accepts it and
    drops the guard, so the kernel writes rows 1 and 2 of a 1-row output (Z3 witness, replayed).
    Likewise a 1-long reduction split by 2: the dot product reads X[i, 1] of 1 column. With
    preserve_unit_iters=True TVM raises the InternalError above or refuses instead."""
    case = case_of("tensorize", PrimFuncSpec("matmul", (1, 3), (("n", 3),), "int32"),
                   *tensorize_steps(3, 3, keep=False), prefix=3)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "store matmul[i_1, j] (shape [1, 3]): index 0 evaluates to" in msg, msg
    case = case_of("tensorize", PrimFuncSpec("matmul", (16, 1), (("n", 3),), "int32"),
                   *tensorize_steps(2, 2, keep=False), prefix=3)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "load X[i_0 * 2 + i_1, r] (shape [16, 1]): index 1 evaluates to 1, outside [0, 1)" in msg, msg


def test_pad_einsum_after_compute_at_stores_out_of_bounds() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(3, 2), attrs=(("n", 1),), index_dtype="int32",
                                           symbolic=True, epilogue=True),
                         steps=(Step("compute_at", "matmul", (1,), (("target", "post"), ("preserve_unit_loops", False),
                                                                   ("index", -1))),
                                Step("pad_einsum", "matmul", (), (("padding", (2, 1, 2)),))), prefix=1)
    msg = known_violation(G.bounds_safe_z3, example_case("pad_einsum", ex))
    assert "store post[" in msg and "outside [0, n)" not in msg, msg
    # The same through write_at (found by `schedule --target cuda:sm_90`, after an rfactor): its
    # write-back block sits in the row loop pad_einsum pads from 7 to 8 rows, and copies row 7
    # of the padded buffer into the 7-row output.
    spec = PrimFuncSpec("elementwise", (7, 7), (("depth", 1),), "int32")
    case = case_of("pad_einsum", spec, Step("write_at", "ew0", (0,), (("buffer", 0), ("scope", "global"))),
                   Step("pad_einsum", "ew0", (), (("padding", (2, 1)),)), prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "store ew0[i0, ax1] (shape [7, 7]): index 0 evaluates to 7, outside [0, 7), at i0=7" in msg, msg


def test_cache_read_of_a_blockized_padding_copies_the_unguarded_region() -> None:
    """Found by the 2,000-example cache_read campaign (all 13 of its out-of-bounds examples):
    after `pad` is blockized, its outer block declares the unclipped window of `pre` as its read
    region, and cache_read copies that region, guard dropped: it loads pre[..., -1]."""
    spec = PrimFuncSpec("conv2d", (1, 3, 13, 7), (("out_channels", 3), ("kernel", (3, 1)), ("stride", (1, 1)),
                                                  ("dilation", (2, 2)), ("padding", (0, 1))), "int32",
                        prologue=True, epilogue=True, epilogue_op="bias")
    case = case_of("cache_read", spec, Step("blockize", "pad", (2,), (("preserve_unit_iters", True),)),
                   Step("cache_read", "pad", (), (("buffer", 0), ("scope", "local"))), prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "load pre[0, ch, ax2, ax3 - 1] (shape [1, 3, 13, 7]): index 3 evaluates to -1, outside [0, 7)" in msg, msg


def test_reindex_cache_read_after_a_non_dividing_split_drops_the_predicate() -> None:
    """Same campaign, the split-predicate twin of the padded read: `post`'s rows split by
    [3, 5, None] run 15 rows guarded by i < 2, and the cache copy reads matmul[10, i1] of 2 rows."""
    spec = PrimFuncSpec("matmul", (2, 2), (("n", 2),), "int32", prologue=True, epilogue=True, epilogue_op="clip")
    case = case_of("reindex_cache_read", spec,
                   Step("split", "post", (4,), (("factors", (3, 5, None)), ("preserve_unit_iters", True))),
                   Step("reindex_cache_read", "post", (), (("buffer", 1), ("scope", "local"), ("perm", (0, 1)))),
                   prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "load matmul[i0_0 * 5 + i0_1, i1] (shape [2, 2]): index 0 evaluates to" in msg, msg


def test_fuse_reduction_epilogue_of_pad_einsums_copy_back_writes_past_the_output() -> None:
    """Found by `schedule --examples 2000` (seed 11). pad_einsum pads a 3 x 5 sum to 4 x 8 and
    adds `red_pad`, which copies the 4 padded rows back into the 3 of `red`; that copy is an
    epilogue fuse_reduction_epilogue accepts, and the fused reduction then writes `red[v_i0]`
    for v_i0 in [0, 4): red[3] is past the buffer."""
    from known_bug_check import assert_recognised

    spec = PrimFuncSpec("reduce", (3, 5), (("axes", (1,)), ("op", "sum")), "int32", epilogue=True)
    pad = Step("pad_einsum", "red", (), (("padding", (4, 8)),))
    ex = ScheduleExample(spec, (pad, Step("fuse_reduction_epilogue", "red", (), (("epilogue", "red>0"),))))
    msg = assert_recognised("schedule", "bounds_safe_z3", ex,
                            "test_fuse_reduction_epilogue_of_pad_einsums_copy_back_writes_past_the_output", ir="tir")
    assert "store red[i0] (shape [3]): index 0 evaluates to 3" in msg
    G.bounds_safe_z3(example_case("schedule", ScheduleExample(spec, (pad,))))  # the padding alone is safe


def test_reverse_compute_at_under_a_split_of_a_fused_loop_drops_the_predicate() -> None:
    """Found by `cache_local --examples 500` (seed 7). A 10 x 8 nest fused (80) and split [None,
    256]; the cache_write block of the nest moved under the inner loop by reverse_compute_at gets
    `v1 = T.axis.spatial(32, i // 8)` and no `T.where`: it stores rows 10..31 of a 10-row buffer.
    The same steps without the fuse keep the predicate (`T.where(i1_1 < 10)`)."""
    import tvm
    from known_bug_check import assert_recognised

    from passcheck.tir.kernels import build_primfunc

    spec = PrimFuncSpec("reshape", (8, 10, 8), (("out_shape", (16, 10, 4)),), "int32", prologue=True, epilogue=True)
    ex = ScheduleExample(spec, (Step("fuse", "pre", (1,), (("count", 2), ("preserve_unit_iters", True))),
                                Step("cache_local", "pre", (1,), (("threads", 256),))), prefix=1)
    msg = assert_recognised("cache_local", "bounds_safe_z3", ex,
                            "test_reverse_compute_at_under_a_split_of_a_fused_loop_drops_the_predicate", ir="tir")
    assert "index 1 evaluates to" in msg
    for fused in (True, False):
        sch = tvm.s_tir.Schedule(tvm.IRModule({"main": build_primfunc(PrimFuncSpec("elementwise", (3, 10, 8),
                                                                                    (("depth", 2),), "int32"))}))
        loops = sch.get_loops(sch.get_sblock("ew0"))
        loop = sch.fuse(loops[1], loops[2]) if fused else loops[1]
        _, inner = sch.split(loop, [None, 256 if fused else 16])
        sch.reverse_compute_at(sch.cache_write(sch.get_sblock("ew0"), 0, "local"), inner)
        write_back = sch.get(sch.get_sblock("ew0_local"))
        assert (str(write_back.iter_vars[1].dom.extent) == "32") == fused


def test_pad_einsum_of_a_loop_partition_piece_stores_past_the_buffer() -> None:
    """Found by `schedule --examples 2000` (seed 5077). loop_partition [1, None, 1] of a 3-long
    loop leaves the piece `for i02 in range(2, 3)` whose block binds `T.axis.spatial((2, 3), i02)`.
    pad_einsum of that block to 8 pads the domain to (2, 10) -- an extent of 8 from a min of 2 --
    but, the block's buffers being the parameters themselves, adds no padded copies and no guard:
    it loads ew1[9] and stores ew2[9] of 3-element buffers. (The whole loop, padded alike, is
    given padded buffers.)"""
    spec = PrimFuncSpec("elementwise", (3,), (("depth", 3),), "int32")
    case = case_of("pad_einsum", spec, Step("loop_partition", "ew2", (5,), (("factors", (1, None, 1)),
                                                                           ("preserve_unit_iters", False))),
                   Step("pad_einsum", "ew2%2", (), (("padding", (8,)),)), prefix=1)
    msg = known_violation(G.bounds_safe_z3, case)
    assert "store ew2[" in msg and "outside [0, 3)" in msg, msg


def test_fuse_reduction_epilogue_indexes_the_init_in_block_iterator_order() -> None:
    """Found by `schedule --examples 2000` (seed 5077). rfactor with factor_axis=-1 makes a block
    whose iterators are (vk0, v_i0) and whose store is red_rf[v_i0, vk0]; its write cached, then
    the cache's copy-back fused in as the epilogue: the update still stores red_rf[v_i0, vk0] but
    the new init stores red_rf[vk0, v_i0] -- the iterators in block order -- which for the
    (2, 1) buffer is row 0, column 1."""
    spec = PrimFuncSpec("reduce", (1, 1, 2), (("axes", (0, 1)), ("op", "sum")), "int32")
    case = case_of("fuse_reduction_epilogue", spec, Step("rfactor", "red", (1,), (("factor_axis", -1),)),
                   Step("cache_write", "red+rf", (), (("buffer", 0), ("scope", "global"))),
                   Step("fuse_reduction_epilogue", "red+rf", (), (("epilogue", "red+rf>0"),)), prefix=2)
    after = case.after.script()
    assert "red_rf[vk0, v_i0] = T.float32(0.0)" in after and "red_rf[v_i0, vk0] = red_rf[v_i0, vk0] +" in after
    msg = known_violation(G.bounds_safe_z3, case)
    assert "store red.rf[0, i0] (shape [2, 1])" in msg and "outside [0, 1)" in msg, msg
