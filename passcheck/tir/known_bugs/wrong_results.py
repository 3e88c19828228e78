"""Schedule primitives that make kernels compute wrong values, or run block instances zero
times, twice or outside their domain; and TVM's own kernels that leave outputs unwritten (kept
in tests/tir/test_tvm_bugs_wrong_results.py)."""

from passcheck.tir.known_bugs.patterns import (
    MISSING,
    OUT_OF_BOUNDS,
    SCHEDULE,
    UNINIT,
    WRONG_VALUES,
    bug,
    call,
    violated,
)

FILE = "test_tvm_bugs_wrong_results"
# On a GPU target the same kernels' wrong values show when the kernel as launched is emulated
# (gpu_emulated_matches_cpu) and when a GPU runs it (gpu_matches_cpu, a bundle's result).
EXEC = ("equivalent_by_execution", "gpu_emulated_matches_cpu", "gpu_matches_cpu")
# A wrong value that comes from reading what nobody wrote: the static check sees the read too.
READS = (*EXEC, "reads_initialised")
GARBAGE = f"{WRONG_VALUES}|{UNINIT}"
ONCE = ("block_instances_exactly_once",)
SPLIT = "split|loop_partition"

bug(FILE, "test_reverse_compute_at_under_a_fused_loop_shrinks_the_reduction_window",
    "reverse_compute_at of a pooling under its producer's fused loop (or its outer loop: a 3-wide window of "
    "stride 3 over 11 columns): the regenerated reduction loops shrink (to 1, to 2), windows lose elements",
    ("reverse_compute_at", SCHEDULE), (*ONCE, *EXEC),
    violated(f"{MISSING}|{WRONG_VALUES}", "fuse", "reverse_compute_at")
    # (unfused: the pooling without padding, whose window no if_then_else guards)
    + f"|(?:{violated(f'{MISSING}|{WRONG_VALUES}', call('reverse_compute_at', first='pool'))})",
    ir=r"\bpool\[[^\n]*padding=\(0, 0\)|\bfuse\(")
bug(FILE, "test_reverse_compute_at_skips_padding_rows",
    "reverse_compute_at of a consumer that pads (a padding block, or one a padding was inlined into) under its "
    "producer's loop computes only the rows that read the producer: the padding rows are never written",
    ("reverse_compute_at", SCHEDULE), (*ONCE, *READS), violated(f"{MISSING}|{GARBAGE}", "reverse_compute_at"),
    # the moved block's body (up to the next block) has an if_then_else
    ir=r"T\.sblock\(\"(\w+)\"\)(?:(?!T\.sblock\().)*?T\.if_then_else\(.*\breverse_compute_at\('\1'")
bug(FILE, "test_reverse_compute_at_of_a_reshape_computes_half_the_consumer",
    "reverse_compute_at of a reshape under its producer's row loop: the regenerated loops cover half the "
    "consumer's instances, the rest is never computed",
    ("reverse_compute_at", SCHEDULE), (*ONCE, *EXEC),
    violated(f"{MISSING}|{WRONG_VALUES}", call("reverse_compute_at", first="(?:T_)?reshape")))
bug(FILE, "test_vectorize_shares_a_compacted_intermediate_between_lanes",
    "vectorize of a loop that holds an intermediate's producer and consumer (one moved under the other's "
    "loop, or write_at/read_at's copy placed there): the compacted 1-element intermediate is shared by all lanes",
    ("vectorize", SCHEDULE), EXEC,
    # the copy placed in a loop vectorized before or after
    "(?:" + violated(WRONG_VALUES, "reverse_compute_at|compute_at|write_at|read_at", "vectorize") + ")|(?:"
    + violated(WRONG_VALUES, "vectorize", "read_at|write_at") + ")")
bug(FILE, "test_reindex_write_after_reverse_compute_at_copies_back_too_late",
    "reindex of a write after reverse_compute_at (or write_at, whose copy is such a consumer): the copy back runs "
    "after the consumer already read the buffer",
    ("reindex", SCHEDULE), READS, violated(GARBAGE, "reverse_compute_at|write_at", call("reindex", "'write'")))
