"""Expected findings: real bugs of TVM 0.27's schedule primitives that passcheck found.

Each test keeps a minimal repro (a PrimFunc spec plus the schedule steps, as the runner prints
them) and asserts that the bug is still there *and* that the right passcheck property reports
it. When a TVM upgrade fixes one, its test fails on purpose: turn it into a regression test.
Crashing repros run in a child process.

| primitive | property | what goes wrong |
|---|---|---|
| cache_read (after compute_at) | bounds_safe_z3 | the cache block drops the producer's predicate: reads/writes at index -2 |
| split (symbolic int32 extent) | bounds_safe_z3 | tail index wraps past INT32_MAX when n + 1 = 2**31 - 1; the guard wraps too |
| read_at | bounds_safe_z3 | copies the unguarded region of a padded read: loads X[-2] |
| reindex_cache_read, reindex | bounds_safe_z3 | same: the copy of a padded read loads X[n] |
| blockize (of a predicated loop) | bounds_safe_z3 | the wrapped block loses its predicate: reads X[i, 1..6] of X[:, 0:1] |
| tensorize (preserve_unit_iters=False, after a non-dividing split of a unit loop) | bounds_safe_z3 | drops the predicate: stores matmul[2, j] of 1 row, loads X[i, 1] of 1 column |
| write_at (after a non-dividing split) | bounds_safe_z3 | the write-back drops the split predicate: stores ew1[5] of 5 |
| reindex_cache_write (after a non-dividing split) | bounds_safe_z3 | same: stores ew0[1] of 1 |
| rfactor (after a non-dividing split) | bounds_safe_z3 | the write-back block drops the split predicate: stores red[5] of 5 |
| decompose_reduction (after split, preserve_unit_iters=False) | bounds_safe_z3 | the init block drops the split predicate |
| reverse_compute_at (padding consumer) | block_instances_exactly_once | the padding rows are never computed |
| reverse_compute_at (under a fused loop) | block_instances_exactly_once, exec | the pooling window's reduction loops shrink to extent 1 |
| reverse_compute_at (reshape consumer) | block_instances_exactly_once | half the consumer's instances are never computed |
| vectorize | equivalent_by_execution | a compacted 1-element intermediate inside the vectorized loop is shared by all lanes |
| reindex (after reverse_compute_at or compute_at) | equivalent_by_execution | the copy-back runs after the consumer already read the buffer |
| reindex (after reverse_compute_at) | transformation_does_not_raise | InternalError "outer->body.get() == inner" |
| write_at (after decompose_reduction) | equivalent_by_execution | the init block still writes the original buffer; the cache accumulates garbage |
| cache_write (of a blockized reduction) | equivalent_by_execution | same: the outer block's init misses the cache |
| rfactor (after a non-dividing split) | equivalent_by_execution | the write-back also sums the partials of the predicated-off lanes (uninitialised) |
| write_at (of a blockized reduction) | equivalent_by_execution | the init stays on the original buffer (like cache_write) |
| write_at (after reverse_compute_at + cache_read) | well_formed_before_after | lowering: InternalError "block->writes.size() == 1" |
| fuse_reduction_epilogue (softmax; after blockize) | transformation_does_not_raise | ValueError on iterator counts; InternalError "Expect StmtSRef ... higher" |
| decompose_padding (after compute_at) | equivalent_by_execution, transformation_does_not_raise | the in-bound copy reads `pre` before it is computed; InternalError "in_bound_filling_pos" |
| annotate_buffer_access (after compute_at, widened) | equivalent_by_execution | the build fails "cannot make uint from negative value" |
| fuse_reduction_epilogue | equivalent_by_execution | folds a bias epilogue into a *max* reduction's init |
| pad_einsum | equivalent_by_execution | accepts a max reduction and pads it with zeros |
| pad_einsum (after reverse_compute_at / compute_at) | block_instances_within_domain, bounds_safe_z3 | pads loops it shares with another block, which then runs (and stores) out of its domain |
| loop_partition (factors short of the extent) | equivalent_by_execution, well_formed_before_after | accepted; the uncovered iterations are dropped (or the IR is ill-formed) |
| blockize (of a split unit loop) | well_formed_before_after | verify_well_formed rejects it; the build fails "used before definition" |
| decompose_reduction (after split + compute_at, symbolic) | equivalent_by_execution | the build fails "cannot make uint from negative value" |
| bind (reduction loop to threadIdx.x) | well_formed_before_after | accepted; the cross-thread reduction lowering rejects it |
| merge | equivalent_by_execution | merges a consumer's loop into an earlier producer's nest, before its input exists |
| loop_partition | crash | SIGSEGV on a loop holding two blocks |
| merge | crash | SIGSEGV when a loop is merged with itself |
| cache_index | transformation_does_not_raise | InternalError "empty SeqStmt" on a block with nothing to cache |
| cache_index (int64, symbolic extent) | transformation_does_not_raise | InternalError "CanProve(range.min() >= INT64_MIN ...)" |
| cache_index (symbolic pad) | transformation_does_not_raise | KeyError "key is not in Map"; InternalError "loop_var.ty() == extent.ty()" |
| cache_inplace (after decompose_reduction) | well_formed_before_after | the copy blocks use the update block's iterators outside it |
| cache_index (int64) | well_formed_before_after | the index block mixes int32 and int64: lowering raises "mismatched types" |
| tensorize (under a split predicate) | transformation_does_not_raise | InternalError "comparator.rhs_buffer_map_.count(desc)" |
| reverse_compute_inline (after blockize) | transformation_does_not_raise | InternalError `unordered_map::at` |
| reverse_compute_at (bad index) | transformation_does_not_raise | InternalError "Valid index" for an out-of-range index |
| read_at / write_at | transformation_does_not_raise | KeyError "key is not in Map" (a reduction's accumulator; a symbolic transpose) |
| read_at / write_at (after decompose_reduction / compute_at) | transformation_does_not_raise | InternalError on the order of reads and writes |
| rfactor (after reorder + compute_at) | transformation_does_not_raise | InternalError "block_realize == old_block_realize_" |
| annotate_buffer_access | transformation_does_not_raise | ValueError unless the buffer has as many dims as the block has iterators |
| vectorize (symbolic extent) | equivalent_by_execution | accepted by the schedule, then the build fails |
| transform_layout (pad_value, after blockize) | well_formed_before_after | the padded producer block uses undefined vars |
| cache_read / cache_write (of an accumulator, after two blockizes) | well_formed_before_after | the dead cache copy's buffer is allocated where lowering rejects it |
| rolling_buffer (int64 indices) | transformation_does_not_raise | TypeError "mismatched types. int64 vs. int32" on every int64 kernel |
| unroll (symbolic extent) | equivalent_by_execution | accepted by the schedule, then the build fails |
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from typing import Any

import pytest

import properties.tir_generic as G
import properties.tir_schedule as S
from passcheck.errors import Violation
from passcheck.generators.primfuncs import PrimFuncSpec
from passcheck.generators.schedules import ScheduleExample, Step  # noqa: F401 - ScheduleExample in repros
from passcheck.registry.subject import Options
from passcheck.registry.tir_subjects import TIR_SUBJECTS

OPTS = Options()


def case_of(subject: str, spec: PrimFuncSpec, *steps: Step, prefix: int = 0) -> Any:
    return TIR_SUBJECTS[subject].make_case(ScheduleExample(spec, steps, prefix), None, OPTS)


def violation(prop: Any, case: Any) -> str:
    with pytest.raises(Violation) as e:
        prop(case)
    return str(e.value)


def rca(block: str, loop: int, target: str) -> Step:
    return Step("reverse_compute_at", block, (loop,), (("target", target), ("preserve_unit_loops", False), ("index", -1)))


# --- memory safety, found statically by Z3 -----------------------------------------------------

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
    msg = violation(G.bounds_safe_z3, case)
    assert "pre_global[" in msg and "evaluates to -2" in msg and "y=0" in msg


def test_split_tail_index_wraps_in_int32_near_the_largest_extent() -> None:
    """A symbolic int32 extent: split(i, [None, 3]) of n + 1 iterations computes i_0 * 3 + i_1
    up to 3 * ceil((n + 1) / 3) - 1, which for n + 1 = 2**31 - 1 (a legal int32-indexed
    buffer) exceeds INT32_MAX and wraps to -2**31; the tail guard `i_0 * 3 + i_1 < n + 1`
    wraps too and lets the access through. Index arithmetic is not widened to int64."""
    spec = PrimFuncSpec("pad", (1,), (("pads", ((0, 1),)),), "int32", symbolic=True)
    case = case_of("split", spec, Step("split", "pad", (0,), (("factors", (None, 3)), ("preserve_unit_iters", False))))
    msg = violation(G.bounds_safe_z3, case)
    assert "evaluates to -2147483648" in msg and re.search(r"n=214748364[56]\b", msg)


def test_read_at_copies_the_unguarded_region() -> None:
    """read_at of the padded read of X copies X rows -2..: the copy ignores the if_then_else."""
    spec = PrimFuncSpec("pool", (1, 5, 3, 8), (("op", "avg"), ("kernel", (3, 2)), ("stride", (1, 2)),
                                               ("padding", (2, 0))), "int64", epilogue=True, seed=1,
                        epilogue_op="clip")
    case = case_of("read_at", spec, Step("read_at", "pad", (1,), (("buffer", 0), ("scope", "global"))))
    msg = violation(G.bounds_safe_z3, case)
    assert "load X[" in msg and "evaluates to -2" in msg


def test_rfactor_after_a_non_dividing_split_drops_the_predicate() -> None:
    """split(i, [2, None]) of 5 iterations runs 6 guarded by i < 5; rfactor's write-back block
    loses that guard and stores red[5]."""
    spec = PrimFuncSpec("reduce", (5, 6), (("axes", (1,)), ("op", "sum")), "int32")
    case = case_of("rfactor", spec, Step("split", "red", (0,), (("factors", (2, None)),)),
                   Step("rfactor", "red", (2,), (("factor_axis", 0),)), prefix=1)
    msg = violation(G.bounds_safe_z3, case)
    assert "store red[i0_0 * 3 + i0_1]" in msg and "evaluates to 5, outside [0, 5)" in msg


def test_decompose_reduction_init_block_loses_the_split_predicate() -> None:
    """split(j, [4, 16, None], preserve_unit_iters=False) of 9 columns, then decompose_reduction
    at j_1: the init block loops j_1_init over 16 without the guard and writes matmul[i, 9..]."""
    spec = PrimFuncSpec("matmul", (17, 11), (("n", 9),), "int32", prologue=True, epilogue=True)
    case = case_of("decompose_reduction", spec,
                   Step("split", "matmul", (1,), (("factors", (4, 16, None)), ("preserve_unit_iters", False))),
                   Step("decompose_reduction", "matmul", (2,)), prefix=1)
    msg = violation(G.bounds_safe_z3, case)
    assert "store matmul[i, j_0 * 16 + j_1_init]" in msg and "outside [0, 9)" in msg


def test_blockize_drops_the_predicate_of_the_loop_it_wraps() -> None:
    """split of a unit loop by 7 (preserve_unit_iters=False) leaves i1_1 in [0, 7) guarded by
    i1_1 < 1; blockize of i1_1 moves the block under a new outer block without that guard."""
    spec = PrimFuncSpec("elementwise", (3, 1), (("depth", 1),), "int32", prologue=True)
    case = case_of("blockize", spec,
                   Step("split", "pre", (1,), (("factors", (None, 7)), ("preserve_unit_iters", False))),
                   Step("blockize", "pre", (2,), (("preserve_unit_iters", False),)), prefix=1)
    msg = violation(G.bounds_safe_z3, case)
    assert "load X[i0, i1_1]" in msg and "outside [0, 1)" in msg


def test_write_at_write_back_drops_the_split_predicate() -> None:
    """write_at under a non-dividing split: the copy back to the output runs at i = 5 too,
    writing past the end of the output parameter (heap corruption if executed)."""
    spec = PrimFuncSpec("elementwise", (5,), (("depth", 2),), "int32")
    case = case_of("write_at", spec, Step("split", "ew1", (0,), (("factors", (2, None)),)),
                   Step("write_at", "ew1", (1,), (("buffer", 0), ("scope", "global"))), prefix=1)
    msg = violation(G.bounds_safe_z3, case)
    assert "store ew1[i0_0 * 3 + i0_1]" in msg and "i0_0=1, i0_1=2" in msg


# --- wrong results ------------------------------------------------------------------------------


def test_reverse_compute_at_skips_padding_rows() -> None:
    """`pad` (a consumer of `pre`) moved under `pre`'s row loop computes only the rows that
    depend on `pre`; the zero rows of the padding are never written."""
    spec = PrimFuncSpec("pool", (2, 2, 13, 10), (("op", "avg"), ("kernel", (3, 1)), ("stride", (1, 2)),
                                                ("padding", (1, 0))), "int32", prologue=True, seed=2)
    case = case_of("reverse_compute_at", spec, rca("pad", 2, "pre"))
    assert "80 of 600 instances are never executed" in violation(S.block_instances_exactly_once, case)
    # The unwritten rows are read uninitialized: whether execution notices depends on what the
    # allocator hands out (often zeros, the right padding value), so only the domain check is
    # deterministic here.


def test_reverse_compute_at_under_a_fused_loop_shrinks_the_reduction_window() -> None:
    """max_pool 2x2 moved under the producer's fused (batch, channel) loop: the regenerated
    reduction loops have extent 1, so each window keeps only its first element."""
    spec = PrimFuncSpec("pool", (1, 5, 5, 5), (("op", "max"), ("kernel", (2, 2)), ("stride", (2, 2)),
                                               ("padding", (0, 0))), "int32", prologue=True, seed=2)
    case = case_of("reverse_compute_at", spec, Step("fuse", "pre", (0,), (("count", 2), ("preserve_unit_iters", True))),
                   Step("reverse_compute_at", "pool", (0,), (("target", "pre"), ("preserve_unit_loops", True),
                                                             ("index", -1))), prefix=1)
    assert "60 of 80 instances are never executed" in violation(S.block_instances_exactly_once, case)
    assert "computes different values" in violation(G.equivalent_by_execution, case)


BCAST4 = PrimFuncSpec("broadcast", (4,), (("bdims", (False,)),), "int32", epilogue=True, seed=0)


def test_vectorize_shares_a_compacted_intermediate_between_lanes() -> None:
    case = case_of("vectorize", BCAST4, rca("post", 0, "bcast"), Step("vectorize", "post", (0,)), prefix=1)
    G.bounds_safe_z3(case)
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_reindex_write_after_reverse_compute_at_copies_back_too_late() -> None:
    case = case_of("reindex", BCAST4, rca("post", 0, "bcast"),
                   Step("reindex", "bcast", (), (("kind", "write"), ("buffer", 0))), prefix=1)
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_write_at_after_decompose_reduction_leaves_the_init_behind() -> None:
    spec = PrimFuncSpec("matmul", (5, 4), (("n", 3),), "int32", seed=2)
    case = case_of("write_at", spec, Step("decompose_reduction", "matmul", (2,)),
                   Step("write_at", "matmul", (2,), (("buffer", 0), ("scope", "local"))), prefix=1)
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_cache_write_of_a_blockized_reduction_leaves_the_init_behind() -> None:
    """blockize of the reduction loop, then cache_write of the inner block: the outer block's
    init still zeroes the original buffer, the inner block accumulates into the fresh (never
    initialized) cache, which is copied back."""
    spec = PrimFuncSpec("legalized", (13, 7), (("op", "sum"), ("axes", (1,))), "int64")
    case = case_of("cache_write", spec, Step("blockize", "x_red", (1,), (("preserve_unit_iters", True),)),
                   Step("cache_write", "x_red", (), (("buffer", 0), ("scope", "global"))), prefix=1)
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_fuse_reduction_epilogue_folds_a_bias_into_a_max_reduction() -> None:
    """The Bias pattern (`out = red + b`) is exact for a sum: the bias becomes the init. For a
    max reduction it is not (max(b, x...) != max(x...) + b), yet the primitive accepts it."""
    spec = PrimFuncSpec("pool", (1, 4, 9, 6), (("op", "max"), ("kernel", (3, 1)), ("stride", (2, 2)),
                                               ("padding", (2, 0))), "int64", epilogue=True, epilogue_op="bias", seed=3)
    case = case_of("fuse_reduction_epilogue", spec, Step("fuse_reduction_epilogue", "pool", (), (("epilogue", "post"),)))
    assert "computes different values" in violation(G.equivalent_by_execution, case)
    # The same bias on a sum stays exact.
    mm = PrimFuncSpec("matmul", (3, 4), (("n", 2),), "int32", epilogue=True, seed=2, epilogue_op="bias")
    G.equivalent_by_execution(case_of("fuse_reduction_epilogue", mm,
                                      Step("fuse_reduction_epilogue", "matmul", (), (("epilogue", "post"),))))


def test_merge_ignores_producer_consumer_order() -> None:
    """merge of the consumer's outer loop with an earlier producer's puts the consumer first:
    `post` reads `ew1` before the (later) nest that computes it."""
    spec = PrimFuncSpec("elementwise", (3, 3, 8), (("depth", 2),), "int32", epilogue=True)
    case = case_of("merge", spec, Step("merge", "post", (0,), (("other", "ew0"),)))
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_pad_einsum_pads_a_max_reduction_with_zeros() -> None:
    """pad_einsum is for sum-of-products blocks, but accepts a max reduction and pads its
    reduction axis with 0: a window of negative values now has maximum 0."""
    spec = PrimFuncSpec("reduce", (13, 10, 3), (("axes", (2,)), ("op", "max")), "int32", seed=1)
    case = case_of("pad_einsum", spec, Step("pad_einsum", "red", (), (("padding", (2, 4, 8)),)))
    assert "computes different values" in violation(G.equivalent_by_execution, case)


# --- crashes (run in a child: they take the process down) ----------------------------------------


def _child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def test_loop_partition_segfaults_on_a_loop_with_two_blocks() -> None:
    r = _child("""
        from tvm import s_tir
        from passcheck.generators.primfuncs import PrimFuncSpec, build_primfunc
        sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("elementwise", (16, 2), (("depth", 2),), "int32")))
        sch.reverse_compute_at("ew1", sch.get_loops("ew0")[1])
        print("scheduled", flush=True)
        sch.loop_partition(sch.get_loops("ew0")[0], [None, 4])
        print("survived", flush=True)
    """)
    assert "scheduled" in r.stdout and "survived" not in r.stdout and r.returncode != 0


def test_merge_of_a_loop_with_itself_segfaults() -> None:
    r = _child("""
        from tvm import s_tir
        from passcheck.generators.primfuncs import PrimFuncSpec, build_primfunc
        sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("elementwise", (3,), (("depth", 1),), "int32")))
        loop = sch.get_loops("ew0")[0]
        print("scheduled", flush=True)
        sch.merge(loop, loop)
        print("survived", flush=True)
    """)
    assert "scheduled" in r.stdout and "survived" not in r.stdout and r.returncode != 0


# --- wrong exception types ------------------------------------------------------------------------


def test_reverse_compute_inline_after_blockize_fails_internally() -> None:
    spec = PrimFuncSpec("pool", (1, 1, 11, 8), (("op", "max"), ("kernel", (2, 3)), ("stride", (3, 2)),
                                               ("padding", (1, 1))), "int32", prologue=True, epilogue=True,
                        epilogue_op="bias")
    case = case_of("reverse_compute_inline", spec,
                   Step("blockize", "pool", (1,), (("preserve_unit_iters", False),)),
                   Step("reverse_compute_inline", "post"), prefix=1)
    assert "unordered_map::at" in violation(G.transformation_does_not_raise, case)


def test_cache_index_internal_error_when_nothing_to_cache() -> None:
    spec = PrimFuncSpec("elementwise", (4,), (("depth", 1),), "int32")
    case = case_of("cache_index", spec, Step("cache_index", "ew0", (), (("cse_thresh", 0),)))
    assert "InternalError" in violation(G.transformation_does_not_raise, case)


def test_annotate_buffer_access_rejects_a_buffer_of_fewer_dims_than_iterators() -> None:
    spec = PrimFuncSpec("matmul", (3, 4), (("n", 2),), "int32")
    case = case_of("annotate_buffer_access", spec, Step("annotate_buffer_access", "matmul", (),
                                                        (("buffer", 0), ("grow", 0))))
    assert "Number of iter_vars (3) must match" in violation(G.transformation_does_not_raise, case)


def test_vectorize_of_a_symbolic_loop_does_not_build() -> None:
    spec = PrimFuncSpec("elementwise", (5,), (("depth", 1),), "int32", symbolic=True)
    case = case_of("vectorize", spec, Step("vectorize", "ew0", (0,)))
    G.well_formed_before_after(case)
    G.bounds_safe_z3(case)
    assert "Failed to vectorize loop with extent n" in violation(G.equivalent_by_execution, case)


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
    assert "verify_well_formed rejects" in violation(G.well_formed_before_after, case)


def test_unroll_of_a_symbolic_loop_does_not_build() -> None:
    """Found by the 2,000-example unroll campaign (a sixth of its examples): the schedule accepts
    unroll on a loop of extent n, then the build fails "Cannot unroll non-constant loop"."""
    spec = PrimFuncSpec("elementwise", (5,), (("depth", 1),), "int32", symbolic=True)
    case = case_of("unroll", spec, Step("unroll", "ew0", (0,)))
    G.well_formed_before_after(case)
    G.bounds_safe_z3(case)
    assert "Cannot unroll non-constant loop" in violation(G.equivalent_by_execution, case)


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
    assert "is not in the block's signature" in violation(G.well_formed_before_after, case)
    # The cache_write campaign found the same with the cache on the write side.
    spec = PrimFuncSpec("matmul", (1, 1), (("n", 1),), "int32", symbolic=True, seed=883)
    case = case_of("cache_write", spec,
                   Step("blockize", "matmul", (3,), (("preserve_unit_iters", False),)),
                   Step("blockize", "matmul", (2,), (("preserve_unit_iters", False),)),
                   Step("cache_write", "matmul", (), (("buffer", 0), ("scope", "global"))), prefix=2)
    assert "is not in the block's signature" in violation(G.well_formed_before_after, case)


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
    assert "mismatched types. int64 vs. int32" in violation(G.transformation_does_not_raise, case)
    fine = case_of("rolling_buffer", PrimFuncSpec("pool", (1, 1, 3, 3), attrs, "int32", prologue=True), *steps,
                   prefix=1)
    G.transformation_does_not_raise(fine)
    G.bounds_safe_z3(fine)
    G.equivalent_by_execution(fine)


def test_reverse_compute_at_of_a_reshape_computes_half_the_consumer() -> None:
    """Found by the 2,000-example reverse_compute_at campaign. A reshape (3, 16) -> (4, 12) moved
    under its producer's row loop: the regenerated loops cover 2 rows and a column range of
    max(i0*4, (i0*16+3)%12) + 1 - min(...) per producer row, so 24 of the 48 reshape instances
    never run and the output reads uninitialised memory (nan in practice). Same with index -1
    or -2, with or without an epilogue."""
    spec = PrimFuncSpec("reshape", (3, 16), (("out_shape", (4, 12)),), "int32", prologue=True)
    case = case_of("reverse_compute_at", spec, rca("reshape", 0, "pre"))
    assert "24 of 48 instances are never executed" in violation(S.block_instances_exactly_once, case)


def test_reverse_compute_at_rejects_an_out_of_range_index_with_an_internal_error() -> None:
    """Found by the reverse_compute_at campaign: an `index` outside the valid insertion points
    should be a ScheduleError (a user's argument), not an InternalError."""
    spec = PrimFuncSpec("elementwise", (1,), (("depth", 1),), "int32", prologue=True)
    case = case_of("reverse_compute_at", spec, Step("reverse_compute_at", "ew0", (0,), (
        ("target", "pre"), ("preserve_unit_loops", False), ("index", 0))))
    assert "InternalError: Valid index:(-1, -2, [1, 1]), current index=0" in violation(
        G.transformation_does_not_raise, case)


PAD_INT64 = (("pads", ((1, 0),)),)


def test_cache_index_of_an_int64_kernel_with_a_symbolic_extent_fails_internally() -> None:
    """Found by the 2,000-example cache_index campaign (int64 indices are what LegalizeOps
    produces)."""
    spec = PrimFuncSpec("pad", (1,), PAD_INT64, "int64", symbolic=True)
    case = case_of("cache_index", spec, Step("cache_index", "pad", (), (("cse_thresh", 0),)))
    assert "InternalError: Check failed: (ana->CanProve(range.min() >=" in violation(
        G.transformation_does_not_raise, case)


def test_cache_index_of_an_int64_kernel_mixes_index_types() -> None:
    """Same campaign: on a constant-shape int64 kernel cache_index applies, but the IR it builds
    mixes int32 and int64 operands and lowering fails."""
    spec = PrimFuncSpec("pad", (1,), PAD_INT64, "int64")
    case = case_of("cache_index", spec, Step("cache_index", "pad", (), (("cse_thresh", 0),)))
    assert "mismatched types. int32 vs. int64" in violation(G.well_formed_before_after, case)


def test_reindex_cache_read_copies_the_unguarded_region_of_a_padded_read() -> None:
    """Found by the 2,000-example reindex_cache_read campaign (in 291 of its examples): `pad`
    reads X[i] under `if_then_else(i < n, ...)` for i in [0, n + 1); the cache block copies
    X[i] for every i, guard dropped, so it loads X[n] (Z3 witness, confirmed concretely)."""
    spec = PrimFuncSpec("pad", (1,), (("pads", ((0, 1),)),), "int32", symbolic=True)
    case = case_of("reindex_cache_read", spec, Step("reindex_cache_read", "pad", (), (
        ("buffer", 0), ("scope", "global"), ("perm", (0, 1)))))
    msg = violation(G.bounds_safe_z3, case)
    assert re.search(r"load X\[\w+\] \(shape \[n\]\): index 0 evaluates to (\d+), outside \[0, \1\)", msg), msg
    # The reindex campaign found the same for reindex of the read.
    case = case_of("reindex", spec, Step("reindex", "pad", (), (("kind", "read"), ("buffer", 0))))
    msg = violation(G.bounds_safe_z3, case)
    assert re.search(r"load X\[\w+\] \(shape \[n\]\): index 0 evaluates to (\d+), outside \[0, \1\)", msg), msg


def test_reindex_cache_write_after_a_non_dividing_split_drops_the_predicate() -> None:
    """Found by the 2,000-example reindex_cache_write campaign: split(i, [1, 2]) of a 1-element
    loop runs i0_1 in [0, 2) guarded by i0_1 < 1; the write-back block of the cache loses that
    guard and stores ew0[1] of 1."""
    spec = PrimFuncSpec("elementwise", (1,), (("depth", 1),), "int32")
    case = case_of("reindex_cache_write", spec,
                   Step("split", "ew0", (0,), (("factors", (1, 2)), ("preserve_unit_iters", False))),
                   Step("reindex_cache_write", "ew0", (), (("buffer", 0), ("scope", "global"), ("perm", (0, 1)))),
                   prefix=1)
    msg = violation(G.bounds_safe_z3, case)
    assert "store ew0[" in msg and "index 0 evaluates to 1, outside [0, 1)" in msg, msg


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
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_reindex_after_reverse_compute_at_fails_internally() -> None:
    """Found by the reindex campaign: an InternalError instead of a ScheduleError."""
    spec = PrimFuncSpec("broadcast", (10, 5), (("bdims", (True, True)),), "int32", prologue=True, seed=65536)
    case = case_of("reindex", spec, Step("reverse_compute_at", "bcast", (2,), (("target", "pre"),
                                                                             ("preserve_unit_loops", True),
                                                                             ("index", -1))),
                   Step("reindex", "bcast", (), (("kind", "write"), ("buffer", 0))), prefix=1)
    assert "InternalError: Check failed: (outer->body.get() == inner)" in violation(
        G.transformation_does_not_raise, case)


def _tensorize_steps(row_factor: int, k: int = 4, keep: bool = True) -> tuple[Step, ...]:
    return (Step("split", "matmul", (0,), (("factors", (None, row_factor)), ("preserve_unit_iters", True))),
            Step("split", "matmul", (3,), (("factors", (None, k)), ("preserve_unit_iters", True))),
            Step("decompose_reduction", "matmul", (0,)),
            Step("tensorize", "matmul", (4,), (("k", k), ("preserve_unit_iters", keep))))


def test_tensorize_under_a_split_predicate_fails_internally() -> None:
    """Found as soon as tensorize was drawn (with passcheck's plain-TIR dot-product intrinsic):
    when the matmul's rows are split by a non-divisor (5 rows by 2, a predicate i < 5), tensorize
    of the inner reduction raises an InternalError instead of refusing with a ScheduleError.
    Split by a divisor, the same tensorize applies and computes the same output."""
    spec = PrimFuncSpec("matmul", (5, 4), (("n", 3),), "int32")
    case = case_of("tensorize", spec, *_tensorize_steps(2), prefix=3)
    assert "InternalError: Check failed: (comparator.rhs_buffer_map_.count(desc))" in violation(
        G.transformation_does_not_raise, case)
    fine = case_of("tensorize", spec, *_tensorize_steps(5), prefix=3)
    G.transformation_does_not_raise(fine)
    G.bounds_safe_z3(fine)
    G.equivalent_by_execution(fine)


def test_tensorize_drops_the_predicate_of_a_split_unit_loop() -> None:
    """Found by the tensorize campaign. A 1-row matmul whose row loop is split by 3 runs
    i_1 in [0, 3) guarded by i_1 < 1; tensorize with preserve_unit_iters=False accepts it and
    drops the guard, so the kernel writes rows 1 and 2 of a 1-row output (Z3 witness, replayed).
    Likewise a 1-long reduction split by 2: the dot product reads X[i, 1] of 1 column. With
    preserve_unit_iters=True TVM raises the InternalError above or refuses instead."""
    case = case_of("tensorize", PrimFuncSpec("matmul", (1, 3), (("n", 3),), "int32"),
                   *_tensorize_steps(3, 3, keep=False), prefix=3)
    msg = violation(G.bounds_safe_z3, case)
    assert "store matmul[i_1, j] (shape [1, 3]): index 0 evaluates to" in msg, msg
    case = case_of("tensorize", PrimFuncSpec("matmul", (16, 1), (("n", 3),), "int32"),
                   *_tensorize_steps(2, 2, keep=False), prefix=3)
    msg = violation(G.bounds_safe_z3, case)
    assert "load X[i_0 * 2 + i_1, r] (shape [16, 1]): index 1 evaluates to 1, outside [0, 1)" in msg, msg


# --- found by the 2,000-example campaigns of read_at, write_at and rfactor (examples as printed) ---


def example_case(subject: str, example: ScheduleExample) -> Any:
    return TIR_SUBJECTS[subject].make_case(example, None, OPTS)


def test_read_at_and_write_at_raise_key_errors() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(1, 1), attrs=(("axes", (0,)), ("op", "sum")),
                                           index_dtype="int64", symbolic=True),
                         steps=(Step("read_at", "red", (0,), (("buffer", 0), ("scope", "global"))),))
    assert "KeyError: 'key is not in Map'" in violation(G.transformation_does_not_raise, example_case("read_at", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="transpose", shape=(1, 1), attrs=(("perm", (1, 0)),),
                                           index_dtype="int32", symbolic=True, seed=2),
                         steps=(Step("write_at", "transpose", (2,), (("buffer", 0), ("scope", "global"))),))
    assert "KeyError: 'key is not in Map'" in violation(G.transformation_does_not_raise, example_case("write_at", ex))


