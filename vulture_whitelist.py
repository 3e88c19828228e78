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

# TVM calls the link callback with these keywords, and reads its output_format attribute
# (passcheck/relax/execution.py: _fast_link replaces tvm.contrib.cc.create_shared).
cc
ccache_env
output_format

# tests/gpu/gpu_buggy_passes.py: the buggy GPU passes of tests/gpu/test_gpu_static.py, named by spec.
short_shared_cache
forgotten_cross_thread_reduction

# TVM's pass instrumentation calls this hook by name (passcheck/tir/gpu/build.py: _StopAtSplit).
should_run

# pytest reads a test module's marks from this name (tests/gpu/test_gpu_execution.py).
pytestmark
