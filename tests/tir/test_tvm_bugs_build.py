"""TVM 0.27 schedule primitives that accept a schedule whose output verify_well_formed, lowering or
the build then rejects (the primitives that raise instead of refusing are in test_tvm_bugs_errors.py).

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
"""

from __future__ import annotations

import numpy as np
import passcheck.properties.tir_generic as G
import pytest
import tvm
from known_bug_check import assert_recognised
from tvm.script import tirx as T
from tvm_bug_repros import case_of, example_case, known_violation

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

PAD_INT64 = (("pads", ((1, 0),)),)


def test_vectorize_of_a_symbolic_loop_does_not_build() -> None:
    spec = PrimFuncSpec("elementwise", (5,), (("depth", 1),), "int32", symbolic=True)
    case = case_of("vectorize", spec, Step("vectorize", "ew0", (0,)))
    G.well_formed_before_after(case)
    G.bounds_safe_z3(case)
    assert "Failed to vectorize loop with extent n" in known_violation(G.equivalent_by_execution, case)
    # Built for a GPU, the same: found by `schedule --target cuda:sm_90` (seed 0), a vectorized
    # loop of extent ((n + 7) // 8 * 8 + 63) // 64 after pad_einsum and a thread binding.
    gpu = ScheduleExample(
        PrimFuncSpec("pad", (6,), (("pads", ((0, 0),)),), "int32", symbolic=True, seed=226, epilogue_op="clip"),
        (Step("decompose_reduction", "pad", (0,)),
         Step("compute_at", "pad+init", (3,), (("target", "pad"), ("preserve_unit_loops", False), ("index", -1),
                                               ("anywhere", True))),
         Step("pad_einsum", "pad", (), (("padding", (8,)), ("by_name", True))),
         Step("bind_threads", "pad", (0,), (("threads", 64), ("axis", "z"))),
         Step("vectorize", "pad", (0,)), Step("bind_rest", "", (), (("threads", 64),))))
    msg = assert_recognised("schedule@cuda:sm_90", "builds_for_gpu", gpu, "test_vectorize_of_a_symbolic_loop_does_not_build",
                            ir="tir")
    assert "Failed to vectorize loop with extent" in msg


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


def test_cache_index_of_an_int64_kernel_mixes_index_types() -> None:
    """Same campaign: on a constant-shape int64 kernel cache_index applies, but the IR it builds
    mixes int32 and int64 operands and lowering fails."""
    spec = PrimFuncSpec("pad", (1,), PAD_INT64, "int64")
    case = case_of("cache_index", spec, Step("cache_index", "pad", (), (("cse_thresh", 0),)))
    assert "mismatched types. int32 vs. int64" in known_violation(G.well_formed_before_after, case)


def test_write_at_after_reverse_compute_at_and_cache_read_does_not_lower() -> None:
    ex = ScheduleExample(spec=PrimFuncSpec(kind="elementwise", shape=(7, 10, 3), attrs=(("depth", 1),),
                                           index_dtype="int64", prologue=True, seed=474, epilogue_op="relu_shift"),
                         steps=(Step("reverse_compute_at", "ew0", (4,), (("target", "pre"), ("preserve_unit_loops", True),
                                                                         ("index", -1))),
                                Step("cache_read", "pre", (), (("buffer", 0), ("scope", "global"))),
                                Step("write_at", "pre", (3,), (("buffer", 0), ("scope", "global")))), prefix=2)
    assert "block->writes.size() == 1" in known_violation(G.well_formed_before_after, example_case("write_at", ex))


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
    # and after reverse_compute_at (`schedule --examples 2000`, seed 5077): an avg pool's division
    # moved under the pooling's loop, its read of the sum annotated one wider
    ex = ScheduleExample(spec=PrimFuncSpec(kind="pool", shape=(1, 1, 1, 3), attrs=(("op", "avg"), ("kernel", (1, 2)),
                                                                                 ("stride", (1, 1)), ("padding", (0, 0))),
                                           index_dtype="int32", symbolic=True),
                         steps=(Step("reverse_compute_at", "avg", (0,), (("target", "pool"), ("preserve_unit_loops", False),
                                                                         ("index", 1))),
                                Step("annotate_buffer_access", "avg", (), (("buffer", 2), ("grow", 1), ("points", True)))),
                         prefix=1)
    case = example_case("annotate_buffer_access", ex)
    assert "cannot make uint from negative value" in known_violation(G.equivalent_by_execution, case)


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
    # a blockized pool's outer reduction loop bound by cross_thread_reduction (`--examples 500`, seed 7):
    # "The indices of all BufferStores in the reduction block should be the same"
    spec = PrimFuncSpec("pool", (1, 1, 1, 1), (("op", "max"), ("kernel", (3, 3)), ("stride", (2, 1)),
                                               ("padding", (0, 1))), "int32")
    ex = ScheduleExample(spec, (Step("blockize", "pool", (5,), (("preserve_unit_iters", True),)),
                                Step("cross_thread_reduction", "pool+o", (4,), (("threads", 7), ("rfactor", False)))),
                         prefix=1)
    msg = assert_recognised("cross_thread_reduction", "well_formed_before_after", ex,
                            "test_bind_of_a_reduction_loop_is_accepted_but_cannot_be_lowered", ir="tir")
    assert "indices of all BufferStores" in msg


