"""Known TVM 0.27 bugs found on the GPU target, each kept as a repro in
tests/gpu/test_tvm_bugs_gpu.py (see ``passcheck.core.known``)."""

from passcheck.core.known import KnownBug, register_known_bug

register_known_bug(KnownBug(
    name="test_rfactor_of_a_0d_reduction_with_a_consumer",
    repro="tests/gpu/test_tvm_bugs_gpu.py",
    note="rfactor of a reduction into a 0-d buffer that a later block reads fails an internal check "
         "(BlockReplacer: block_realize == old_block_realize_) instead of applying; DLight's gpu.Reduction "
         "rule calls it, so TVM's CUDA pipeline cannot build a mean over all axes",
    # On the GPU subjects only: the same check failing under a CPU rfactor is the kept TIR repro
    # test_rfactor_after_reorder_and_compute_at_fails_internally.
    subjects=("gpu-target", "relax-gpu-target"),
    properties=("transformation_does_not_raise", "relax_builds_for_gpu", "builds_for_gpu"),
    message=r"block_realize == old_block_realize_",
))
register_known_bug(KnownBug(
    name="test_inject_virtual_thread_segfaults_on_a_symbolic_extent",
    repro="tests/gpu/test_tvm_bugs_gpu.py",
    note="a loop of symbolic extent bound to vthread.x is accepted by the schedule, then InjectVirtualThread "
         "dies with SIGSEGV in the build (CUDA and LLVM) instead of raising an error",
    # the worker's own death (a bundle runner's is another bug: a block left on the host)
    message=r"the worker process died \(signal SIGSEGV\)",
    # the crashed worker leaves no IR: the example's description (a symbolic spec, a vthread bind)
    ir=r"(?s)\+sym.*vthread|thread_binding\((?!\d)[^,]*, thread=\"vthread",
))
register_known_bug(KnownBug(
    name="test_bind_accepts_a_cross_thread_reduction_it_cannot_lower",
    repro="tests/gpu/test_tvm_bugs_gpu.py",
    note="bind accepts a reduction loop that is not the innermost bound to threadIdx; LowerCrossThreadReduction "
         "(every build) then rejects the module instead of bind refusing with a ScheduleError",
    properties=("well_formed_before_after", "builds_for_gpu"),
    message=r"Cross-thread reduction requires all the reduction-related loops to be the deepest",
))
register_known_bug(KnownBug(
    name="test_get_sblock_of_an_init_block_fails_an_internal_check",
    repro="tests/gpu/test_tvm_bugs_gpu.py",
    note="get_sblock of a block that blockize left inside another block's T.init() fails an internal check "
         "(stmt2ref) instead of returning it or raising a ScheduleError",
    properties=("transformation_does_not_raise",),
    message=r"stmt2ref\.end\(\)",
))
register_known_bug(KnownBug(
    name="test_bind_accepts_nested_loops_bound_to_one_thread_axis",
    repro="tests/gpu/test_tvm_bugs_gpu.py",
    note="bind accepts a loop bound to blockIdx.x inside another loop bound to blockIdx.x; the build merges "
         "both into one launch dimension of the larger extent with no guard, so the smaller loop's accesses "
         "run out of bounds, instead of bind refusing with a ScheduleError",
    # the CPU build lowers the bindings alike (a schedule drawn for the CPU may bind threads)
    subjects=("gpu-target", "schedule", "bind"),
    # Loops of equal extents: no access out of bounds, but the block has one index where it had
    # two (the diagonal), which only running the kernel as launched shows.
    properties=("bounds_safe_z3", "gpu_bounds_safe_z3", "gpu_emulated_matches_cpu", "gpu_matches_cpu"),
    message=r"accesses memory out of bounds|computes different values",
    # a thread_binding to an axis inside a thread_binding to the same axis (deeper indentation
    # all the way between them). Each line between is matched one way only ("\1 " then the
    # rest): "\1 +[^\n]*" could split a line's spaces many ways, exponential in the lines when
    # there is no match (it held a 500-example GPU campaign for minutes per example)
    ir=r'(?m)^( *)for \w+ in T\.thread_binding\([^\n]*thread="(\w+\.\w)"\):\n(?:\1 [^\n]*\n)*?\1 +for \w+ in '
       r'T\.thread_binding\([^\n]*thread="\2"\)',
))
register_known_bug(KnownBug(
    name="test_bind_accepts_a_symbolic_reduction_it_cannot_build",
    repro="tests/gpu/test_tvm_bugs_gpu_symbolic_reduce.py",
    note="bind accepts a reduction loop of symbolic extent bound to threadIdx; the CUDA build's cross-thread "
         "allreduce needs a constant extent and fails an internal check instead of bind refusing",
    properties=("builds_for_gpu",),
    message=r"Need constant extent for reduce set",
))
register_known_bug(KnownBug(
    name="test_cuda_codegen_writes_an_8_lane_broadcast_with_eight_arguments",
    repro="tests/gpu/test_tvm_bugs_gpu_codegen.py",
    note="an 8-lane vector of 32-bit values with a broadcast in it (a constant, or an index the same for every "
         "lane): the CUDA codegen packs it into a (u)longlong4 but writes make_(u)longlong4 with eight "
         "arguments, which NVRTC rejects",
    properties=("builds_for_gpu",),
    message=r"too many arguments in function call;.*\bvectorize\(",
))
register_known_bug(KnownBug(
    name="test_cuda_codegen_has_no_type_for_a_float_vector_of_5_12_or_16_lanes",
    repro="tests/gpu/test_tvm_bugs_gpu_codegen.py",
    note="vectorize accepts a loop of any extent, and the CUDA codegen has no C type for float32 vectors of 5, 12 "
         "or 16 lanes: the build fails an internal check instead of vectorize refusing or the lanes being split",
    properties=("builds_for_gpu",),
    message=r"(?:Cannot convert type T\.\w+ to CUDA type|only support even lane for \w+ type with lanes > 4)"
            r".*\bvectorize\(",
))
register_known_bug(KnownBug(
    name="test_pad_einsum_pads_an_int32_buffer_past_the_largest_size",
    repro="tests/gpu/test_tvm_bugs_gpu_codegen.py",
    note="pad_einsum keeps int32 indices for the padded buffers it adds: for an input that int32 indexes (n * 12 "
         "elements), the padded copy holds up to 2**31 + 23, its size and flattened index wrap negative in the GPU "
         "kernel",
    properties=("gpu_bounds_safe_z3",),
    # a witness against a buffer whose size wrapped negative, in a schedule that pads
    message=r"accesses memory out of bounds:\n  [^\n]*outside \[0, -\d+\).*\bpad_einsum\(",
))