bug(FILE, "test_reindex_read_after_reverse_compute_at_copies_before_the_producer",
    "reindex of a consumer's read after reverse_compute_at moved it under its producer: the copy goes before the "
    "producer's nest and copies what the producer has not written yet (the read twin of the write case); the "
    "same after read_at put the copy it reads inside the consumer's nest",
    # (or read_at put the producer, its copy, inside the consumer's nest)
    ("reindex", SCHEDULE), READS, violated(GARBAGE, "reverse_compute_at|read_at", call("reindex", "'read'")))
bug(FILE, "test_reindex_write_after_compute_at_copies_back_too_late",
    "reindex of a write after compute_at (the twin of the reverse_compute_at case): the copy back comes after "
    "the consumer's reads",
    ("reindex", SCHEDULE), READS, violated(GARBAGE, "compute_at", call("reindex", "'write'")))
bug(FILE, "test_write_at_after_decompose_reduction_leaves_the_init_behind",
    "write_at after decompose_reduction: the init block still writes the original buffer, the cache "
    "accumulates garbage",
    ("write_at", SCHEDULE), READS, violated(GARBAGE, "decompose_reduction", "write_at"))
bug(FILE, "test_cache_write_of_a_blockized_reduction_leaves_the_init_behind",
    "cache_write of a blockized reduction: the outer block's init misses the cache",
    ("cache_write", SCHEDULE), READS, violated(GARBAGE, "blockize", "cache_write"))
bug(FILE, "test_write_at_of_a_blockized_reduction_leaves_the_init_behind",
    "write_at of a blockized reduction: the init stays on the original buffer (like cache_write)",
    ("write_at", SCHEDULE), READS, violated(GARBAGE, "blockize", "write_at"))
bug(FILE, "test_reindex_of_a_blockized_reduction_computes_garbage",
    "reindex of a read or of the write of a blockized reduction: the outer block's init is left on the "
    "original buffer",
    ("reindex", SCHEDULE), READS, violated(GARBAGE, "blockize", "reindex"))
bug(FILE, "test_rfactor_after_a_non_dividing_split_sums_uninitialised_partials",
    "rfactor after a non-dividing split: the write-back also sums the partials of the predicated-off lanes, "
    "never written",
    ("rfactor", SCHEDULE), READS, violated(GARBAGE, SPLIT, "rfactor"))
bug(FILE, "test_fuse_reduction_epilogue_folds_a_bias_into_a_max_reduction",
    "fuse_reduction_epilogue folds a bias epilogue into a max reduction's init: max(b, x...) is not "
    "max(x...) + b",
    ("fuse_reduction_epilogue", SCHEDULE), EXEC, violated(WRONG_VALUES, "fuse_reduction_epilogue"),
    ir=r"op=max\b.*\+post\(bias\)")
# Both merges ignore the dependence between the nests; they differ in which comes first in the
# input (the first module of the finding's IR: a block named in it, then another, both before
# the output module begins).
_IN_INPUT = r"(?:(?!@I\.ir_module).)*?"
_TWO_BLOCKS = rf"\A{_IN_INPUT}@I\.ir_module{_IN_INPUT}T\.sblock\(\"(\w+)\"\){_IN_INPUT}T\.sblock\(\"(\w+)\"\).*"


def _merged(first: str, other: str) -> str:
    """merge of ``first``'s loop with ``other``'s, as drawn or, where the step found its blocks by
    reference, as the case's output resolved them (``# resolved: merge 'post', ...``)."""
    return rf"(?:\bmerge\('{first}'|# resolved: merge '{first}'), loops=\[\d+\], other='{other}'"