def test_cache_inplace_after_decompose_reduction_uses_block_iterators_outside_the_block() -> None:
    """The copy-in and copy-out blocks around `matmul_update` index the cache with v_i, v_j,
    the update block's own iterators, where they are undefined; verify_well_formed rejects it.
    65 of the 72 cache_inplace applications in the campaign were ill-formed."""
    ex = ScheduleExample(spec=PrimFuncSpec(kind="matmul", shape=(1, 1), attrs=(("n", 1),), index_dtype="int32",
                                           symbolic=True),
                         steps=(Step("decompose_reduction", "matmul", (0,)),
                                Step("cache_inplace", "matmul", (), (("buffer", 0), ("scope", "global")))), prefix=1)
    assert "verify_well_formed rejects" in known_violation(G.well_formed_before_after, example_case("cache_inplace", ex))


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
    # Found by `schedule --examples 800` (seed 41): the same after read_at, bcast inlined into the
    # copy block of its operand Y (the copy's loops inside the block)
    read_at = Step("read_at", "bcast", (0,), (("buffer", 1), ("scope", "local")))
    ex = ScheduleExample(PrimFuncSpec("broadcast", (3,), (("bdims", (False,)),)),
                         (read_at, Step("reverse_compute_inline", "bcast")))
    assert "Multiple buffer read" in known_violation(G.well_formed_before_after, example_case("schedule", ex))
    G.well_formed_before_after(example_case("schedule", ScheduleExample(ex.spec, (read_at,))))


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


def test_reindex_of_a_read_at_copy_uses_its_loop_vars_outside_their_loops() -> None:
    """Found by `schedule --examples 2000` (seed 11; three kinds of finding). read_at makes a
    copy block whose copy loops are inside the block (`for ax0, ... : X_global[...] = X[...]`);
    reindex of that block's read (or write) is accepted and makes a block that loads
    `W[v0 + ax0_1, ax1, ax2, ax3]` with the copy's loop vars, now undefined: verify_well_formed
    rejects it, and lowered, the copy reads an element nothing wrote."""
    spec = PrimFuncSpec("matmul", (1, 1), (("n", 1),), "int32", symbolic=True, prologue=True, epilogue=True)
    read_at = Step("read_at", "pre", (0,), (("buffer", 0), ("scope", "global")))
    for kind, prop in (("read", "well_formed_before_after"), ("write", "reads_initialised")):
        ex = ScheduleExample(spec, (read_at, Step("reindex", "pre<0", (), (("kind", kind), ("buffer", 0),
                                                                          ("by_name", True)))))
        assert_recognised("schedule", prop, ex, "test_reindex_of_a_read_at_copy_uses_its_loop_vars_outside_their_loops",
                          ir="tir")
    # read_at alone is well-formed
    G.well_formed_before_after(example_case("schedule", ScheduleExample(spec, (read_at,))))
    # (seed 12) a local copy of a conv's weight, its write reindexed: verify_well_formed misses
    # it and the build fails "variable ax2 has been used before definition"
    conv = PrimFuncSpec("conv2d", (1, 1, 1, 1), (("out_channels", 3), ("kernel", (2, 2)), ("stride", (3, 1)),
                                                 ("dilation", (1, 1)), ("padding", (1, 0))), "int64")
    ex = ScheduleExample(conv, (Step("read_at", "conv", (1,), (("buffer", 1), ("scope", "local"))),
                                Step("reindex", "conv<1", (), (("kind", "write"), ("buffer", 0), ("buffer_as", "index")))))
    msg = assert_recognised("schedule", "equivalent_by_execution", ex,
                            "test_reindex_of_a_read_at_copy_uses_its_loop_vars_outside_their_loops", ir="tir")
    assert "used before definition" in msg
    # write_at's copy block alike (`schedule --examples 2000`, seed 5077): its read reindexed
    copy = ScheduleExample(PrimFuncSpec("reshape", (1,), (("out_shape", (1, 1)),), "int32"),
                           (Step("write_at", "reshape", (0,), (("buffer", 0), ("scope", "global"))),
                            Step("reindex", "reshape>0", (), (("kind", "read"), ("buffer", 0)))))
    assert_recognised("schedule", "well_formed_before_after", copy,
                      "test_reindex_of_a_read_at_copy_uses_its_loop_vars_outside_their_loops", ir="tir")


