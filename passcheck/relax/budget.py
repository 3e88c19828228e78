"""Known TVM bugs take a budget: a drawn feature that triggers a kept bug comes at the bug's
declared rate (``KnownBug.drawn_rate``: 1% of graphs unless declared), never zero.

Keeping a pattern TVM is broken on drawable is right (never steer around a bug); letting it take
the share its feature happens to have is not: conv2d layouts with W before H are half the
layouts ConvertLayout accepts, and decided a quarter of AlterOpLayout's examples (seeds 6,
101-105: 780 of 3,000) by a bug whose minimal repro is already kept. Each place below draws the
trigger only when the graph's budget roll opens it for that bug (``open_for``), and the bug's
name ties it to the registry: a renamed or removed bug fails here at once.
"""

from __future__ import annotations

from collections.abc import Callable

from passcheck.relax.ops.base import open_for  # (the budget's rule lives with the draws)
from passcheck.relax.ops.numeric import NO_FLOAT16

# Ops a graph of one dtype draws at a kept bug's budget: they type-check in that dtype but TVM
# does not compile or compute them right (each bug's note says how).
OP_DTYPE_BUGS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "test_float16_math_intrinsics": (frozenset({"float16"}), NO_FLOAT16),
    "test_bfloat16_ops_do_not_compile": (frozenset({"bfloat16"}), frozenset(
        {"mod", "log_add_exp", "power", "isnan", "isinf", "isfinite"})),
    "test_float64_computed_in_float32": (frozenset({"float64"}), frozenset(
        {"rms_norm", "resize2d", "resize3d", "affine_grid"})),
    # (53 of FuseOps's 2,000 examples at seed 0: comparisons of comparisons)
    "test_bool_ops_do_not_compile": (frozenset({"bool"}), frozenset(
        {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "clip"})),
    # (80 of FoldConstant's 2,000 examples at seed 0)
    "test_uint8_negation_does_not_compile": (frozenset({"uint8"}), frozenset({"negative", "sign"})),
}


def op_allowed(roll: Callable[[], int], op: str, dtype: str, ops_at_budget: tuple[tuple[str, str], ...] = ()) -> bool:
    """Whether a graph of first dtype ``dtype`` draws ``op`` now: always, unless a kept bug's
    trigger is that op in that dtype (``OP_DTYPE_BUGS``) or the op itself (``ops_at_budget``:
    (op, bug) pairs a pass's bias declares), then at the bug's rate (``roll()``: the graph's
    roll, drawn the first time it is asked for)."""
    for bug, (dtypes, names) in OP_DTYPE_BUGS.items():
        if dtype in dtypes and op in names and not open_for(roll(), bug):
            return False
    return all(open_for(roll(), bug) for name, bug in ops_at_budget if name == op)


# The kept bugs whose trigger the generator draws at their rate (where, in brief): read by the
# test that measures each one's share of drawn examples.
BUDGETED = {
    "test_convert_layout_conv2d_w_before_h": "AlterOpLayout's desired conv2d layouts (relax/layouts.py)",
    "test_convert_layout_packed_conv2d_layouts": "AlterOpLayout's desired conv2d layouts (relax/layouts.py)",
    "test_rms_norm_all_axes": "rms_norm's axes (relax/ops/norm_stats.py)",
    "test_channel_norms_float32_float16_only": "group_norm and instance_norm dtypes (relax/ops/norm_stats.py)",
    "test_instance_norm_negative_channel_axis": "instance_norm's negative channel_axis (relax/ops/norm_stats.py)",
    "test_legalize_batch_norm_training_negative_axis": "batch_norm_training's negative axis (relax/ops/norm.py)",
    "test_fold_batchnorm_to_conv2d_training_mode": "a training-mode batch_norm of FoldBatchnormToConv2D's conv2d (relax/motifs.py)",
    "test_batch_norm_training_float16_variance_overflow": "float16 batch_norm_training whose squares can pass 65504 (relax/ops/norm.py)",
    "test_fold_batchnorm_to_conv2d_float16": "FoldBatchnormToConv2D's float16 graphs (its bias, GraphBias.dtypes_at_budget)",
    "test_fuse_transpose_matmul_shared_transpose": "FuseTransposeMatmul's transpose read again (relax/motifs.py)",
    "test_strided_slice_empty_extent": "strided_slice with begin past end (relax/ops/shape.py)",
    "test_convert_layout_stack": "stack in AlterOpLayout's graphs (its bias)",
    "test_convert_layout_resize2d_layout": "resize2d in AlterOpLayout's graphs (its bias)",
    "test_convert_layout_dropout": "dropout in AlterOpLayout's graphs (its bias)",
    "test_convert_layout_squeeze_negative_axis": "squeeze's negative axes in AlterOpLayout's graphs (its bias)",
    "test_float16_math_intrinsics": "float16 trigonometric ops (OP_DTYPE_BUGS)",
    "test_bfloat16_ops_do_not_compile": "bfloat16 mod, power, isnan, ... (OP_DTYPE_BUGS)",
    "test_float64_computed_in_float32": "float64 rms_norm, resize, affine_grid (OP_DTYPE_BUGS)",
    "test_uint8_negation_does_not_compile": "uint8 negative and sign (OP_DTYPE_BUGS)",
    "test_bool_ops_do_not_compile": "comparisons and clip of bool tensors (OP_DTYPE_BUGS)",
    "test_convert_layout_conv2d_transpose_layout": "conv2d_transpose in AlterOpLayout's graphs (its bias)",
    "test_vm_zero_size_numpy_input": "zero-size inputs passed as NumPy arrays (relax/graphs.py)",
    "test_vm_zero_size_constant_export": "zero-size constants, not empty along their first axis (DrawContext.fresh)",
    "test_fold_constant_checkpoint": "grad checkpoints in FoldConstant's graphs (its bias)",
    "test_fold_constant_dynamic_strided_slice": "dynamic_strided_slice in FoldConstant's graphs (its bias)",
    "test_dynamic_strided_slice_empty": "dynamic_strided_slice with begin past end (relax/ops/shape.py)",
    "test_lift_transform_params_weights_only_output": "outputs computed from weights alone (StructureBias)",
    "test_lazy_transform_params_whole_tuple": "weights of which nothing is lifted (StructureBias)",
    "test_lazy_set_output_dataflow_block": "dataflow blocks in LazySetOutput's programs (StructureBias)",
    "test_lazy_transform_params_missing_import": "LazyTransformParams run as in a fresh process (StructureBias)",
}