bug(FILE, "test_merge_ignores_producer_consumer_order",
    "merge of a consumer's loop with an earlier producer's puts the consumer first: it reads the producer "
    "before the later nest computes it",
    ("merge", SCHEDULE), READS, violated(GARBAGE, "merge"),
    # (or, named by reference, the other is a producer of the first: a cache a step made for it)
    # (decompose_reduction's init block, 'red+init', is the update's producer too)
    ir="(?:" + _TWO_BLOCKS + _merged(r"\2", r"\1") + r")|\bmerge\('(\w+)', loops=\[\d+\], other='\3(?:<\d+|\+init)'")
# A block a step made (rfactor's, a cache's: drawn by reference, "red+rf", "post<1") is in no
# input module: merged with another nest, the same skip, whichever made it; after a step that made
# blocks, a reference in any position of the merge (a block merged with its own producer,
# merge('red', other='red<0'), is the order bug above).
_MAKERS = "cache_read|cache_write|reindex_cache_read|reindex_cache_write|reindex|rfactor|read_at|write_at"
_MADE = (r"\bmerge\('\w+(?:\+rf|[<>]\d+)[^']*', loops=\[\d+\], other='|(?:" + call(_MAKERS) + r").*"
         r"\bmerge\((?!'(?P<b>\w+)', loops=\[\d+\], other='(?P=b)<\d+'[,)])[^\n]*'\w+(?:\+rf|[<>]\d+)[^']*'")
bug(FILE, "test_merge_of_nests_two_stages_apart_skips_the_stage_between",
    "merge of a producer's nest with a later consumer's two stages apart: the consumer moves ahead of the stage "
    "between, which it reads (rfactor's write-back between the rfactor block and a consumer, say)",
    ("merge", SCHEDULE), READS, violated(GARBAGE, "merge"),
    ir="(?:" + _TWO_BLOCKS + _merged(r"\1", r"\2") + ")|" + _MADE)
bug(FILE, "test_pad_einsum_pads_a_max_reduction_with_zeros",
    "pad_einsum accepts a max reduction and pads its reduction axis with 0: a window of negative values gets "
    "maximum 0",
    ("pad_einsum", SCHEDULE), EXEC, violated(WRONG_VALUES, "pad_einsum"), ir=r"op=max\b")
bug(FILE, "test_pad_einsum_pads_a_loop_shared_with_another_block",
    "pad_einsum pads loops it shares with a block moved under them (compute_at, or merged with them, or a "
    "write_at/read_at copy placed there), which "
    "then runs instances out of its domain",
    ("pad_einsum", SCHEDULE), ("block_instances_within_domain", "block_access_region_contained", "bounds_safe_z3"),
    # the moved block runs the padding's instances (outside), and so reads past its region, and
    # past its buffers where the padding exceeds them
    # (out of bounds after compute_at is test_pad_einsum_after_compute_at_stores_out_of_bounds)
    "(?:" + violated(r"\((?:outside|region)\)", "reverse_compute_at|compute_at|merge|write_at|read_at",
                    "pad_einsum") + ")"
    "|(?:" + violated(OUT_OF_BOUNDS, "merge", "pad_einsum") + ")")
bug(FILE, "test_loop_partition_drops_the_iterations_its_factors_miss",
    "loop_partition with factors short of the extent is accepted (split refuses them): the uncovered iterations "
    "are dropped",
    # (factors holding None cover the extent: None takes the rest; an ill-formed result is the fused
    # loop's bug in forms.py)
    ("loop_partition", SCHEDULE), EXEC,
    violated(WRONG_VALUES, call("loop_partition", r"factors=\[(?![^\]]*None)")))
bug(FILE, "test_decompose_padding_after_compute_at_reads_the_producer_too_early",
    "decompose_padding after compute_at: the in-bound copy reads the producer before it is computed (or "
    "InternalError in_bound_filling_pos)",
    ("decompose_padding", SCHEDULE), (*READS, "transformation_does_not_raise"),
    f"(?:{violated(GARBAGE, 'compute_at', 'decompose_padding')})|in_bound_filling_pos\\.defined\\(\\)")