# --- what the host code and the runtime make of a schedule (tests/gpu/test_tvm_bugs_gpu_launch.py)
LAUNCH = "tests/gpu/test_tvm_bugs_gpu_launch.py"
# an input with a dimension of 0: TIR's description (matmul[0, 8]...) or Relax's TVMScript
ZERO_SIZE = r"(?m)^\w+\[(?:\d+, )*0\b|R\.Tensor\(\((?:[^()]*?, )?0[,)]"

register_known_bug(KnownBug(
    name="test_a_launch_axis_of_extent_zero_runs_one_block",
    repro=LAUNCH,
    note="a loop bound to blockIdx or threadIdx whose extent is 0 at run time (an input with a dimension of 0) "
         "runs once: the host passes the extent 0, TVM's CUDA runtime launches it as 1 (LaunchParamConfig::"
         "Extract) and the kernel has no guard, so that thread reads and writes past empty buffers",
    subjects=("gpu-target", "relax-gpu-target"),
    properties=("gpu_bounds_safe_z3", "relax_gpu_bounds_safe_z3"),
    message=r"TVM's runtime launches an axis of extent 0 as 1",
))
register_known_bug(KnownBug(
    name="test_the_gpu_faults_on_a_launch_axis_of_extent_zero",
    repro=LAUNCH,
    note="the GPU side of test_a_launch_axis_of_extent_zero_runs_one_block: the kernel of a zero-size input "
         "makes an illegal memory access (cudaErrorIllegalAddress)",
    subjects=("gpu-target", "relax-gpu-target"),
    properties=("gpu_matches_cpu", "relax_gpu_matches_cpu"),
    message=r"cudaErrorIllegalAddress",
    ir=ZERO_SIZE,
    shows_on="a CUDA GPU",
))
register_known_bug(KnownBug(
    name="test_verify_memory_misses_host_accesses_through_flattened_buffers",
    repro=LAUNCH,
    note="a CUDA function with a block under no blockIdx/threadIdx loop (unbound, or bound only to vthread.x, "
         "which InjectVirtualThread removes) builds into host code that loads and stores device memory: "
         "VerifyMemory ('Did you forget to bind?') looks only at buffers named by the parameters, and after "
         "FlattenBuffer every access goes through a decl_buffer alias; calling the library segfaults",
    subjects=("gpu-target",),
    properties=("builds_for_gpu",),
    message=r"accessed by the host code, outside every kernel launch",
))
register_known_bug(KnownBug(
    name="test_a_block_left_on_the_host_segfaults_when_called",
    repro=LAUNCH,
    note="the GPU side of test_verify_memory_misses_host_accesses_through_flattened_buffers: the bundle runner "
         "dies with SIGSEGV calling the library (its host code dereferences device pointers)",
    subjects=("gpu-target",),
    properties=("gpu_matches_cpu",),
    shows_on="a CUDA GPU",
    # the first GPU run's runner reported the exit code; it now names the signal
    message=r"crash: the runner process died \((?:exit code -11|signal SIGSEGV)\).*'vthread\.",
))
register_known_bug(KnownBug(
    name="test_cross_thread_reduction_under_a_host_loop_shares_its_accumulator",
    repro=LAUNCH,
    note="a reduction bound across threadIdx whose spatial loop stays in the host code (one launch per "
         "iteration): LowerCrossThreadReduction allocates the per-thread accumulator in_thread_red (or red_buf0, "
         "'local') outside the kernel, so the host allocates it in device memory and every thread of the launch "
         "adds into its one element",
    subjects=("gpu-target",),
    properties=("gpu_no_lost_updates", "gpu_threads_ordered", "gpu_emulated_matches_cpu"),
    # in_thread_<block> (in_thread_red, in_thread_pool), or red_buf0 when the threads cover the
    # reduction exactly (no in-thread loop)
    message=r"(?:lose each other's updates|race).*\b(?:in_thread_|red_buf)\w*\[",
))