def test_read_at_and_write_at_fail_internally_on_read_write_order() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(3, 3), attrs=(("n", 3),), index_dtype="int64",
                                           prologue=True, epilogue=True, epilogue_op="bias"),
                         steps=(Step("decompose_reduction", "matmul", (2,)),
                                Step("read_at", "matmul", (5,), (("buffer", 0), ("scope", "global")))), prefix=1)
    assert "w_pos.empty() || w_pos.back() < r_pos.front()" in violation(G.transformation_does_not_raise,
                                                                       example_case("read_at", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="elementwise", shape=(7,), attrs=(("depth", 2),), index_dtype="int64",
                                           epilogue=True, seed=187, epilogue_op="relu_shift"),
                         steps=(Step("compute_inline", "ew1"),
                                Step("compute_at", "ew0", (6,), (("target", "post"), ("preserve_unit_loops", True),
                                                                ("index", -1))),
                                Step("write_at", "ew0", (6,), (("buffer", 0), ("scope", "global")))), prefix=2)
    assert "r_pos.empty() || r_pos.back() <= w_pos.back()" in violation(G.transformation_does_not_raise,
                                                                       example_case("write_at", ex))


def test_write_at_after_reverse_compute_at_and_cache_read_does_not_lower() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="elementwise", shape=(7, 10, 3), attrs=(("depth", 1),),
                                           index_dtype="int64", prologue=True, seed=474, epilogue_op="relu_shift"),
                         steps=(Step("reverse_compute_at", "ew0", (4,), (("target", "pre"), ("preserve_unit_loops", True),
                                                                         ("index", -1))),
                                Step("cache_read", "pre", (), (("buffer", 0), ("scope", "global"))),
                                Step("write_at", "pre", (3,), (("buffer", 0), ("scope", "global")))), prefix=2)
    assert "block->writes.size() == 1" in violation(G.well_formed_before_after, example_case("write_at", ex))


