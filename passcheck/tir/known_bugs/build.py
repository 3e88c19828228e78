"""Schedule primitives that accept a schedule whose output verify_well_formed, lowering or the build
then rejects (kept in tests/tir/test_tvm_bugs_build.py)."""

from passcheck.tir.known_bugs.patterns import ILL_FORMED, NOT_BUILT, SCHEDULE, UNINIT, bug, call, violated

FILE = "test_tvm_bugs_build"
# The GPU build runs the same lowering first: its failure is builds_for_gpu's there.
WELL_FORMED = ("well_formed_before_after", "builds_for_gpu")
EXEC = ("equivalent_by_execution",)
LOWERING = r"(?:lowering the output of \S+|building the output of \S+ for \S+) raised"
SPLIT = "split|loop_partition"

bug(FILE, "test_vectorize_of_a_symbolic_loop_does_not_build",
    "vectorize of a loop of symbolic extent is accepted, then the build fails 'Failed to vectorize loop'",
    ("vectorize", SCHEDULE), (*EXEC, "builds_for_gpu"),
    violated(rf"(?:{NOT_BUILT}|building the output of \S+ for \S+ raised) .*Failed to vectorize loop with extent",
             "vectorize"))
bug(FILE, "test_transform_layout_with_padding_after_blockize_leaves_undefined_vars",
    "transform_layout with pad_value after blockize: the padded producer block uses undefined vars",
    ("transform_layout", SCHEDULE), WELL_FORMED,
    violated(ILL_FORMED, "blockize", call("transform_layout", "pad_value=")))
bug(FILE, "test_unroll_of_a_symbolic_loop_does_not_build",
    "unroll of a loop of symbolic extent is accepted, then the build fails 'Cannot unroll non-constant loop'",
    ("unroll", SCHEDULE), (*EXEC, "builds_for_gpu"),
    violated(rf"(?:{NOT_BUILT}|building the output of \S+ for \S+ raised) .*Cannot unroll non-constant loop", "unroll"))
bug(FILE, "test_cache_read_of_an_accumulator_inside_nested_blockizes_does_not_lower",
    "cache_read / cache_write of an accumulator after two blockizes: the dead cache copy's buffer is allocated "
    "where lowering rejects it",
    ("cache_read", "cache_write", SCHEDULE), WELL_FORMED,
    violated(f"{LOWERING} .*is not in the block's signature", "blockize", "blockize", "cache_read|cache_write"))
bug(FILE, "test_cache_index_of_an_int64_kernel_mixes_index_types",
    "cache_index of an int64 kernel: the index block mixes int32 and int64, lowering raises 'mismatched types'",
    ("cache_index", SCHEDULE), WELL_FORMED,
    violated(rf"{LOWERING} TypeError: .*mismatched types\. int32 vs\. int64", "cache_index"))
bug(FILE, "test_write_at_after_reverse_compute_at_and_cache_read_does_not_lower",
    "write_at after reverse_compute_at and cache_read: lowering raises InternalError 'block->writes.size() == 1'",
    ("write_at", SCHEDULE), WELL_FORMED, violated(rf"{LOWERING} .*block->writes\.size\(\) == 1", "write_at"))
bug(FILE, "test_blockize_of_a_split_unit_loop_is_ill_formed",
    "blockize of a loop split off a unit loop: verify_well_formed rejects the result, the build fails 'used "
    "before definition'",
    ("blockize", SCHEDULE), (*WELL_FORMED, *EXEC),
    violated(f"{ILL_FORMED}|{NOT_BUILT} .*used before definition", SPLIT, "blockize"))
bug(FILE, "test_a_compacted_int32_intermediate_gets_int32_max_rows_and_does_not_build",
    "an intermediate of a symbolic int32 kernel computed at a consumer's tile (compute_at, or a consumer moved "
    "under its producer by reverse_compute_at; then decompose_reduction, "
    "annotate_buffer_access) is compacted to 2147483647 rows: the build fails 'cannot make uint from negative value'",
    ("compute_at", "reverse_compute_at", "decompose_reduction", "annotate_buffer_access", SCHEDULE), EXEC,
    violated(f"{NOT_BUILT} .*cannot make uint from negative value", "compute_at|reverse_compute_at"))
