"""Schedule primitives that crash the process (kept in tests/tir/test_tvm_bugs_crashes.py). A
crash leaves no IR behind: the finding says the worker died, and the example's steps say what
ran."""

from passcheck.tir.known_bugs.patterns import CRASHED, SCHEDULE, bug, call, calls

FILE = "test_tvm_bugs_crashes"
RAISES = ("transformation_does_not_raise",)

# loop_partition prepares other primitives' examples too, and a crash in a preparatory step is
# reported under the primitive under test: any subject (the steps say what crashed).
bug(FILE, "test_loop_partition_segfaults_on_a_loop_with_two_blocks",
    "loop_partition of a loop holding two blocks (after reverse_compute_at or compute_at, or a read_at/write_at "
    "copy block beside the block): SIGSEGV",
    (), RAISES, CRASHED, ir=calls("reverse_compute_at|compute_at|read_at|write_at", "loop_partition"))
# The routes to one loop merged with itself: two blocks moved into one nest by compute_at, the
# same two blocks merged a second time, a block's loop merged with its own.
_MERGE = r"\bmerge\('([^']+)', loops=\[\d+\], other='"
bug(FILE, "test_merge_of_a_loop_with_itself_segfaults",
    "merge of a loop with itself (two blocks moved into one nest by compute_at (or a sampled compute location), "
    "read_at or write_at, or by a "
    "first merge, then their "
    "loops merged; or a block's loop merged with itself): SIGSEGV",
    ("merge", SCHEDULE), RAISES, CRASHED,
    # (a merge of three loops names the third after the other: ", third='...')")
    # (read_at/write_at put their copy block in the nest of the block they copy for)
    # (sample_compute_location applies a compute_at at the location it samples)
    ir=f"(?:{calls('reverse_compute_at|compute_at|sample_compute_location|read_at|write_at', 'merge')})"
       f"|{_MERGE}\\1'[,)]"
       # two references that resolve to one block (a loop_partition whose factors leave one piece)
       f"|\\bmerge\\('(\\w+)[%<>+^][^']*', loops=\\[\\d+\\], other='\\2[%<>+^][^']*'[,)]"
       # two of the loops a first merge joined (two, or three with third=) merged again
       f"|{_MERGE}([^']+)'(?:, third='([^']+)')?[,)]"
       f".*\\bmerge\\('(?:\\3|\\4|\\5)', loops=\\[\\d+\\], other='(?:\\3|\\4|\\5)'[,)]")
bug(FILE, "test_cache_index_after_fusing_unit_loops_segfaults",
    "cache_index after fusing unit loops: SIGSEGV",
    ("cache_index", SCHEDULE), RAISES, CRASHED, ir=calls("fuse", "cache_index"))
bug(FILE, "test_reindex_of_the_copy_block_a_reindex_made_segfaults",
    "reindex of the copy block a first reindex made (a block with no iterators, directly under the root): "
    "SIGSEGV",
    ("reindex", SCHEDULE), RAISES, CRASHED, ir=calls("reindex", call("reindex", first=r"\w+[<>]\d+")))
