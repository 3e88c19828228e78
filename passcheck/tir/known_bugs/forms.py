"""TVM bugs reached only through what issue 21 made drawable -- a form of a primitive's whole
signature (a list of blocks, a buffer given by name, an index, a non-injective index map), a
block an earlier step made (a partition, a decomposed reduction, a loop another block shares),
a kernel that branches -- kept in tests/tir/test_tvm_bugs_forms.py."""

from passcheck.tir.known_bugs.patterns import (
    ILL_FORMED,
    SCHEDULE,
    UNINIT,
    WRONG_VALUES,
    bug,
    call,
    raised,
    violated,
)

FILE = "test_tvm_bugs_forms"
RAISES = ("transformation_does_not_raise",)
# The wrong values show on a GPU target too: in the kernel as launched, emulated, and on a GPU.
EXEC = ("equivalent_by_execution", "gpu_emulated_matches_cpu", "gpu_matches_cpu")
READS = (*EXEC, "reads_initialised")
GARBAGE = f"{WRONG_VALUES}|{UNINIT}"

bug(FILE, "test_blockize_of_blocks_with_reduction_loops_outside_fails_internally",
    "blockize of a list of blocks whose loops outside are reduction loops (a reduction, a softmax's max and exp): "
    "InternalError 'has_outer_reduction == false' instead of a ScheduleError",
    ("blockize", SCHEDULE), RAISES, raised("blockize", r"has_outer_reduction == false"))
bug(FILE, "test_blockize_of_a_list_of_one_block_fails_internally",
    "blockize([block]): InternalError 'A SeqStmt of length 1 is prohibited' (the list's SeqStmt is not flattened)",
    ("blockize", SCHEDULE), RAISES, raised("blockize", r"A SeqStmt of length 1 is prohibited"))
bug(FILE, "test_blockize_of_blocks_that_are_not_consecutive_fails_internally",
    "blockize of a list of blocks with another block between them: InternalError 'Target blocks must be "
    "consecutive!' instead of a ScheduleError",
    ("blockize", SCHEDULE), RAISES, raised("blockize", r"Target blocks must be consecutive"))
bug(FILE, "test_blockize_of_a_list_naming_one_block_twice_fails_internally",
    "blockize of a list naming one block twice (by name and by reference): InternalError 'Target blocks must not "
    "be nested with each other!' instead of a ScheduleError",
    ("blockize", SCHEDULE), RAISES, raised("blockize", r"Target blocks must not be nested with each other"))
bug(FILE, "test_blockize_of_a_list_raises_an_index_error",
    "blockize of a list of three blocks after a fuse of the middle one's loops: IndexError 'Index 4 out of "
    "bounds 4'",
    ("blockize", SCHEDULE), RAISES, raised("blockize", r"Index \d+ out of bounds \d+"))
bug(FILE, "test_blockize_of_a_decomposed_reduction_and_its_consumer_drops_the_init",
    "blockize of a list holding a reduction's update block (after decompose_reduction) and its consumer: the "
    "init block disappears, the update reads its accumulator uninitialised",
    ("blockize", SCHEDULE), READS, violated(GARBAGE, "decompose_reduction", call("blockize", r"\[")))
bug(FILE, "test_blockize_of_a_list_holding_a_block_and_its_outer_block_duplicates_it",
    "blockize of a list holding a block and the outer block that contains it (an earlier blockize's), or one "
    "block twice (a decomposed reduction's update by reference and by its old name): accepted -- the nesting "
    "check refuses some such lists with an InternalError, not these -- and the block is copied: verify_well_formed "
    "rejects the duplicate",
    ("blockize", SCHEDULE), ("well_formed_before_after", "builds_for_gpu"),
    violated(ILL_FORMED, call("blockize", r"\[")),
    ir=r"blocks=\([^)]*'(\w+)\+o'[^)]*'\1'|blocks=\([^)]*'(\w+)'[^)]*'\2\+o'"
       # (or one block twice in the output module)
       r"|T\.sblock\(\"(\w+)\"\)(?:(?!@I\.ir_module).)*?T\.sblock\(\"\3\"\)")
