"""Schedule primitives that raise something other than a ScheduleError where they should refuse the
schedule or apply it (kept in tests/tir/test_tvm_bugs_errors.py)."""

from passcheck.tir.known_bugs.patterns import SCHEDULE, bug, call, raised

FILE = "test_tvm_bugs_errors"
RAISES = ("transformation_does_not_raise",)

bug(FILE, "test_reverse_compute_inline_after_blockize_fails_internally",
    "reverse_compute_inline after blockize: InternalError unordered_map::at",
    ("reverse_compute_inline", SCHEDULE), RAISES, raised("reverse_compute_inline", "unordered_map::at"))
bug(FILE, "test_cache_index_internal_error_when_nothing_to_cache",
    "cache_index builds a SeqStmt of its index blocks without flattening it: with nothing to cache, or one index, "
    "InternalError 'An empty SeqStmt' / 'A SeqStmt of length 1 is prohibited'",
    ("cache_index", SCHEDULE), RAISES, raised("cache_index", "(?:An empty SeqStmt|A SeqStmt of length 1) is prohibited"))
bug(FILE, "test_annotate_buffer_access_rejects_a_buffer_of_fewer_dims_than_iterators",
    "annotate_buffer_access raises ValueError unless the buffer has as many dims as the block has iterators",
    ("annotate_buffer_access", SCHEDULE), RAISES,
    raised("annotate_buffer_access", r"Number of iter_vars \(\d+\) must match number of new_ranges_spec"))
bug(FILE, "test_rolling_buffer_fails_on_int64_indices",
    "rolling_buffer raises TypeError 'mismatched types. int64 vs. int32' on every int64-indexed kernel",
    ("rolling_buffer", SCHEDULE), RAISES, raised("rolling_buffer", r"mismatched types\. int64 vs\. int32"))
bug(FILE, "test_reverse_compute_at_rejects_an_out_of_range_index_with_an_internal_error",
    "reverse_compute_at with an index outside the valid insertion points: InternalError 'Valid index', not a "
    "ScheduleError",
    ("reverse_compute_at", SCHEDULE), RAISES, raised("reverse_compute_at", "Valid index:"))
bug(FILE, "test_cache_index_of_an_int64_kernel_with_a_symbolic_extent_fails_internally",
    "cache_index of an int64 kernel with a symbolic extent: InternalError 'CanProve(range.min() >= INT64_MIN'",
    ("cache_index", SCHEDULE), RAISES, raised("cache_index", r"CanProve\(range\.min\(\) >="))
bug(FILE, "test_reindex_after_reverse_compute_at_fails_internally",
    "reindex after reverse_compute_at: InternalError 'outer->body.get() == inner'",
    ("reindex", SCHEDULE), RAISES, raised("reindex", r"outer->body\.get\(\) == inner"))
bug(FILE, "test_tensorize_under_a_split_predicate_fails_internally",
    "tensorize under a split predicate: InternalError 'comparator.rhs_buffer_map_.count(desc)'",
    ("tensorize", SCHEDULE), RAISES, raised("tensorize", r"comparator\.rhs_buffer_map_\.count\(desc\)"))
bug(FILE, "test_read_at_and_write_at_raise_key_errors",
    "read_at / write_at raise KeyError 'key is not in Map' (a reduction's accumulator; a symbolic transpose)",
    ("read_at", "write_at", SCHEDULE), RAISES, raised("read_at|write_at", "'key is not in Map'"))
bug(FILE, "test_read_at_and_write_at_fail_internally_on_read_write_order",
    "read_at / write_at after decompose_reduction or compute_at: InternalError on the order of reads and writes",
    ("read_at", "write_at", SCHEDULE), RAISES, raised("read_at|write_at", r"[wr]_pos\.empty\(\) \|\|"))
bug(FILE, "test_rfactor_after_reorder_and_compute_at_fails_internally",
    "rfactor after reorder and compute_at (or reverse_compute_at of the consumer; cross_thread_reduction with "
    "rfactor=True calls rfactor): InternalError 'block_realize == old_block_realize_'",
    ("rfactor", "cross_thread_reduction", SCHEDULE), RAISES,
    raised(r"rfactor|cross_thread_reduction(?=[^\n]*rfactor=True)", r"block_realize == old_block_realize_"))