bug(f"{FILE}_2", "test_a_reduction_over_an_empty_axis_leaves_its_output_unwritten",
    "a TE/TOPI reduction over an axis of extent 0 never runs its init (it runs at the first reduction "
    "iteration): the output is left unwritten, not 0 or -inf (Relax R.sum too), or an intermediate is, and "
    "the output is computed from it",
    (), (*EXEC, "reads_initialised"), r"the unscheduled kernel (?:leaves \d+ of \d+ output elements unwritten|computes \d+ of \d+ "
              r"output elements from intermediate elements no store wrote)")
bug(f"{FILE}_2", "test_vectorize_of_an_argmax_computes_wrong_indices",
    "vectorize of the spatial loop of an argmax (a reduction block writing an index and a value, updated through "
    "two let-bound Selects; the reduction loop stays serial inside): wrong indices on plain integer inputs",
    ("vectorize", SCHEDULE), EXEC, violated(WRONG_VALUES, "vectorize"),
    # a reduction block that writes two buffers (argmax's index and value)
    ir=r"T\.writes\(\w+\[[^\]\n]*\], \w+\[")
bug(f"{FILE}_2", "test_loop_partition_of_a_reduction_loop_initialises_again_in_each_piece",
    "loop_partition of a reduction loop (factors covering it): every piece's block keeps the reduction's T.init(), "
    "and a later piece's resets the accumulator: the sum (max, ...) covers the last piece only",
    # (factors without None may fall short of the extent: that is the bug above)
    ("loop_partition", SCHEDULE), EXEC, violated(WRONG_VALUES, call("loop_partition", r"factors=\[[^\]]*None")),
    # two partition pieces, each with an init
    ir=r"_partition\"\)(?:(?!_partition\"\)).)*?T\.init\(\)(?:(?!_partition\"\)).)*?_partition\"\)(?:(?!_partition\"\)).)*?"
       r"T\.init\(\)")
bug(f"{FILE}_2", "test_loop_partition_of_a_loop_not_starting_at_zero_misplaces_its_pieces",
    "loop_partition of a loop whose min is not 0 (a piece an earlier loop_partition made): the pieces' bounds "
    "are computed as if it started at 0 (range(3, 1), range(1, 4), range(4, 7) for range(3, 10)): elements are "
    "never written, others twice",
    ("loop_partition", SCHEDULE), READS, violated(GARBAGE, "loop_partition", "loop_partition"))
bug(f"{FILE}_2", "test_pad_einsum_of_a_sum_over_an_inlined_expression_adds_the_padding",
    "pad_einsum of a sum whose body is an expression of the loads, not a product (a producer compute_inline'd "
    "into it: X * 0.5 + 1): the padded reduction axis adds f(0) = 1 per padded element",
    ("pad_einsum", SCHEDULE), EXEC, violated(WRONG_VALUES, "compute_inline", "pad_einsum"))
bug(f"{FILE}_2", "test_reverse_compute_at_under_a_predicated_loop_the_producer_ignores_runs_every_iteration",
    "reverse_compute_at under the predicated inner loop of a non-dividing split that the producer's binding does not "
    "use (a unit loop split with preserve_unit_iters=False): the consumer gets no predicate and runs in every "
    "iteration, the intermediate is allocated per iteration, and the consumer reads it where nothing was written",
    ("reverse_compute_at", SCHEDULE), READS,
    violated(GARBAGE, call("split", "preserve_unit_iters=False"), "split", "reverse_compute_at"),
    ir=r"T\.where\(")
bug(f"{FILE}_2", "test_transform_layout_with_padding_drops_a_block_computed_at_the_writer",
    "transform_layout with pad_value of the buffer a block writes, where compute_at moved that block's producer "
    "under its loop: the rewritten nest (the padded layout's loops) holds the writer only, the producer block is "
    "gone, and the writer reads its buffer unwritten",
    ("transform_layout", SCHEDULE), READS, violated(GARBAGE, "compute_at", call("transform_layout", "pad_value=")))