bug(FILE, "test_blockize_of_a_list_out_of_program_order_reorders_the_blocks",
    "blockize of a list of consecutive blocks given out of program order (consumer first): the outer block holds "
    "them in the list's order, so the consumer runs before its producer and reads what nobody wrote yet",
    # (a decomposed reduction's update and its consumer, in order, is the bug above)
    ("blockize", SCHEDULE), READS,
    f"(?:{GARBAGE})(?:(?!decompose_reduction\\().)*" + call("blockize", r"\["))
bug(FILE, "test_compute_at_rejects_an_out_of_range_index_with_an_internal_error",
    "compute_at with an index outside the valid insertion points: InternalError 'Valid index', not a "
    "ScheduleError (reverse_compute_at's twin)",
    ("compute_at", SCHEDULE), RAISES, raised("compute_at", "Valid index:"))
bug(FILE, "test_cache_inplace_of_a_buffer_given_by_name_raises_an_assertion",
    "cache_inplace with the in-place buffer given by its name (the str form of read_buffer_index): the Python "
    "wrapper finds it among the writes and raises AssertionError 'Expected buffer to be read buffer'",
    ("cache_inplace", SCHEDULE), RAISES, raised("cache_inplace", "Expected buffer to be read buffer"))
bug(FILE, "test_read_at_of_a_legalized_int64_reshape_fails_internally",
    "read_at of LegalizeOps' int64 reshape: InternalError 'Loop variable's dtype (T.int32) is narrower than that "
    "of min or extent (T.int64)'",
    ("read_at", SCHEDULE), RAISES, raised("read_at", r"Loop variable's dtype \(T\.int32\) is narrower"))
bug(FILE, "test_transform_layout_assuming_injectivity_with_a_pad_value_fails_internally",
    "transform_layout with assume_injective_transform=True and a pad_value: RuntimeError 'Back optional access'",
    ("transform_layout", SCHEDULE), RAISES, raised("transform_layout", "Back optional access"))
bug(FILE, "test_transform_layout_accepts_a_non_injective_index_map",
    "transform_layout accepts an index map that sends two indices to one element (i -> i // 2) without "
    "assume_injective_transform: both write the same element, the kernel computes wrong values",
    ("transform_layout", SCHEDULE), EXEC, violated(WRONG_VALUES, call("transform_layout", r"\('collapse'")))
bug(FILE, "test_write_at_after_loop_partition_copies_back_what_is_not_written_yet",
    "write_at in a piece of a loop_partition: the piece declares the whole partition's region, so the copy "
    "back under the loop copies elements later iterations have not written yet",
    ("write_at", SCHEDULE), READS, violated(GARBAGE, "loop_partition", "write_at"))
# The same regions, through cache_write: its cache is allocated inside the piece, so each
# iteration's copy back overwrites the rows earlier iterations finished with what this one did
# not write. Launched on a GPU (bind_rest binds the piece's outer loop) the threads race on it.
bug(FILE, "test_cache_write_in_a_loop_partition_piece_copies_back_the_whole_partition",
    "cache_write of a block in a piece of a loop_partition: the piece declares the whole partition's region, so "
    "each iteration copies the whole (freshly allocated) cache back, overwriting what earlier iterations wrote; "
    "on a GPU the threads race on it",
    ("cache_write", SCHEDULE, "gpu-target"), (*READS, "gpu_emulated_matches_cpu", "gpu_matches_cpu", "gpu_threads_ordered"),
    violated(f"{GARBAGE}|GPU threads race", "loop_partition", "cache_write"))
bug(FILE, "test_cache_read_after_loop_partition_copies_before_the_last_piece",
    "cache_read (or reindex_cache_read) of a consumer's read of a partitioned block: the first piece declares the "
    "whole partition's region, so the copy is placed after it, before the later pieces write their part; "
    "likewise cache_write (reindex_cache_write) of a producer whose consumer was partitioned: the write-back "
    "lands after the first piece, which the later pieces read before",
    ("cache_read", "reindex_cache_read", "cache_write", "reindex_cache_write", SCHEDULE), READS,
    violated(GARBAGE, "loop_partition", "cache_read|reindex_cache_read")
    # (the block written is not the partitioned one or a piece of it, X_i10: that is the piece's own
    # cache, above)
    + rf"|(?:{GARBAGE}).*\bloop_partition\('\w+' of '(\w+)'.*\b(?:reindex_)?cache_write\('(?!\1(?:_\w*)?')\w+'")