def test_write_at_of_a_blockized_reduction_leaves_the_init_behind() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(8, 10), attrs=(("n", 6),), index_dtype="int32",
                                           symbolic=True, prologue=True, epilogue=True, seed=3124, epilogue_op="clip"),
                         steps=(Step("compute_inline", "pre"),
                                Step("blockize", "matmul", (6,), (("preserve_unit_iters", True),)),
                                Step("write_at", "matmul", (3,), (("buffer", 0), ("scope", "global")))), prefix=2)
    assert "computes different values" in violation(G.equivalent_by_execution, example_case("write_at", ex))


def test_rfactor_after_reorder_and_compute_at_fails_internally() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(16, 4), attrs=(("n", 2),), index_dtype="int64",
                                           epilogue=True, seed=748, epilogue_op="clip"),
                         steps=(Step("reorder", "matmul", (6, 0, 5, 4)),
                                Step("compute_at", "matmul", (7,), (("target", "post"), ("preserve_unit_loops", False),
                                                                   ("index", -1))),
                                Step("rfactor", "matmul", (2,), (("factor_axis", 1),))), prefix=2)
    assert "block_realize == old_block_realize_.get()" in violation(G.transformation_does_not_raise,
                                                                    example_case("rfactor", ex))


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
    assert "computes different values" in violation(G.equivalent_by_execution, case)



