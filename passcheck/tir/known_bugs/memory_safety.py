"""Schedule primitives that make kernels access memory out of bounds (bounds_safe_z3; kept in
tests/tir/test_tvm_bugs_memory_safety.py)."""

from passcheck.tir.known_bugs.patterns import OUT_OF_BOUNDS, SCHEDULE, UNINIT, bug, call, violated

FILE = "test_tvm_bugs_memory_safety"
# The lowered kernels checked directly, and as a GPU target compiles them (the same schedule,
# bound to threads: the access the schedule made out of bounds is out of bounds there too).
BOUNDS = ("bounds_safe_z3", "gpu_bounds_safe_z3")
# A non-dividing split (or a sampled tiling, which applies as a split) leaves a predicate that
# the step after it drops.
SPLIT = "split|loop_partition"

bug(FILE, "test_cache_read_after_compute_at_drops_the_predicate",
    "cache_read after compute_at: the cache block drops the producer's predicate and copies rows at "
    "negative indices",
    ("cache_read", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, "compute_at", "cache_read"))
bug(FILE, "test_split_tail_index_wraps_in_int32_near_the_largest_extent",
    "split of a symbolic int32 extent: the tail index i_0 * f + i_1 wraps past INT32_MAX near n = 2**31 - 1 "
    "(a legal buffer) and the tail guard wraps with it; the wrapped index runs instances outside the block's "
    "domain, and a cache computed at the split's loop needs a literal 2**31 that lowering rejects",
    (), (*BOUNDS, "block_instances_within_domain", "block_access_region_contained", "well_formed_before_after"),
    violated(r"evaluates to -2147483648, outside|= -2147483648 is outside its original domain|"
             r"\(dim \d+ = -2147483648\)|Literal value 2147483648 exceeds range of int32", SPLIT))
bug(FILE, "test_read_at_copies_the_unguarded_region",
    "read_at of a padded read copies the unguarded region: loads X[-2]",
    ("read_at", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, "read_at"))
bug(FILE, "test_rfactor_after_a_non_dividing_split_drops_the_predicate",
    "rfactor after a non-dividing split: the write-back block drops the split predicate and stores past "
    "the end (cross_thread_reduction with rfactor=True calls rfactor)",
    ("rfactor", "cross_thread_reduction", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, SPLIT, "rfactor"))
bug(FILE, "test_decompose_reduction_init_block_loses_the_split_predicate",
    "decompose_reduction after a non-dividing split: the init block drops the split predicate",
    ("decompose_reduction", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, SPLIT, "decompose_reduction"))
bug(FILE, "test_write_at_write_back_drops_the_split_predicate",
    "write_at after a non-dividing split: the write-back drops the split predicate and stores past the end "
    "(a local cache compacted to the split's tile: the copy reads a cache element the predicated block never "
    "wrote)",
    ("write_at", SCHEDULE), (*BOUNDS, "reads_initialised"),
    # (the unwritten read after a loop_partition is test_write_at_after_loop_partition_...)
    f"{violated(OUT_OF_BOUNDS, SPLIT, 'write_at')}|{violated(UNINIT, 'split', 'write_at')}")
# Before the padded-read twin below: a split-predicate finding of a padded kernel is this one.
bug(FILE, "test_reindex_cache_read_after_a_non_dividing_split_drops_the_predicate",
    "reindex_cache_read after a non-dividing split: the copy drops the split predicate and loads past the end",
    ("reindex_cache_read", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, SPLIT, "reindex_cache_read"))
bug(FILE, "test_reindex_cache_read_copies_the_unguarded_region_of_a_padded_read",
    "reindex_cache_read, or reindex of a read, of a padded read: the copy drops the if_then_else and loads X[n]",
    ("reindex_cache_read", "reindex", SCHEDULE), BOUNDS,
    # reindex of a read: ('read', j), or the buffer by its name or Var (then the line shows no kind)
    violated(OUT_OF_BOUNDS, call("reindex_cache_read") + "|" + call("reindex", r"(?:'read'|, '\w+'\)|<Var )")),
    ir=r"T\.if_then_else\(")
bug(FILE, "test_reindex_cache_write_after_a_non_dividing_split_drops_the_predicate",
    "reindex_cache_write after a non-dividing split: the write-back drops the split predicate",
    ("reindex_cache_write", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, SPLIT, "reindex_cache_write"))
bug(FILE, "test_tensorize_drops_the_predicate_of_a_split_unit_loop",
    "tensorize with preserve_unit_iters=False after a non-dividing split of a unit loop drops the predicate: "
    "stores rows of a 1-row output, loads columns of a 1-column input",
    ("tensorize", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, SPLIT, call("tensorize", "preserve_unit_iters=False")))
bug(FILE, "test_pad_einsum_after_compute_at_stores_out_of_bounds",
    "pad_einsum pads loops it shares with a block moved there by compute_at (or write_at's write-back), which "
    "then stores out of bounds",
    ("pad_einsum", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, "compute_at|reverse_compute_at|write_at", "pad_einsum"))
bug(FILE, "test_cache_read_of_a_blockized_padding_copies_the_unguarded_region",
    "cache_read of a blockized padding copies the outer block's unclipped read region: loads pre[..., -1]",
    ("cache_read", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, "blockize", "cache_read"))
bug(FILE, "test_blockize_drops_the_predicate_of_the_loop_it_wraps",
    "blockize of a predicated loop (a non-dividing split) loses the predicate: reads X[i, 1..6] of X[:, 0:1]",
    ("blockize", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, SPLIT, "blockize"))
bug(FILE, "test_fuse_reduction_epilogue_of_pad_einsums_copy_back_writes_past_the_output",
    "fuse_reduction_epilogue of the block pad_einsum made to copy the padded reduction back: the fused reduction "
    "writes the unpadded output over the padded domain (red[3] of a 3-element red), instead of a refusal",
    ("fuse_reduction_epilogue", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, "pad_einsum", "fuse_reduction_epilogue"))
bug(FILE, "test_reverse_compute_at_under_a_split_of_a_fused_loop_drops_the_predicate",
    "reverse_compute_at (a cache_write's write-back) under the inner loop of a non-dividing split of a fused loop: "
    "the block's iterators span the whole split (32 rows of 10) with no predicate, and it stores past the buffer "
    "(cache_local does exactly this)",
    ("reverse_compute_at", "cache_local", SCHEDULE, "gpu-target"), BOUNDS,
    violated(OUT_OF_BOUNDS, "fuse", "reverse_compute_at"))
bug(FILE, "test_pad_einsum_of_a_loop_partition_piece_stores_past_the_buffer",
    "pad_einsum of a block whose domain does not start at 0 (a loop_partition piece, range(2, 3)): the domain is "
    "padded to (2, 10) with no padded buffers and no guard, and the block stores ew2[2..9] of 3",
    ("pad_einsum", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, "loop_partition", "pad_einsum"))
bug(FILE, "test_fuse_reduction_epilogue_indexes_the_init_in_block_iterator_order",
    "fuse_reduction_epilogue of a reduction whose block iterators are not in its buffer's index order (rfactor with "
    "factor_axis=-1: iterators (vk0, v_i0), stores red_rf[v_i0, vk0]): the fused init stores red_rf[vk0, v_i0], "
    "transposed, past the buffer's end",
    ("fuse_reduction_epilogue", SCHEDULE), BOUNDS, violated(OUT_OF_BOUNDS, "rfactor", "fuse_reduction_epilogue"))