bug(FILE, "test_merge_of_a_loop_with_itself_duplicates_the_nest",
    "merge given a loop twice (a block computed at another's loop or a read_at/write_at copy, merged with it): "
    "the nest is duplicated, "
    "verify_well_formed rejects the second definition of its loop vars",
    ("merge", SCHEDULE), ("well_formed_before_after", "block_instances_exactly_once"),
    # (read_at/write_at put their copy in the nest of the block they copy for, decompose_reduction
    # its init block in the update's)
    violated(rf"{ILL_FORMED}|\(twice\)", "compute_at|reverse_compute_at|read_at|write_at|decompose_reduction", "merge")
    # or the references name one loop twice (merge('bcast', other='post<0'): post's producer is bcast)
    + rf"|(?:{ILL_FORMED}|\(twice\)).*\bsch\.merge\(('\w+' of '\w+'), (?:[^\n]*, )?\1[,)]")
# merge of a block with the cache it reads through (merge('post', other='post<0')) is the kept
# test_merge_ignores_producer_consumer_order (wrong_results.py), recognised by the blocks its
# references resolved to.
bug(FILE, "test_decompose_padding_at_a_loop_a_consumer_shares_drops_the_consumer",
    "decompose_padding at a (fused) loop that a consumer was moved under by reverse_compute_at: the consumer "
    "is dropped, the output never written",
    ("decompose_padding", SCHEDULE), EXEC, violated(WRONG_VALUES, "reverse_compute_at", "decompose_padding"))
bug(FILE, "test_fuse_reduction_epilogue_of_a_join_reads_the_other_branch_too_early",
    "fuse_reduction_epilogue of an epilogue that also reads a block computed after the reduction (a join of two "
    "branches): the fused reduction reads that block before it is computed",
    ("fuse_reduction_epilogue", SCHEDULE), READS, violated(GARBAGE, "fuse_reduction_epilogue"),
    # the epilogue (a block reading two regions) is the one the step names, or (named by reference,
    # 'red>0') the fused reduction's init reads an intermediate
    ir=r'T\.sblock\("(\w+)"\)(?:(?!T\.sblock\().)*?T\.reads\([^\n]*\], \w+\[.*'
       r"\bfuse_reduction_epilogue\('\w+', epilogue='\1'"
       r"|\n\s+(\w+) = T\.sblock_alloc_buffer\(.*T\.init\(\):\s*\n\s*\w+\[[^\n]*\] = [^\n]*\b\2\[")
bug(FILE, "test_blockize_of_a_loop_partition_piece_binds_the_outer_loop_to_zero",
    "blockize of the loop of a loop_partition piece: the piece's block declares the whole partition's region, and "
    "the new outer block binds the loops outside the piece to 0 (v_i0_o = 0): the piece computes row 0 only, the "
    "other rows are never written",
    ("blockize", SCHEDULE), READS, violated(GARBAGE, "loop_partition", "blockize"))
bug(FILE, "test_decompose_padding_of_a_loop_partition_piece_uses_loop_vars_inside_the_block",
    "decompose_padding of a loop_partition piece (whose block declares the whole partition's region): the "
    "in-bound copy block binds its outer iterators to 0 and indexes with the loop vars themselves inside the "
    "block (verify_well_formed rejects it)",
    ("decompose_padding", SCHEDULE), ("well_formed_before_after", "builds_for_gpu"),
    violated(ILL_FORMED, "loop_partition", "decompose_padding"))
bug(FILE, "test_loop_partition_of_a_fused_loop_reuses_the_block_iterators",
    "loop_partition of a loop fuse made: every piece's block reuses the same iterator variables (v_i0 defined in "
    "each piece), which verify_well_formed rejects; the same partition of an unfused loop is well-formed",
    ("loop_partition", SCHEDULE), ("well_formed_before_after", "builds_for_gpu"),
    violated(ILL_FORMED, "fuse", "loop_partition"))
