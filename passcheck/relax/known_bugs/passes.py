"""Known TVM 0.27 bugs that show up under particular passes (each kept as a repro under
tests/expected_findings/)."""

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
    note="ConvertLayout rewrites a layer_norm (or rms_norm) over the channel axis and another to unsorted axes "
         "but keeps gamma/beta in the old order: the kernel reads them transposed and past their end",
    subjects=("AlterOpLayout",),
    properties=("semantics_preserved",),
    message=r"wrong numbers",
    # a conv2d (whose layout change moves the channel axis) and a layer_norm over several axes, one
    # of them the channel axis (1 or -3)
    ir=r"(?s)\A(?=.*R\.nn\.conv2d)(?=.*R\.nn\.(?:layer|rms)_norm\([^\n]*axes=\[(?=[^\]]*,)[^\]]*(?<![\d-])(?:1|-3)(?!\d))",
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
    ir=r"(?s)\A(?=.*R\.nn\.conv2d)(?=.*R\.repeat\([^\n]*axis=None)",
))
register_known_bug(KnownBug(
    name="test_decompose_batch_norm_training_mode",
    repro="tests/expected_findings/test_decompose_batch_norm_training_mode.py",
    note="DecomposeOpsForInference rewrites a batch_norm in training mode (training=True, TVMScript's "
         "default) with the moving statistics instead of the batch's, changing its values; it should leave "
         "it alone (TVM's own decompose tests give it training-mode inputs)",
    subjects=("SimplifyInference", "after:DecomposeOpsForInference"),  # (a prerequisite of the tuning pipeline's)
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
    ir=r"(?s)\A(?=.*R\.nn\.batch_norm\([^\n]*training=False)(?=.*DecomposeOpsForTraining)",
))
register_known_bug(KnownBug(
    name="test_vm_misaligned_numpy_inputs",
    repro="tests/expected_findings/test_vm_misaligned_numpy_inputs.py",
    note="code built at opt level >= 2 for -mcpu=<host> segfaults on NumPy inputs that are not 64-byte aligned: "
         "the VM passes them without copying, the kernels use aligned AVX loads, nothing checks",
    subjects=("pipeline",),
    properties=("every_build_runs", "builds_agree"),
    message=r"died \(signal SIGSEGV\)",
    ir=r"(?s)\A(?=.*inputs \d+ bytes past 64-byte alignment)(?=.*opt level [23], host CPU)",
    shows_on="a host CPU with AVX-512 (the kernels' aligned loads)",
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
    name="test_convert_layout_scatter_nd",
    repro="tests/expected_findings/test_convert_layout_scatter_nd.py",
    note="ConvertLayout converts scatter_nd's data and updates to the conv's layout although the indices "
         "address data's leading axes: a layout that moves N from the front (CWNH, HWCN, ...) makes an "
         "ill-typed scatter_nd and the pass raises 'ScatterND op requires the updates tensor to have the shape'",
    subjects=("AlterOpLayout", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"ScatterND op requires the updates tensor to have the shape",
    ir=r"\bscatter_nd\b",
))
register_known_bug(KnownBug(
    name="test_convert_layout_packed_layout_consumers",
    repro="tests/expected_findings/test_convert_layout_packed_layout_consumers.py",
    note="ConvertLayout hands a conv2d's packed layout (NCHW4c, 5-d) on to consumers whose layout rules cannot "
         "take it, and raises instead of transforming back: an add of a (1, 1, 1, 1) operand 'Cannot broadcast "
         "from 5 to 4', a conv2d_transpose 'Layouts must have the same size', an instance_norm refuses its gamma "
         "(its channel axis now holds one element)",
    subjects=("AlterOpLayout", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"Cannot broadcast from \d+ to \d+|Layouts must have the same size"
            r"|instance_norm.*must be equal to the size of channel_axis",
    # a packed layout asked for the conv (the example's description names the desired layouts)
    ir=r"desired_layouts=\{'relax\.nn\.conv2d': \('[A-Z]+\d+[a-z]",
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
    name="test_fold_constant_checkpoint",
    repro="tests/expected_findings/test_fold_constant_checkpoint.py",
    note="FoldConstant folds the argument of grad.start_checkpoint into a constant and rebuilds the call, "
         "which the op's builder rejects (it wants a Var)",
    subjects=("FoldConstant", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"(?:start|end)_checkpoint should be a Var",
))
register_known_bug(KnownBug(
    name="test_convert_layout_conv2d_w_before_h",
    repro="tests/expected_findings/test_convert_layout_conv2d_w_before_h.py",
    note="ConvertLayout to a conv2d data or kernel layout with W before H (NCWH, CNWH, OIWH, ...): the "
         "legalized conv reads the spatial axes by position, so padding and kernel sizes apply to the wrong "
         "axis (wrong output shape, wrong numbers, 'negative output shape' at build time, or a consumer such as "
         "concat, a binary op, broadcast_to, layer_norm, collapse_sum_like/_to, reshape or a loss refusing the swapped "
         "shape at run time)",
    subjects=("AlterOpLayout",),
    properties=("semantics_preserved",),
    # (run-time shape checks of consumers: concat's, and binary ops' broadcast check)
    message=r"wrong numbers|Invalid conv parameters|Concat expects the input tensors to have the same shape"
            r"|the first input shape at dim \d+ is|CrossEntropy requires the predictions and labels to have the same shape"
            r"|broadcast_to expects the input tensor shape is broadcastable to the target shape"
            r"|relax\.nn\.(?:layer|batch)_norm requires the input gamma|Shape mismatch for NLLLoss"
            r"|relax\.collapse_sum_(?:like|to), the data shape at dim"
            r"|Reshape expects the new shape to be convertible from the old shape",
    ir=r'R\.nn\.conv2d\([^\n]*(?:data_layout="[NC]*W[NC]*H|kernel_layout="[OI]*W[OI]*H)',
))
register_known_bug(KnownBug(
    name="test_convert_layout_packed_conv2d_layouts",
    repro="tests/expected_findings/test_convert_layout_packed_conv2d_layouts.py",
    note="ConvertLayout rewrites conv2d to a packed data or kernel layout (NCHW4c, OIHW4o, ...) that LegalizeOps "
         "has no rule for: the call is left as it is and building the converted module fails in VM codegen",
    subjects=("AlterOpLayout",),
    properties=("semantics_preserved",),
    message=r"CodeGenVM cannot emit this Relax operator directly|R\.nn\.conv2d\(",
    ir=r'R\.nn\.conv2d\([^\n]*(?:data_layout="\w*\d+c"|kernel_layout="\w*\d+[oi]")',
    # (the packed layouts are 7 of 31 a pair draws from: with the roll open, two pairs in five hold
    # one. At 0.04 they decided 2.45% of AlterOpLayout's 2,000 examples at seed 0, over the 2% a
    # kept bug may take)
    drawn_rate=0.03,
))
register_known_bug(KnownBug(
    name="test_fold_constant_dynamic_strided_slice",
    repro="tests/expected_findings/test_fold_constant_dynamic_strided_slice.py",
    note="FoldConstant on a dynamic_strided_slice of constants keeps its legalization's call_tir to a "
         "shape_func PrimFunc in main without adding the PrimFunc: an undefined GlobalVar (ill-formed, does "
         "not build, not idempotent, the slice stays)",
    subjects=("FoldConstant",),
    properties=("well_formed", "semantics_preserved", "fold_is_idempotent", "no_constant_only_calls"),
    message=r"shape_func|a second FoldConstant changed the module|relax\.dynamic_strided_slice on",
    ir=r"R\.dynamic_strided_slice\(",
))
register_known_bug(KnownBug(
    name="test_fuse_ops_symbolic_var_order",
    repro="tests/expected_findings/test_fuse_ops_symbolic_var_order.py",
    note="FuseOps moves the shape_func/tensor_to_shape/match_cast that defines a legalized "
         "dynamic_strided_slice's symbolic extent after the call_tir whose output type uses it, when an "
         "earlier op fuses with a later consumer: 'Var s is not defined', the VM 'has not been computed' "
         "(apache/tvm#20195)",
    subjects=("FuseOps", "pipelines", "sequences"),
    properties=("well_formed", "semantics_preserved"),
    message=r"(?<!Global)Var s(?:_\d+)? is not defined|PrimExpr [^\n]*\bs\b[^\n]* has not been computed",
    ir=r"R\.dynamic_strided_slice\(",
))
register_known_bug(KnownBug(
    name="test_convert_layout_packed_indivisible",
    repro="tests/expected_findings/test_convert_layout_unsupported_layouts.py",
    note="ConvertLayout to a packed conv2d layout whose factor does not divide the output channels raises from "
         "its own rewriter ('should not rewrite or delete any global-scope Var'), or from a grouped conv2d's type "
         "check when that conv reads the padded channels (or a concat of them and unconverted ones), instead of "
         "leaving the call",
    subjects=("AlterOpLayout",),
    properties=("pass_does_not_raise",),
    message=r"DataflowBlock Pass should not rewrite or delete any global-scope Var"
            r"|The channel size of the data should equal to the product of input channel size of the weight"
            r"|Concat expects the input tensors to have the same shape on every dimension",
    ir=r"R\.nn\.conv2d\(",
))
register_known_bug(KnownBug(
    name="test_convert_layout_resize2d_layout",
    repro="tests/expected_findings/test_convert_layout_unsupported_layouts.py",
    note="ConvertLayout gives a resize2d after a converted conv2d the conv's layout (CHNW, ...), which TOPI's "
         "resize refuses at build time ('CHNW layout is not supported')",
    subjects=("AlterOpLayout",),
    properties=("semantics_preserved",),
    message=r"\b\w+ layout is not supported",
    ir=r"resize2d",
))
register_known_bug(KnownBug(
    name="test_to_mixed_precision_tuple_item",
    repro="tests/expected_findings/test_to_mixed_precision.py",
    note="ToMixedPrecision raises 'The type is not populated' on a tuple-valued op read through TupleGetItem "
         "(dropout, split, batch_norm): it builds the new TupleGetItem without a type",
    subjects=("ToMixedPrecision", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"The type is not populated",
    ir=r"\w\[\d+\]",  # a TupleGetItem in TVMScript: lv[0]
))
register_known_bug(KnownBug(
    name="test_to_mixed_precision_outer",
    repro="tests/expected_findings/test_to_mixed_precision.py",
    note="relax.outer has the mixed-precision policy kAlways but no FInferMixedPrecision, which ToMixedPrecision "
         "requires of every kAlways op: the pass raises",
    subjects=("ToMixedPrecision", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"attr_map\.count\(op\)",
    ir=r"\bR\.outer\(",
))
register_known_bug(KnownBug(
    name="test_to_mixed_precision_empty_constant",
    repro="tests/expected_findings/test_to_mixed_precision.py",
    note="ToMixedPrecision raises 'Check failed: (data != nullptr)' on any zero-size constant",
    subjects=("ToMixedPrecision", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"\(data != nullptr\)",
))
register_known_bug(KnownBug(
    name="test_to_mixed_precision_attention_attrs",
    repro="tests/expected_findings/test_to_mixed_precision.py",
    note="ToMixedPrecision rewrites R.nn.attention with scale=None, causal_mask=None, window_size=None, dropping "
         "the call's own attributes: a scaled or masked attention silently computes another function",
    subjects=("ToMixedPrecision",),
    properties=("semantics_preserved",),
    message=r"wrong numbers",
    ir=r"R\.nn\.attention(?:_bias)?\([^\n]*(?:scale=(?!None)|causal_mask=(?!None)|window_size=(?!None))",
))
register_known_bug(KnownBug(
    name="test_convert_layout_conv2d_transpose_layout",
    repro="tests/expected_findings/test_convert_layout_unsupported_layouts.py",
    note="ConvertLayout gives a conv2d_transpose after a converted conv2d the conv's data layout (NHWC, HWNC, ...), "
         "which LegalizeOps cannot lower (NCHW only): building the module fails in VM codegen; conv1d_transpose "
         "after a conv1d converted to NWC likewise (NCW only)",
    subjects=("AlterOpLayout",),
    properties=("semantics_preserved",),
    message=r"CodeGenVM cannot emit this Relax operator directly|R\.nn\.conv[12]d_transpose\(",
    ir=r'R\.nn\.conv(?:2d_transpose\([^\n]*data_layout="(?!NCHW")|1d_transpose\([^\n]*data_layout="(?!NCW"))',
))
register_known_bug(KnownBug(
    name="test_combine_parallel_matmul_constant_lhs",
    repro="tests/expected_findings/test_combine_parallel_matmul_constant_lhs.py",
    note="CombineParallelMatmul raises on a matmul whose left operand is a constant (TypeError: Cannot treat "
         "type ir.GenericConst as type ir.Var), even with one matmul and nothing to combine",
    subjects=("CombineParallelMatmul",),
    message=r"Cannot treat type `ir\.GenericConst` as type `ir\.Var`",
))
register_known_bug(KnownBug(
    name="test_dataflow_inplace_reshape_view",
    repro="tests/expected_findings/test_dataflow_inplace_reshape_view.py",
    note="DataflowUseInplaceCalls writes in place into a value a same-shape broadcast_to/reshape/collapse_sum/slice/identity layout_transform "
         "still reads (tvm.compile's RewriteDataflowReshape makes it a view of the storage the in-place call "
         "overwrites), that a grad.no_grad/start_checkpoint/end_checkpoint aliases (legalized to its argument "
         "itself), or that a constant arange is (LegalizeOps folds it: each run changes the constant; a float16 "
         "one's length, folded to a number, no longer matches the in-place call's type)",
    subjects=("DataflowUseInplaceCalls",),
    properties=("semantics_preserved",),
    message=r"wrong numbers|wrote into its argument|in-place mutation must be a tensor with identical shape and dtype",
    ir=r"(?s)\A(?=.*call_tir_inplace)(?=.*R\.(?:broadcast_to|reshape|expand_dims|squeeze|flatten|collapse_sum_\w+|strided_slice"
       r"|arange|grad\.no_grad|grad\.start_checkpoint|grad\.end_checkpoint|layout_transform)\()",
))
register_known_bug(KnownBug(
    name="test_lift_transform_params_weights_only_output",
    repro="tests/expected_findings/test_lift_transform_params_weights_only_output.py",
    note="LiftTransformParams lifts an output computed from the weights alone into main_transform_params, "
         "which returns an empty tuple, and main returns the variable whose binding it removed: 'Var gv is "
         "not defined' (LazyTransformParams, which lifts first, too)",
    subjects=("LiftTransformParams", "LazyTransformParams"),
    message=r"Var (?!model_params\b)\w+ is not defined",  # (model_params: LazyTransformParams, another cause)
))
register_known_bug(KnownBug(
    name="test_lazy_set_output_dataflow_block",
    repro="tests/expected_findings/test_lazy_set_output_dataflow_block.py",
    note="LazySetOutput emits its impure fset_output(index, value) call inside the dataflow block that computes "
         "the output: the output module is ill-formed and tvm.compile refuses it",
    subjects=("LazySetOutput",),
    message=r"Impure function call fset_output\(.*\) occurs within a dataflow block",
))
register_known_bug(KnownBug(
    name="test_lazy_params_rewrite_every_function",
    repro="tests/expected_findings/test_lazy_params_rewrite_every_function.py",
    note="LazyGetInput and LazySetOutput give every public function the fget_param/fset_output callback, not "
         "only the entry, and leave main's calls to them as they were: the call fails when it runs",
    subjects=("LazyGetInput", "LazySetOutput"),
    properties=("semantics_preserved",),
    message=r"Invoking function \w+ expects \d+ arguments \([^)]*\bf(?:get_param|set_output)\b"
            r"|param=f(?:get_param|set_output), annotation=R\.Callable",
))
