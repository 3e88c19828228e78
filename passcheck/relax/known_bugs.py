"""Known TVM 0.27 bugs of the Relax passes, each kept as a repro under tests/expected_findings/
(see ``passcheck.core.known``)."""

from passcheck.core.known import KnownBug, register_known_bug

register_known_bug(KnownBug(
    name="test_convert_layout_negative_axes",
    repro="tests/expected_findings/test_convert_layout_negative_axes.py",
    note="ConvertLayout raises 'Invalid layout' on permute_dims with negative axes (it maps axis -k to "
         "the letter 'A' - k without normalising it)",
    subjects=("AlterOpLayout", "sequences"),
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
register_known_bug(KnownBug(
    name="test_dataflow_use_inplace_calls_scalar_constant",
    repro="tests/expected_findings/test_dataflow_inplace_scalar_constant.py",
    note="DataflowUseInplaceCalls raises on add(<scalar constant>, x): it picks in-place index 1 for a call "
         "whose only tensor argument is index 0",
    subjects=("DataflowUseInplaceCalls", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"In-place index \d+ is out of range",
))
register_known_bug(KnownBug(
    name="test_fuse_transpose_matmul_same_operand",
    repro="tests/expected_findings/test_fuse_transpose_matmul_same_operand.py",
    note="FuseTransposeMatmul raises IndexError on matmul(x, permute_dims(x)): its rewrite assumes two "
         "distinct matched inputs",
    subjects=("FuseTransposeMatmul", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"(?:FuseTransposeMatmul raised |the pass raised )IndexError: Index out of range",
))
register_known_bug(KnownBug(
    name="test_adjust_matmul_order_vector_rhs",
    repro="tests/expected_findings/test_adjust_matmul_order_vector_rhs.py",
    note="AdjustMatmulOrder reassociates (A @ B) @ v with B batched and v a 1-D vector into A @ (B @ v), "
         "which does not type-check (Matmul requires the reduction length ...)",
    subjects=("AdjustMatmulOrder", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"(?:AdjustMatmulOrder raised |the pass raised )ValueError: Matmul requires the reduction length",
))
register_known_bug(KnownBug(
    name="test_decompose_for_training_negative_axis",
    repro="tests/expected_findings/test_decompose_for_training_batch_norm.py",
    note="DecomposeOpsForTraining does not normalise a negative batch_norm axis and fails its own type check",
    subjects=("DecomposeOpsForTraining", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"(?:DecomposeOpsForTraining raised |the pass raised )ValueError: .*moving_mean to have as many "
            r"dimensions",
))
register_known_bug(KnownBug(
    name="test_decompose_for_training_ignores_inference_mode",
    repro="tests/expected_findings/test_decompose_for_training_batch_norm.py",
    note="DecomposeOpsForTraining decomposes an inference-mode batch_norm (training=False) with the batch's "
         "statistics instead of the moving ones: the results change",
    subjects=("DecomposeOpsForTraining",),
    properties=("semantics_preserved", "mutant_agrees"),
    message=r"wrong numbers|is wrong",
    ir=r"R\.nn\.batch_norm\([^\n]*training=False",
))
register_known_bug(KnownBug(
    name="test_decompose_for_training_ignores_inference_mode_in_sequences",
    repro="tests/expected_findings/test_decompose_for_training_batch_norm.py",
    note="the same, when DecomposeOpsForTraining is a step of a pass sequence",
    subjects=("sequences",),
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees"),
    message=r"wrong numbers|DecomposeOpsForTraining[^\n]* broke the numbers|is wrong",
    ir=r"(?s)(?=.*R\.nn\.batch_norm\([^\n]*training=False)(?=.*DecomposeOpsForTraining)",
))
register_known_bug(KnownBug(
    name="test_vm_misaligned_numpy_inputs",
    repro="tests/expected_findings/test_vm_misaligned_numpy_inputs.py",
    note="code built at opt level >= 2 for -mcpu=<host> segfaults on NumPy inputs that are not 64-byte aligned: "
         "the VM passes them without copying, the kernels use aligned AVX loads, nothing checks",
    subjects=("pipeline",),
    properties=("every_build_runs", "builds_agree"),
    message=r"died \(signal SIGSEGV\)",
    ir=r"(?s)(?=.*inputs \d+ bytes past 64-byte alignment)(?=.*opt level [23], host CPU)",
))
register_known_bug(KnownBug(
    name="test_fast_math_calls_to_functions",
    repro="tests/expected_findings/test_fast_math_calls_to_functions.py",
    note="FastMathTransform reads call.op.name for every call and raises AttributeError on a call to a Relax "
         "function (a GlobalVar has name_hint), e.g. after FuseOps",
    subjects=("FastMathTransform", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"(?:FastMathTransform raised |the pass raised )AttributeError: 'GlobalVar' object has no attribute 'name'",
))
register_known_bug(KnownBug(
    name="test_rms_norm_all_axes",
    repro="tests/expected_findings/test_rms_norm_all_axes.py",
    note="rms_norm over every axis of its input type-checks but its legalized kernel reads a buffer with no "
         "indices: compiling raises 'Tensor dimension mismatch in read'",
    message=r"Tensor dimension mismatch in read",
    ir=r"\brms_norm\b",
))
register_known_bug(KnownBug(
    name="test_instance_norm_negative_channel_axis",
    repro="tests/expected_findings/test_instance_norm_negative_channel_axis.py",
    note="instance_norm with a negative channel_axis type-checks but LegalizeOps hands TOPI the axis "
         "unnormalised: compiling raises 'Index -k out of bounds'",
    message=r"Index -\d+ out of bounds",
    ir=r"R\.nn\.instance_norm\([^\n]*channel_axis=-\d",
))
register_known_bug(KnownBug(
    name="test_resize_align_corners_single_output",
    repro="tests/expected_findings/test_resize_align_corners_single_output.py",
    note="resize2d/3d with align_corners and an output size of 1 divide (in - 1) by (out - 1) = 0 while "
         "building the kernel: compiling raises 'Divide by zero'",
    message=r"Divide by zero",
    ir=r"R\.image\.resize[23]d\([^\n]*align_corners",
))
register_known_bug(KnownBug(
    name="test_softplus_float16_overflow",
    repro="tests/expected_findings/test_softplus_float16_overflow.py",
    note="float16 softplus computes log(1 + exp(beta x)) in float16 below its threshold: exp overflows from "
         "beta x > 11.09 and the result is inf where softplus(x) ~= x",
    message=r"wrong numbers: .*got -?inf",
    ir=r"(?s)(?=.*\bsoftplus\b)(?=.*float16)",
))
register_known_bug(KnownBug(
    name="test_group_norm_one_pass_variance",
    repro="tests/expected_findings/test_group_norm_one_pass_variance.py",
    note="group_norm and instance_norm compute the variance as E[x^2] - E[x]^2 in float32: on data whose "
         "mean is large against its spread the result is rounding noise or NaN (TVM's layer_norm is accurate)",
    message=r"wrong numbers",
    ir=r"\b(?:group|instance)_norm\b",  # R.nn.group_norm( or its legalized kernel
))
register_known_bug(KnownBug(
    name="test_float16_kernels_return_float32",
    repro="tests/expected_findings/test_float16_kernels_return_float32.py",
    note="float16 grid_sample, and float16 attention with an explicit scale, are typed float16 but their "
         "legalized kernels return float32: a float16 consumer meeting another float16 operand fails to compile",
    message=r"Binary operators must have the same datatype|different data type",
    ir=r"(?s)(?=.*\b(?:grid_sample|attention(?:_bias)?)\b)(?=.*float16)",
))
register_known_bug(KnownBug(
    name="test_convert_layout_dropout",
    repro="tests/expected_findings/test_convert_layout_dropout.py",
    note="ConvertLayout infers one layout for dropout's (out, mask) tuple and raises 'Expected nested to "
         "match tuple' on every graph with a dropout",
    subjects=("AlterOpLayout", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"Expected nested to match tuple",
    ir=r"R\.nn\.dropout\(",
))
register_known_bug(KnownBug(
    name="test_causal_attention_underflow",
    repro="tests/expected_findings/test_causal_attention_underflow.py",
    note="causal attention masks scores to 0 (not -inf) before the row maximum: a row whose visible scores "
         "are all very negative underflows every exp and divides 0 by 0 (NaN)",
    message=r"wrong numbers: .*got nan",
    ir=r"(?s)(?=.*\battention(?:_bias)?\b)(?=.*(?:causal_mask=\"(?:TopLeft|BottomRight)\"|trilu))",
))
register_known_bug(KnownBug(
    name="test_index_tensor_negative_indices",
    repro="tests/expected_findings/test_index_tensor_negative_indices.py",
    note="index_tensor is documented as NumPy advanced indexing, but its kernel uses a negative index as is "
         "and reads before the buffer (garbage values, no error)",
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees"),
    message=r"wrong numbers",
    ir=r"\bindex_tensor\b",
))
register_known_bug(KnownBug(
    name="test_convert_layout_squeeze_negative_axis",
    repro="tests/expected_findings/test_convert_layout_squeeze_negative_axis.py",
    note="ConvertLayout dies with std::bad_alloc on squeeze with a negative axis (valid Relax; axis=[1] "
         "instead of [-3] converts fine)",
    subjects=("AlterOpLayout", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"bad_alloc",
    ir=r"R\.squeeze\([^\n]*axis=\[[^\]]*-\d",
))
register_known_bug(KnownBug(
    name="test_dynamic_strided_slice_empty",
    repro="tests/expected_findings/test_dynamic_strided_slice_empty.py",
    note="dynamic_strided_slice of an empty range (x[6:0:1]) computes a negative extent and dies with "
         "std::bad_alloc (or fails a match_cast to 0) instead of returning a (0,) tensor",
    message=r"bad_alloc|match_cast error",
    ir=r"dynamic_strided_slice",
))
register_known_bug(KnownBug(
    name="test_split_empty_part_legalize",
    repro="tests/expected_findings/test_split_empty_part_legalize.py",
    note="split with a part Relax types as empty (an index 0, a repeated index) fails in LegalizeOps "
         "('split_indices must be sorted'); an index past the end dies with std::bad_alloc",
    # past the end of an empty axis the part comes out with a negative extent (NumPy then refuses it)
    message=r"split_indices must be sorted|std::bad_alloc|negative dimensions are not allowed",
    ir=r"\bsplit\b",
))
register_known_bug(KnownBug(
    name="test_meshgrid_single_tensor_legalize",
    repro="tests/expected_findings/test_meshgrid_single_tensor_legalize.py",
    note="LegalizeOps lowers meshgrid of one tensor (typed as a 1-tuple) to a plain tensor, so the "
         "TupleGetItem reading it no longer type-checks",
    message=r"The type of Tuple must be TupleType",
    ir=r"\bmeshgrid\b",
))
register_known_bug(KnownBug(
    name="test_fold_constant_index_tensor",
    repro="tests/expected_findings/test_fold_constant_index_tensor.py",
    note="FoldConstant leaves index_tensor of constants unfolded: its legalization reads the indices "
         "through a TupleGetItem of a tuple literal, which FoldConstant does not fold",
    subjects=("FoldConstant",),
    properties=("no_constant_only_calls",),
    message=r"relax\.index_tensor on",
))
register_known_bug(KnownBug(
    name="test_convert_layout_stack",
    repro="tests/expected_findings/test_convert_layout_stack.py",
    note="ConvertLayout raises on every stack ('Index -1 out of bounds'; with a negative axis "
         "'basic_string::replace: __pos ...'), for any desired layout",
    subjects=("AlterOpLayout", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"out of bounds|basic_string::replace",
    ir=r"R\.stack\(",
))
register_known_bug(KnownBug(
    name="test_convert_layout_split_one_section",
    repro="tests/expected_findings/test_convert_layout_split_one_section.py",
    note="ConvertLayout raises 'Invalid Call' on split into one section (Relax types it as the tensor, "
         "not a tuple; the rewrite assumes a tuple)",
    subjects=("AlterOpLayout", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"out_tuple != nullptr",
    ir=r"R\.split\(",
))
register_known_bug(KnownBug(
    name="test_collapse_sum_empty_axis",
    repro="tests/expected_findings/test_collapse_sum_empty_axis.py",
    note="collapse_sum_to/like over a zero-size axis return uninitialized memory: the kernel's init sits "
         "under the empty reduction loop (R.sum of the same returns 0)",
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees", "builds_agree"),
    message=r"wrong numbers",
    ir=r"collapse_sum",
))
register_known_bug(KnownBug(
    name="test_fold_constant_checkpoint",
    repro="tests/expected_findings/test_fold_constant_checkpoint.py",
    note="FoldConstant folds the argument of grad.start_checkpoint into a constant and rebuilds the call, "
         "which the op's builder rejects (it wants a Var)",
    subjects=("FoldConstant", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"(?:start|end)_checkpoint should be a Var",
))
register_known_bug(KnownBug(
    name="test_repeat_scalar_legalize",
    repro="tests/expected_findings/test_repeat_scalar_legalize.py",
    note="repeat of a 0-d tensor (typed (repeats,), as np.repeat gives) fails in LegalizeOps with "
         "IndexError: Index out of range",
    message=r"Index out of range\. size: 0, got index 0",
    ir=r"\brepeat\b",
))
register_known_bug(KnownBug(
    name="test_pixel_shuffle_legalize",
    repro="tests/expected_findings/test_pixel_shuffle_legalize.py",
    note="nn.pixel_shuffle's LegalizeOps rule calls topi.nn.pixel_shuffle, which TVM 0.27 does not have: "
         "every module with the op fails to build",
    message=r"has no attribute 'pixel_shuffle'",
))
register_known_bug(KnownBug(
    name="test_take_nan_mode_flat",
    repro="tests/expected_findings/test_take_nan_mode_flat.py",
    note="take(axis=None, mode='nan') lowers to a select around the cast index instead of x[i] and fails a "
         "type check (axis=0, or other modes, work)",
    message=r"MatchesCode|Metadata omitted",
    ir=r"mode=.nan.|'mode', 'nan'",  # TVMScript, or the example's spec
))
register_known_bug(KnownBug(
    name="test_zero_size_output_and_operand",
    repro="tests/expected_findings/test_zero_size_output_and_operand.py",
    note="tvm.compile fails (IndexError: Index 1 out of bounds 1) on a zero-size value that is both returned "
         "and used by another op",
    message=r"Index 1 out of bounds 1",
))
register_known_bug(KnownBug(
    name="test_log_add_exp_overflows",
    repro="tests/expected_findings/test_log_add_exp_overflows.py",
    note="log_add_exp is computed as log(exp(a) + exp(b)): inf (or -inf) where the value is finite, as soon "
         "as an argument passes exp's range (88.7 in float32, 11.1 in float16); every pass shows it",
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees"),
    message=r"wrong numbers: [^\n]*got -?inf\b",
    ir=r"log_add_exp",  # the op, or its legalized kernel
))
register_known_bug(KnownBug(
    name="test_legalize_batch_norm_float16",
    repro="tests/expected_findings/test_legalize_batch_norm_float16.py",
    note="LegalizeOps lowers a float16 batch_norm to a float32 result (TOPI promotes var + eps) while Relax "
         "types it float16: a float16 consumer makes LegalizeOps raise, a bare output comes back float32",
    # the consumer's type check fails, whichever consumer (a binary op, another batch_norm, ...);
    # TVM prints the whole Op before its reason, which a one-line message may cut off
    message=r"d(?:ata)?type|name=\"relax\.nn\.batch_norm\"",
    ir=r'R\.Tensor\([^\n]*dtype="float16"[^\n]*= R\.nn\.batch_norm\(',
))
register_known_bug(KnownBug(
    name="test_strided_slice_negative_axis_symbolic",
    repro="tests/expected_findings/test_strided_slice_negative_axis_symbolic.py",
    note="LegalizeOps fails 'axis < src_tensor_dim' on a strided_slice with a negative axis of a symbolically "
         "shaped tensor (valid Relax; the static case and non-negative axes legalize)",
    message=r"axis < src_tensor_dim",
    ir=r"R\.strided_slice\(",
))
register_known_bug(KnownBug(
    name="test_strided_slice_empty_extent",
    repro="tests/expected_findings/test_strided_slice_empty_extent.py",
    note="Relax types an empty strided_slice whose begin lies past its end with a negative extent "
         "(x[:, 3:1] is R.Tensor((3, -2))) and LegalizeOps then rejects it 'is invalid for axis'",
    message=r"Input \[Begin=-?\d+, End=-?\d+\] is invalid for axis",
    ir=r"R\.strided_slice\(",
))
register_known_bug(KnownBug(
    name="test_legalize_median_keepdims_all_axes",
    repro="tests/expected_findings/test_legalize_median_keepdims_all_axes.py",
    note="LegalizeOps lowers median(x, axis=None, keepdims=True) to a (1,) result while Relax types it with "
         "x's rank (1, 1, ...): consumers fail LegalizeOps on the rank, a bare output has the wrong shape",
    # a consumer failing LegalizeOps (conv2d: "requires the input to be 4-dim"); the wrong shape at run time; FoldConstant folding it (the
    # folded constant has the kernel's shape, so main's return type changes)
    # a consumer's type error cut off inside TVM's print of the Op (layer_norm), before its reason
    message=r"ndim|rank|\d-dim tensor|In ir\.Op\(|shape \[1\], the reference has shape \[1(?:, 1)+\]|"
            r"R\.Tensor\(\(1(?:, 1)+\)[^\n]*\) became R\.Tensor\(\(1,\)",
    ir=r"R\.median\([^\n]*axis=None, keepdims=True",
))
register_known_bug(KnownBug(
    name="test_vm_zero_size_numpy_input",
    repro="tests/expected_findings/test_vm_zero_size_numpy_input.py",
    note="the VM refuses a zero-size NumPy argument ('expected to be compact array': NumPy gives empty arrays "
         "zero strides); a copy into a TVM tensor runs",
    message=r"expected to be compact array",
))
register_known_bug(KnownBug(
    name="test_divide_by_constant_zero",
    repro="tests/expected_findings/test_divide_by_constant_zero.py",
    note="LegalizeOps (and FoldConstant, which legalizes what it folds) raises 'Divide by zero' on a float "
         "divide by a scalar constant 0.0: the arithmetic simplifier refuses x / 0f (IEEE gives +-Inf/NaN)",
    message=r"Divide by zero",
    ir=r"R\.divide\(",
))
register_known_bug(KnownBug(
    name="test_convert_layout_conv2d_w_before_h",
    repro="tests/expected_findings/test_convert_layout_conv2d_w_before_h.py",
    note="ConvertLayout to a conv2d data or kernel layout with W before H (NCWH, CNWH, OIWH, ...): the "
         "legalized conv reads the spatial axes by position, so padding and kernel sizes apply to the wrong "
         "axis (wrong output shape, wrong numbers, 'negative output shape' at build time, or a consumer such as "
         "concat or a binary op refusing the swapped shape at run time)",
    subjects=("AlterOpLayout",),
    properties=("semantics_preserved",),
    # (run-time shape checks of consumers: concat's, and binary ops' broadcast check)
    message=r"wrong numbers|Invalid conv parameters|Concat expects the input tensors to have the same shape"
            r"|the first input shape at dim \d+ is",
    ir=r'R\.nn\.conv2d\([^\n]*(?:data_layout="[NC]*W[NC]*H|kernel_layout="[OI]*W[OI]*H)',
))
register_known_bug(KnownBug(
    name="test_relax_reduction_over_empty_axis",
    repro="tests/expected_findings/test_relax_reduction_over_empty_axis.py",
    note="a reduction over a symbolic axis bound to 0 never runs its init (TOPI runs it at the first reduction "
         "iteration): the output is uninitialised memory instead of 0 / -inf / ...",
    properties=("semantics_preserved", "matches_unfused_bitwise"),
    message=r"wrong numbers|differs from the unfused module",
    # a reduction op of a graph with a shape variable bound to 0
    ir=r"(?s)(?=.*\bops: [^\n]*\b(?:sum|max|min|prod|mean|variance|std|argmax|argmin)\b)(?=.*run at [^\n]*=0\b)",
))
register_known_bug(KnownBug(
    name="test_vm_zero_size_constant_export",
    repro="tests/expected_findings/test_vm_zero_size_constant_export.py",
    note="an exported module with a zero-size constant whose first dim is not 0 fails to load: Tensor::Load "
         "skips its data-read check only when shape[0] == 0 ('Invalid DLTensor file format')",
    message=r"Invalid DLTensor file format",
))
register_known_bug(KnownBug(
    name="test_layer_norm_zero_extent_divide_by_zero",
    repro="tests/expected_findings/test_layer_norm_zero_extent_divide_by_zero.py",
    note="compiling layer_norm over an axis of extent 0 (an empty result) fails 'Divide by zero': the kernel "
         "divides by the constant element count 0 and constant folding rejects it",
    message=r"Divide by zero",
    ir=r"R\.nn\.layer_norm\(",
))
register_known_bug(KnownBug(
    name="test_float16_math_intrinsics",
    repro="tests/expected_findings/test_float16_math_intrinsics.py",
    note="float16 acos/acosh/asin/asinh/atan/atan2/cosh/sinh type-check but do not compile for llvm "
         "('unknown intrinsic'): the LLVM backend has no float16 lowering for them; ToMixedPrecision makes them",
    message=r'unknown intrinsic [^\n]*name="tirx\.(?:acos|acosh|asin|asinh|atan|atan2|cosh|sinh)"',
))