bug(FILE, "test_bind_of_a_reduction_loop_is_accepted_but_cannot_be_lowered",
    "bind of a reduction loop to threadIdx.x is accepted; the cross-thread reduction lowering rejects the nest",
    # (or, the reduction blockized, 'The indices of all BufferStores in the reduction block should be the same')
    ("bind", "cross_thread_reduction", SCHEDULE), WELL_FORMED,
    violated(f"{LOWERING} .*(?:Cross-thread reduction cannot be applied|"
             r"The indices of all BufferStores in the reduction block should be the same)", "bind"))
bug(FILE, "test_cache_inplace_after_decompose_reduction_uses_block_iterators_outside_the_block",
    "cache_inplace after decompose_reduction: the copy blocks use the update block's iterators outside it",
    ("cache_inplace", SCHEDULE), WELL_FORMED, violated(ILL_FORMED, "decompose_reduction", "cache_inplace"))
bug(FILE, "test_compute_inline_after_write_at_does_not_lower",
    "compute_inline of a write_at cache block is accepted, then lowering fails 'Multiple buffer read'",
    ("compute_inline", SCHEDULE), WELL_FORMED,
    violated(f"{LOWERING} .*Multiple buffer read", "write_at", "compute_inline"))
bug(FILE, "test_reverse_compute_inline_after_write_at_does_not_lower",
    "reverse_compute_inline of the consumer of a write_at (or read_at) cache block is accepted, then lowering "
    "fails 'Multiple buffer read'",
    ("reverse_compute_inline", SCHEDULE), WELL_FORMED,
    violated(f"{LOWERING} .*Multiple buffer read", "write_at|read_at", "reverse_compute_inline"))
bug(FILE, "test_parallel_of_a_loop_inside_a_parallel_loop_does_not_build",
    "parallel of a loop nested in a parallel loop is accepted, then the build fails 'Nested parallel loop'",
    ("parallel", SCHEDULE), EXEC, violated(f"{NOT_BUILT} .*Nested parallel loop is not supported", "parallel",
                                           "parallel"))
bug(FILE, "test_reindex_of_a_read_at_copy_uses_its_loop_vars_outside_their_loops",
    "reindex of a read_at (or write_at) copy block (whose copy loops are inside the block) is accepted: the new "
    "reindex block indexes the source with the copy's loop vars outside their loops (ill-formed; the copy reads "
    "nothing written)",
    ("reindex", SCHEDULE), (*WELL_FORMED, "reads_initialised", *EXEC),
    violated(f"{ILL_FORMED}|{UNINIT}|{NOT_BUILT} .*used before definition", "read_at|write_at",
             call("reindex", first=r"\w+_(?:global|shared|local)\w*")))
bug(FILE, "test_vectorize_inside_a_vectorized_loop_does_not_build",
    "vectorize of a loop inside a vectorized loop is accepted; the build warns 'vectorize inside vectorized loop, "
    "ignoring' and then fails an internal check 'VectorizeLoop before LiftStorageAlloc'",
    ("vectorize", SCHEDULE), (*EXEC, "builds_for_gpu"),
    violated(rf"(?:{NOT_BUILT}|building the output of \S+ for \S+ raised) .*VectorizeLoop before LiftStorageAlloc",
             "vectorize", "vectorize"))
bug(FILE, "test_reverse_compute_inline_of_one_of_two_consumers_drops_the_shared_buffer",
    "reverse_compute_inline of a consumer whose producer has another consumer is accepted (its own error text asks "
    "for 'a producer who has only a single consumer', which it never checks): the producer now writes the "
    "inlined consumer's buffer, the other consumer reads the dropped buffer (ill-formed; 'used before its "
    "definition' when built)",
    ("reverse_compute_inline", SCHEDULE), (*WELL_FORMED, *EXEC),
    violated(rf"{ILL_FORMED}|(?:{NOT_BUILT}|{LOWERING}) .*is used before its definition", "reverse_compute_inline"),
    # the printer declares the dropped buffer inside the block that still reads it
    ir=r"\n\s+\w+ = T\.Buffer\(")
bug(FILE, "test_cast_of_a_constant_beyond_float16_does_not_compile",
    "a Cast to float16 of a float32 constant beyond its range (a max reduction's -3.4e38 init after "
    "unsafe_set_dtype to float16) folds into a float16 literal the FloatImm check rejects: compiling raises "
    "'exceeds minimum of float16' where the same cast of a runtime value gives -inf",
    ("unsafe_set_dtype", SCHEDULE), WELL_FORMED,
    violated(rf"{LOWERING} ValueError: .*Literal value \S+ exceeds (?:minimum|maximum) of float16",
             call("unsafe_set_dtype", "'float16'")))