# --- found by the 2,000-example campaigns of pad_einsum, loop_partition, blockize,
#     decompose_reduction and bind ---------------------------------------------------------


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
    assert "block 'post' (outside)" in violation(S.block_instances_within_domain, case)


def test_pad_einsum_after_compute_at_stores_out_of_bounds() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(3, 2), attrs=(("n", 1),), index_dtype="int32",
                                           symbolic=True, epilogue=True),
                         steps=(Step("compute_at", "matmul", (1,), (("target", "post"), ("preserve_unit_loops", False),
                                                                   ("index", -1))),
                                Step("pad_einsum", "matmul", (), (("padding", (2, 1, 2)),))), prefix=1)
    msg = violation(G.bounds_safe_z3, example_case("pad_einsum", ex))
    assert "store post[" in msg and "outside [0, n)" not in msg, msg


def test_loop_partition_drops_the_iterations_its_factors_miss() -> None:
    """loop_partition of a 3-long reduction loop with factors [1, 1] is accepted (a split with
    factors short of the extent is refused); the third iteration is never run."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="legalized", shape=(1, 3), attrs=(("op", "matmul"), ("n", 1)),
                                           index_dtype="int64", symbolic=True),
                         steps=(Step("loop_partition", "matmul", (2,), (("factors", (1, 1)),
                                                                       ("preserve_unit_iters", False))),))
    assert "computes different values" in violation(G.equivalent_by_execution, example_case("loop_partition", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reshape", shape=(12, 12, 1), attrs=(("out_shape", (18, 8)),),
                                           index_dtype="int32", epilogue=True, seed=594, epilogue_op="relu_shift"),
                         steps=(Step("fuse", "post", (5,), (("count", 2), ("preserve_unit_iters", False))),
                                Step("loop_partition", "post", (4,), (("factors", (7, 3, 4)),
                                                                     ("preserve_unit_iters", True)))), prefix=1)
    assert "verify_well_formed rejects" in violation(G.well_formed_before_after, example_case("loop_partition", ex))


def test_blockize_of_a_split_unit_loop_is_ill_formed() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(1, 1), attrs=(("n", 3),), index_dtype="int64",
                                           prologue=True, epilogue=True, seed=2983, epilogue_op="relu_shift"),
                         steps=(Step("split", "matmul", (3,), (("factors", (4, 2, 2)), ("preserve_unit_iters", False))),
                                Step("blockize", "matmul", (5,), (("preserve_unit_iters", True),))), prefix=1)
    case = example_case("blockize", ex)
    assert "verify_well_formed rejects" in violation(G.well_formed_before_after, case)


def test_decompose_reduction_after_split_and_compute_at_does_not_build() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(13, 13), attrs=(("n", 4),), index_dtype="int32",
                                           symbolic=True, epilogue=True, seed=2, epilogue_op="clip"),
                         steps=(Step("split", "post", (0,), (("factors", (None, 3)), ("preserve_unit_iters", False))),
                                Step("compute_at", "matmul", (2,), (("target", "post"), ("preserve_unit_loops", False),
                                                                   ("index", -1))),
                                Step("decompose_reduction", "matmul", (1,))), prefix=2)
    case = example_case("decompose_reduction", ex)
    G.bounds_safe_z3(case)
    assert "cannot make uint from negative value" in violation(G.equivalent_by_execution, case)


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
    assert "Cross-thread reduction" in violation(G.well_formed_before_after, example_case("bind", ex))



# --- found by the 2,000-example campaigns of fuse_reduction_epilogue, decompose_padding and
#     annotate_buffer_access -------------------------------------------------------------------


def test_fuse_reduction_epilogue_raises_instead_of_refusing() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="legalized", shape=(10, 11), attrs=(("op", "softmax"),),
                                           index_dtype="int64", symbolic=True, seed=3),
                         steps=(Step("fuse_reduction_epilogue", "T_softmax_maxelem", (),
                                     (("epilogue", "T_softmax_exp"),)),))
    assert "ValueError: Check failed: reduction_data_vars.size() == epilogue_data_vars.size()" in violation(
        G.transformation_does_not_raise, example_case("fuse_reduction_epilogue", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(1, 7), attrs=(("axes", (1,)), ("op", "sum")),
                                           index_dtype="int32", prologue=True, epilogue=True, seed=12719,
                                           epilogue_op="bias"),
                         steps=(Step("blockize", "post", (1,), (("preserve_unit_iters", True),)),
                                Step("fuse_reduction_epilogue", "red", (), (("epilogue", "post"),))), prefix=1)
    assert "InternalError: Check failed: (false) is false: Expect StmtSRef" in violation(
        G.transformation_does_not_raise, example_case("fuse_reduction_epilogue", ex))


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
    assert "computes different values" in violation(G.equivalent_by_execution, case)
    ex = ScheduleExample(spec=PrimFuncSpec(kind="pad", shape=(1,), attrs=(("pads", ((0, 0),)),), index_dtype="int32",
                                           symbolic=True, prologue=True),
                         steps=(Step("reverse_compute_at", "pad", (0,), (("target", "pre"), ("preserve_unit_loops", True),
                                                                         ("index", -1))),
                                Step("compute_at", "pre", (7,), (("target", "pad"), ("preserve_unit_loops", False),
                                                                ("index", -1))),
                                Step("decompose_padding", "pad", (0,))), prefix=2)
    assert "in_bound_filling_pos.defined()" in violation(G.transformation_does_not_raise,
                                                         example_case("decompose_padding", ex))


def test_annotate_buffer_access_after_compute_at_does_not_build() -> None:
    """The annotation is sound (the block's own read region widened by 1 and clipped to the
    buffer); the build then fails on a negative extent."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="reduce", shape=(1, 2), attrs=(("axes", (0,)), ("op", "sum")),
                                           index_dtype="int32", symbolic=True, prologue=True),
                         steps=(Step("compute_at", "pre", (1,), (("target", "red"), ("preserve_unit_loops", False),
                                                                ("index", -1))),
                                Step("annotate_buffer_access", "red", (), (("buffer", 0), ("grow", 1)))), prefix=1)
    assert "cannot make uint from negative value" in violation(G.equivalent_by_execution,
                                                               example_case("annotate_buffer_access", ex))