def test_vectorize_inside_a_vectorized_loop_does_not_build() -> None:
    """Found by `schedule --examples 2000` (seed 11): both loops of a nest vectorized. The
    schedule accepts the second vectorize; the build logs "Detect vectorize inside vectorized
    loop, ignoring..." and then fails its own check "VectorizeLoop before LiftStorageAlloc" (an
    InternalError, not a ScheduleError or a skipped annotation)."""
    spec = PrimFuncSpec("elementwise", (4, 3), (("depth", 1),), "int32")
    ex = ScheduleExample(spec, (Step("vectorize", "ew0", (0,)), Step("vectorize", "ew0", (1,))))
    msg = assert_recognised("schedule", "equivalent_by_execution", ex,
                            "test_vectorize_inside_a_vectorized_loop_does_not_build", ir="tir")
    assert "VectorizeLoop before LiftStorageAlloc" in msg
    # the inner loop alone vectorizes and computes the same output
    G.equivalent_by_execution(example_case("schedule", ScheduleExample(spec, ex.steps[1:])))


def test_reverse_compute_inline_of_one_of_two_consumers_drops_the_shared_buffer() -> None:
    """Found by `schedule --examples 500` (seed 32333). In the fanout kernel `shared` is read by
    `use0` and `use1`; reverse_compute_inline('use1') is accepted (TVM's NonSingleProducerError
    says the producer must have "only a single consumer" but nothing checks it): `shared`'s block
    now writes `max(X * 2, 0)` into `use1`, the `shared` allocation is gone, and `use0` still reads
    it. verify_well_formed rejects the result; the build fails "Buffer shared is used before its
    definition"."""
    spec = PrimFuncSpec("fanout", (1, 1), (), "int64")
    ex = ScheduleExample(spec, (Step("reverse_compute_inline", "use1"),))
    name = "test_reverse_compute_inline_of_one_of_two_consumers_drops_the_shared_buffer"
    assert_recognised("schedule", "well_formed_before_after", ex, name, ir="tir")
    msg = assert_recognised("schedule", "equivalent_by_execution", ex, name, ir="tir")
    assert "Buffer shared is used before its definition" in msg
    # inlined into both consumers instead (compute_inline of the producer), the kernel is fine
    G.equivalent_by_execution(example_case("schedule", ScheduleExample(spec, (Step("compute_inline", "shared"),))))


def test_cast_of_a_constant_beyond_float16_does_not_compile() -> None:
    """Found by `unsafe_set_dtype --examples 500` (seed 7): a max reduction's buffer set to float16
    keeps its init, now `T.Cast("float16", T.float32(-3.4e38))`. The simplifier folds the cast into
    a float16 FloatImm, whose constructor refuses a value past ±65504, so lowering raises. The cast
    is valid TIR and IEEE narrowing defines it (-inf): the same cast of a runtime value compiles and
    gives -inf. (The primitive is unsafe about values, not about whether the result compiles.)"""
    @T.prim_func(s_tir=True)
    def constant(a: T.Buffer((2,), "float16")) -> None:
        for i in range(2):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                a[vi] = T.Cast("float16", T.float32(-3.4e38))

    @T.prim_func(s_tir=True)
    def runtime(a: T.Buffer((2,), "float16"), b: T.Buffer((2,), "float32")) -> None:
        for i in range(2):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                a[vi] = T.Cast("float16", b[vi])

    with pytest.raises(ValueError, match="exceeds minimum of float16"):
        tvm.compile(constant, target="llvm")
    out = tvm.runtime.tensor(np.zeros(2, "float16"))
    tvm.compile(runtime, target="llvm")(out, tvm.runtime.tensor(np.full(2, -3.4e38, "float32")))
    assert np.all(np.isneginf(out.numpy()))
    spec = PrimFuncSpec("reduce", (3, 2), (("axes", (1,)), ("op", "max")), epilogue=True)
    ex = ScheduleExample(spec, (Step("unsafe_set_dtype", "red", (), (("buffer", 0), ("dtype", "float16"))),))
    msg = assert_recognised("unsafe_set_dtype", "well_formed_before_after", ex,
                            "test_cast_of_a_constant_beyond_float16_does_not_compile", ir="tir")
    assert "Literal value -3.40282e+38 exceeds minimum of float16" in msg