# --- DLight on empty tensors (tests/gpu/test_tvm_bugs_gpu_dlight.py) ------------------------------
DLIGHT = "tests/gpu/test_tvm_bugs_gpu_dlight.py"
# where DLight runs: TVM's CUDA pipeline for a Relax pass's output, and `passcheck dlight`
DLIGHT_PROPS = ("relax_builds_for_gpu", "transformation_does_not_raise", "builds_for_gpu")
register_known_bug(KnownBug(
    name="test_dlight_general_reduction_of_an_empty_tensor_fails_in_compute_at",
    repro=DLIGHT,
    note="DLight's GeneralReduction rule on a reduction whose spatial extent is 0 (an argmax of an input with a "
         "dimension of size 0) fails in compute_at ('All the statements in the scope are schedulable "
         "statements') instead of scheduling an empty kernel: TVM's CUDA pipeline cannot build the graph",
    subjects=("relax-gpu-target", "gpu-target"),
    properties=DLIGHT_PROPS,
    message=r"All the statements in the scope are schedulable statements",
    ir=ZERO_SIZE,
))
register_known_bug(KnownBug(
    name="test_dlight_reduction_of_an_empty_tensor_fails_an_internal_check",
    repro=DLIGHT,
    note="DLight's Reduction rule on a reduction whose spatial extent is 0 fails an internal check "
         "(!info.dom.IsNothing()) instead of scheduling an empty kernel",
    subjects=("relax-gpu-target", "gpu-target"),
    properties=DLIGHT_PROPS,
    message=r"info\.dom\.IsNothing\(\)",
    ir=ZERO_SIZE,
))
register_known_bug(KnownBug(
    name="test_fuse_of_loops_one_of_extent_zero_divides_by_zero",
    repro=DLIGHT,
    note="fuse of a loop nest whose inner loop has the constant extent 0 (a tensor with a dimension of size 0 "
         "after the first) fails an internal check ('Divide by zero': the fused index is split by the inner "
         "extents) instead of fusing or refusing; DLight's Fallback fuses every spatial loop, so TVM's CUDA "
         "pipeline cannot build an elementwise op on such a tensor",
    subjects=("relax-gpu-target", "gpu-target"),
    properties=DLIGHT_PROPS,
    message=r"pb->value != 0 .*Divide by zero",
    ir=ZERO_SIZE,
))
register_known_bug(KnownBug(
    name="test_dlight_fallback_inlines_an_epilogue_into_a_unit_reduction_twice",
    repro=DLIGHT,
    note="DLight's Fallback rule on a reduction over an axis of extent 1 followed by an epilogue (red + side): "
         "normalize_prim_func drops the unit reduction loop but keeps the block's init, and reverse_compute_inline "
         "then puts the epilogue in both the init and the update, so the epilogue's operand is added twice",
    subjects=("gpu-target", "relax-gpu-target"),
    properties=("gpu_emulated_matches_cpu", "gpu_matches_cpu", "relax_gpu_matches_cpu"),
    message=r"computes different values|wrong numbers",
    # an init that stores more than the reduction's identity (a literal, or T.min_value(...)):
    # the epilogue applied to it (0 + side, max(0, 0) - 0.25)
    ir=r"with T\.init\(\):\n\s*\w+\[[^\]\n]*\] = (?!T\.\w+\([^()\n]*\)\s*\n)",
))
register_known_bug(KnownBug(
    name="test_bind_under_a_local_cache_splits_the_cache_between_threads",
    repro="tests/gpu/test_tvm_bugs_gpu.py",
    note="bind accepts binding a loop to threadIdx inside a block that stages its output in a local cache "
         "(cache_write 'local'): the cache is one per thread, each thread writes only its own part, and the copy "
         "back every thread runs stores the rest's garbage",
    subjects=("gpu-target",),
    properties=("gpu_emulated_matches_cpu", "gpu_threads_ordered", "gpu_matches_cpu"),
    message=r"computes different values|race",
    # a local buffer allocated in a block, then (within a few lines) a loop bound to threadIdx
    ir=r'sblock_alloc_buffer\([^\n]*scope="local"\)(?:\n[^\n]*){0,6}?\n[^\n]*T\.thread_binding\([^\n]*"threadIdx',
))
register_known_bug(KnownBug(
    name="test_bind_of_a_producer_loop_leaves_its_consumer_to_every_thread",
    repro="tests/gpu/test_tvm_bugs_gpu.py",
    note="bind accepts binding a producer's inner loop to threadIdx where a consumer was computed at the loop "
         "around it: the consumer's loop, a sibling of the bound one, runs in every thread of that axis and reads "
         "what the other threads wrote, with no barrier (TVM inserts none for memory that is not shared); its "
         "stores, in place in the producer's buffer after StorageRewrite, race too",
    subjects=("gpu-target",),
    properties=("gpu_threads_ordered", "gpu_emulated_matches_cpu", "gpu_matches_cpu"),
    message=r"(?:race|computes different values).*\b(?:reverse_compute_at|compute_at)\(.*\bbind\(",
    # a loop bound to threadIdx, or a serial loop holding one, then a serial loop beside it (the
    # same indentation, the same parent); each line between is matched one way only
    ir=r'(?m)^( *)for \w+ in (?:T\.thread_binding\([^\n]*thread="threadIdx\.\w"\):\n'
       r'|(?:range|T\.grid)\([^\n]*\n(?:\1 [^\n]*\n)*?\1 +for \w+ in T\.thread_binding\([^\n]*thread="threadIdx\.\w"\):\n)'
       r'(?:\1 [^\n]*\n)*?\1for \w+ in (?:range|T\.grid)\(',
))
register_known_bug(KnownBug(
    name="test_a_shared_cache_of_a_symbolic_kernel_is_allocated_with_a_negative_size",
    repro="tests/gpu/test_tvm_bugs_gpu_codegen.py",
    note="cache_read into shared memory at the blockIdx loop of a kernel of symbolic extent n (rows of 6): "
         "lowering allocates the compacted cache as T.alloc_shared((-6,)) instead of 2 rows of 6, and the "
         "CUDA codegen fails 'bad optional access' instead of building it or naming the problem",
    subjects=("gpu-target",),
    properties=("builds_for_gpu",),
    message=r"bad optional access",
    # a shared buffer whose shape names a shape var (the cache of a symbolic buffer)
    ir=r'sblock_alloc_buffer\(\([^)\n]*\b[a-z_]\w*\b[^)\n]*\)[^\n]*scope="shared"',
))
register_known_bug(KnownBug(
    name="test_rfactor_of_a_predicated_thread_bound_reduction_is_not_lowered_across_threads",
    repro="tests/gpu/test_tvm_bugs_gpu_launch.py",
    note="rfactor of the outer loop of a non-dividing split whose inner loop is bound to threadIdx: the rf "
         "block's reduction across threads (predicated) is not lowered as a cross-thread reduction, so every "
         "thread read-modify-writes the one partial at once, after thread 0's init with no barrier",
    subjects=("gpu-target",),
    properties=("gpu_no_lost_updates", "gpu_threads_ordered"),
    # the partial's buffer is the rf block's, or one StorageRewrite gave its memory to (pre_global);
    # the in_thread_/red_buf twin is the host-loop accumulator bug above
    message=r"(?s)(?:lose each other's updates|race)(?:(?!in_thread_|red_buf).)*?schedule:.*sch\.bind\(\w+, "
            r"'threadIdx\.\w'\).*\bsch\.rfactor\(",
))