# --- found by the 2,000-example campaigns of cache_index and cache_inplace ---------------------


def test_cache_index_raises_key_and_type_errors() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="pad", shape=(5, 3, 5), attrs=(("pads", ((0, 1), (3, 3), (0, 1))),),
                                           index_dtype="int32", symbolic=True, epilogue=True, seed=23005,
                                           epilogue_op="relu_shift"),
                         steps=(Step("sample_perfect_tile", "post", (2,), (("n", 3), ("max_innermost", 16))),
                                Step("cache_index", "pad", (), (("cse_thresh", 0),))), prefix=1)
    assert "KeyError: 'key is not in Map'" in violation(G.transformation_does_not_raise,
                                                        example_case("cache_index", ex))
    ex = ScheduleExample(spec=PrimFuncSpec(kind="pad", shape=(5, 5), attrs=(("pads", ((2, 0), (1, 0))),),
                                           index_dtype="int32", symbolic=True, seed=9, epilogue_op="clip"),
                         steps=(Step("cache_index", "pad", (), (("cse_thresh", 0),)),))
    assert "loop_var.ty() == extent.ty()" in violation(G.transformation_does_not_raise,
                                                       example_case("cache_index", ex))


def test_cache_inplace_after_decompose_reduction_uses_block_iterators_outside_the_block() -> None:
    """The copy-in and copy-out blocks around `matmul_update` index the cache with v_i, v_j,
    the update block's own iterators, where they are undefined; verify_well_formed rejects it.
    65 of the 72 cache_inplace applications in the campaign were ill-formed."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(1, 1), attrs=(("n", 1),), index_dtype="int32",
                                           symbolic=True),
                         steps=(Step("decompose_reduction", "matmul", (0,)),
                                Step("cache_inplace", "matmul", (), (("buffer", 0), ("scope", "global")))), prefix=1)
    assert "verify_well_formed rejects" in violation(G.well_formed_before_after, example_case("cache_inplace", ex))