bug(FILE, "test_fuse_reduction_epilogue_raises_instead_of_refusing",
    "fuse_reduction_epilogue raises ValueError on iterator counts, or InternalError 'Expect StmtSRef ... higher', "
    "instead of refusing",
    ("fuse_reduction_epilogue", SCHEDULE), RAISES,
    raised("fuse_reduction_epilogue", r"(?:reduction_data_vars\.size\(\) == epilogue_data_vars\.size\(\)|"
                                      r"Expect StmtSRef .*to be higher than or equal to)"))
bug(FILE, "test_cache_index_raises_key_and_type_errors",
    "cache_index of a symbolic padding: KeyError 'key is not in Map', InternalError 'loop_var.ty() == extent.ty()'",
    ("cache_index", SCHEDULE), RAISES,
    raised("cache_index", r"(?:'key is not in Map'|loop_var\.ty\(\) == extent\.ty\(\))"))
bug(FILE, "test_reverse_compute_at_of_a_pooling_raises_a_pattern_match_value_error",
    "reverse_compute_at of a pooling under its producer's channel loop: ValueError 'TensorRegion pattern match "
    "failed'",
    ("reverse_compute_at", SCHEDULE), RAISES, raised("reverse_compute_at", "TensorRegion pattern match failed"))
bug(FILE, "test_compute_at_of_a_read_at_copy_raises_a_pattern_match_value_error",
    "compute_at of the copy block read_at made, under its consumer's reduction loop: ValueError 'TensorRegion "
    "pattern match failed'",
    ("compute_at", SCHEDULE), RAISES, raised("compute_at", "TensorRegion pattern match failed"))
bug(FILE, "test_fuse_reduction_epilogue_after_transform_layout_fails_internally",
    "fuse_reduction_epilogue after transform_layout of the epilogue's read: InternalError, a 4-d buffer indexed "
    "with 5 indices",
    ("fuse_reduction_epilogue", SCHEDULE), RAISES,
    raised("fuse_reduction_epilogue", r"cannot be indexed with the \d+-dimensional indices"))
bug(FILE, "test_fuse_of_a_reordered_symbolic_padding_fails_internally",
    "fuse of a reordered symbolic padding: InternalError 'padding factor ... is not divisible' in the iterator-map "
    "analysis",
    ("fuse", SCHEDULE), RAISES, raised("fuse", r"CanProveDivisible\(info\.padding_factor, divisor\)"))
bug(FILE, "test_blockize_of_an_int64_loop_partition_piece_mixes_index_types",
    "blockize (or tensorize, which blockizes) of a piece loop_partition made of an int64 loop "
    "(preserve_unit_iters=False): InternalError 'The dtype of the extent of an IterVar (int32) must match its "
    "associated Var's dtype (int64)'",
    ("blockize", "tensorize", SCHEDULE), RAISES,
    raised("blockize|tensorize", r"extent of an IterVar \(int32\) must match its associated Var's dtype \(int64\)"))
bug(FILE, "test_reverse_compute_inline_into_a_read_at_copy_of_a_broadcast_read_fails_internally",
    "reverse_compute_inline of a broadcast into the read_at copy of its broadcast (one-element) operand: "
    "InternalError 'Cannot dispatch a null expression' instead of refusing",
    ("reverse_compute_inline", SCHEDULE), RAISES,
    r"raised \w+: .*?Cannot dispatch a null expression.*" + call("read_at")
    + r".*\breverse_compute_inline\([^\n]*# raised \w+")
bug(FILE, "test_annotate_buffer_access_of_a_blockized_reduction_fails_internally",
    "annotate_buffer_access of the outer block blockize made of a reduction (its own read, index 0): "
    "InternalError 'Buffer index out of range (0 vs. 0)', an index checked against an empty region list",
    ("annotate_buffer_access", SCHEDULE), RAISES,
    r"raised \w+: .*?Buffer index out of range.*" + call("blockize")
    + r".*\bannotate_buffer_access\([^\n]*# raised \w+")
