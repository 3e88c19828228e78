"""Names vulture cannot see used, each with where the use is (run by tests/test_structure.py)."""

# Implementations users and tests name by import spec strings ("path/file.py:name"):
my_fold_constant  # examples/my_fold_constant.py, named in the README and examples/README.md
fold_constant_swapped  # tests/buggy_passes.py: the buggy passes of tests/test_buggy_passes.py, by spec
fuse_ops_drops_channel
convert_layout_wrong_perm
decompose_eps_outside_sqrt
fold_constant_raises_on_rank_broadcast
fold_constant_segfaults_on_exp
fold_constant_hangs_on_multiply
to_mixed_precision_scale_off  # tests/test_to_mixed_precision_bounds.py, by spec
fold_constant_hangs_one_in_ten  # tests/test_hangs.py and benchmarks/hangs.py, by spec
fold_constant_hangs_marked  # tests/test_hangs.py, by spec
fold_constant_poisoned_by_tanh  # tests/test_parallel.py, by spec
fold_constant_fails_after_tanh  # tests/test_parallel.py, by spec
identity_pass  # passcheck/core/engine/stock.py: the stock counterpart of a user's pass, by spec (IDENTITY)

# TVM calls the link callback with these keywords, and reads its output_format attribute
# (passcheck/relax/linking.py: fast_link replaces tvm.contrib.cc.create_shared).
cc
ccache_env
output_format

# pytest calls these on its Item subclass (passcheck/integrations/pytest_items.py).
runtest
reportinfo
# Public API for users' test modules: `test_x = passcheck_tests(...)` (README, tests/test_pytest_integration.py
# names it in a generated file).
passcheck_tests
# Given modules of the --corpus tests are read by name (mod / Before / before) from files.
Before
swap_subtract  # examples/planted_bug.py, named by import spec in the README and the tests

# tests/model_buggy_passes.py: buggy passes named by import spec strings in tests/test_model_buggy_passes.py,
# tests/models/test_seed_models.py and tests/test_sequence.py
fold_constant_drops_negation
fold_constant_scales_weights
add_off_by_a_thousandth
visit_generic_const_  # relax.PyExprMutator calls it for every constant

# Attributes read by libraries, not by Python code passcheck can see:
log_severity_level  # onnxruntime.SessionOptions (passcheck/relax/models/oracle.py: quiet sessions)
ir_version  # onnx.ModelProto (passcheck/relax/models/zoo.py: the IR version the model declares)

# tests/gpu/gpu_buggy_passes.py: the buggy GPU passes of tests/gpu/test_gpu_static.py, named by spec.
short_shared_cache
forgotten_cross_thread_reduction
vthread_only

# TVM's pass instrumentation calls this hook by name (passcheck/tir/gpu/build.py: _StopAtSplit).
should_run
run_before_pass  # tests/gpu/test_tvm_bugs_gpu_launch.py: what VerifyMemory is given

# Relax functions of TVMScript modules in tests/test_kernel_cache.py: the module holds them by name.
dynamic
unused
# TVM calls a pass instrument's hooks by name (passcheck.relax.pipelines reads its pipelines' order)
run_before_pass
run_after_pass
# tests/program_buggy_passes.py: the planted bugs of tests/test_program_buggy_passes.py, named by spec
drop_else
reuse_live_buffer
lift_twice
inline_drops_second_argument
inplace_on_parameter
inplace_on_constant
# tests/tir/tir_buggy_passes.py: the planted index narrowing of tests/tir/test_tir_buggy_passes.py, named by spec
narrow_int64_indices
# tests/expected_findings/test_lazy_transform_params_no_parameters.py: a TVMScript function the pass finds by name
helper_transform_params
