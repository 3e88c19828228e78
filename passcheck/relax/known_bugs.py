"""Known TVM 0.27 bugs of the Relax passes, each kept as a repro under tests/expected_findings/
(see ``passcheck.core.known``)."""

from passcheck.core.known import KnownBug, register_known_bug

register_known_bug(KnownBug(
    name="test_convert_layout_negative_axes",
    repro="tests/expected_findings/test_convert_layout_negative_axes.py",
    note="ConvertLayout raises 'Invalid layout' on permute_dims with negative axes (it maps axis -k to "
         "the letter 'A' - k without normalising it)",
    subjects=("AlterOpLayout",),
    properties=("pass_does_not_raise",),
    message=r"Invalid layout",
    ir=r"\bpermute_dims\b",
))
register_known_bug(KnownBug(
    name="test_convert_layout_layer_norm_axes",
    repro="tests/expected_findings/test_convert_layout_layer_norm_axes.py",
    note="ConvertLayout rewrites a layer_norm over the channel axis and another to unsorted axes but keeps "
         "gamma/beta in the old order: the kernel reads them transposed and past their end",
    subjects=("AlterOpLayout",),
    properties=("semantics_preserved",),
    message=r"wrong numbers",
    # a conv2d (whose layout change moves the channel axis) and a layer_norm over several axes, one
    # of them the channel axis (1 or -3)
    ir=r"(?s)(?=.*R\.nn\.conv2d)(?=.*R\.nn\.layer_norm\([^\n]*axes=\[(?=[^\]]*,)[^\]]*(?<![\d-])(?:1|-3)(?!\d))",
))
register_known_bug(KnownBug(
    name="test_convert_layout_repeat_flatten",
    repro="tests/expected_findings/test_convert_layout_repeat_flatten.py",
    note="ConvertLayout treats repeat(axis=None), which flattens, as layout-agnostic: it flattens the NHWC "
         "tensor instead of the NCHW one, so the elements come out in another order (TVM's own test "
         "test_conv2d_repeat_flatten expects that output)",
    subjects=("AlterOpLayout",),
    properties=("semantics_preserved",),
    message=r"wrong numbers",
    ir=r"(?s)(?=.*R\.nn\.conv2d)(?=.*R\.repeat\([^\n]*axis=None)",
))
register_known_bug(KnownBug(
    name="test_decompose_batch_norm_training_mode",
    repro="tests/expected_findings/test_decompose_batch_norm_training_mode.py",
    note="DecomposeOpsForInference rewrites a batch_norm in training mode (training=True, TVMScript's "
         "default) with the moving statistics instead of the batch's, changing its values; it should leave "
         "it alone (TVM's own decompose tests give it training-mode inputs)",
    subjects=("SimplifyInference",),
    properties=("semantics_preserved",),
    message=r"wrong numbers",
    ir=r"R\.nn\.batch_norm\([^\n]*training=True",
))
register_known_bug(KnownBug(
    name="test_fold_constant_data_dependent_reshape",
    repro="tests/expected_findings/test_fold_constant_data_dependent_reshape.py",
    note="FoldConstant raises AssertionError (legalize_ops/manipulate.py reshape_call_te: the target shape "
         "is not a ShapeExpr) on a reshape whose shape comes from R.tensor_to_shape of non-constant tensors, "
         "instead of leaving it unfolded",
    subjects=("FoldConstant",),
    properties=("pass_does_not_raise",),
    message=r"raised AssertionError",
    ir=r"R\.tensor_to_shape\(",
))
