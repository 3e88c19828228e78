"""Known TVM 0.27 bugs of the Relax passes (continued from passes.py), each kept as a repro under
tests/expected_findings/."""

from passcheck.core.known import KnownBug, register_known_bug

register_known_bug(KnownBug(
    name="test_to_mixed_precision_prim_value_argument",
    repro="tests/expected_findings/test_to_mixed_precision_prim_value_argument.py",
    note="ToMixedPrecision casts every argument of an op reading a float16 value, PrimValues and shapes too: "
         "slice_scatter(x, y, start, end, step) after a matmul raises 'Expected TensorType, but got T.int64' "
         "(clip's float bounds: T.float64; collapse_sum_to's shape: R.Shape)",
    subjects=("ToMixedPrecision", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"Expected TensorType, but got (?:T\.(?:int|float)\d+|R\.Shape\()",
))
register_known_bug(KnownBug(
    name="test_to_mixed_precision_attention_bias",
    repro="tests/expected_findings/test_to_mixed_precision_attention_bias.py",
    note="ToMixedPrecision rewrites nn.attention_bias(q, k, v, bias) in float16 as nn.attention(q, k, v): "
         "the bias is cast and never read (wrong numbers)",
    subjects=("ToMixedPrecision", "sequences"),
    properties=("semantics_preserved", "every_step_preserves_semantics"),
    message=r"wrong numbers",
    ir=r"R\.nn\.attention_bias\(",
))
register_known_bug(KnownBug(
    name="test_to_mixed_precision_padded_layout_transform",
    repro="tests/expected_findings/test_to_mixed_precision_padded_layout_transform.py",
    note="ToMixedPrecision computes a padded layout_transform after a float16 op in float16 and keeps its "
         "float32 pad_value: 'pad_value dtype (T.float32) and input dtype (T.float16) must be the same'",
    subjects=("ToMixedPrecision", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"pad_value dtype \(T\.float32\) and input dtype \(T\.float16\) must be the same",
    ir=r"R\.layout_transform\([^\n]*pad_value=T\.float32",
))
register_known_bug(KnownBug(
    name="test_compile_unknown_shape_operand",
    repro="tests/expected_findings/test_compile_unknown_shape_operand.py",
    note="tvm.compile raises on an op whose operand has an unknown shape (R.Tensor(ndim=2)): LegalizeOps leaves "
         "the call, and VM codegen 'cannot emit this Relax operator directly' (a closure's result, typed by its rank)",
    # (TVM's error ends with the offending call, which is what a finding quotes)
    message=r"raised InternalError \([\w.]+:\d+\): R\.[\w.]+\([^\n]*\)$|CodeGenVM cannot emit this Relax operator directly",
    ir=r"R\.Tensor\(dtype=\"\w+\", ndim=\d+\)",
))
register_known_bug(KnownBug(
    name="test_layout_transform_drops_vdevice",
    repro="tests/expected_findings/test_layout_transform_drops_vdevice.py",
    note="LegalizeOps lowers a layout_transform of a tensor on a virtual device to a call_tir whose out_ty has no "
         "vdevice; RewriteDataflowReshape then turns it into a reshape and leaves the old var where it is read: "
         "tvm.compile fails 'Var lv2 is not defined' (a value RealizeVDevice put on a device, read and transformed)",
    message=r"Check failed: \(it != this->var_arg_map_\.end\(\)\) is false: Var \w+ is not defined",
    ir=r'(?s)\A(?=.*R\.layout_transform\()(?=.*(?:vdevice="|R\.hint_on_device\())',
))
register_known_bug(KnownBug(
    name="test_reorder_take_after_matmul_match_cast",
    repro="tests/expected_findings/test_reorder_take_after_matmul_match_cast.py",
    note="ReorderTakeAfterMatmul rewrites matmul(match_cast(x), take(w, i)) as take(matmul(x, w), i): it reads x "
         "past its match_cast, so the shape check is skipped and the result is typed by rank only, which the "
         "var keeping the old shape cannot take (not well-formed)",
    subjects=("ReorderTakeAfterMatmul", "sequences"),
    message=r"Expression of type R\.Tensor\(dtype=\"\w+\", ndim=\d+\) cannot be assigned to a variable of type R\.Tensor\(\("
            r"|not well-formed",
    ir=r"R\.match_cast\(",
))
register_known_bug(KnownBug(
    name="test_fold_constant_inplace_argument",
    repro="tests/expected_findings/test_fold_constant_inplace_argument.py",
    note="FoldConstant folds the argument a call_tir_inplace writes into (sqrt(zeros_like(x)), or tvm.compile's "
         "FoldConstant a legalized arange) to a constant: every run overwrites the constant, so the second run of "
         "main gives another result (and the VM shares equal constants: another function returning it changes too)",
    message=r"wrong numbers|wrote into its argument",
    ir=r"R\.call_tir_inplace\([\w.]+, \(metadata\[|\A(?=[\s\S]*\b(\w+): R\.Tensor[^\n]*? = R\.arange\()"
       r"(?=[\s\S]*R\.call_tir_inplace\([\w.]+, \(\1,)",
))
register_known_bug(KnownBug(
    name="test_decompose_for_training_layer_norm_float16",
    repro="tests/expected_findings/test_decompose_for_training_layer_norm_float16.py",
    note="DecomposeOpsForTraining decomposes a float16 layer_norm into float16 mean, variance and divide: "
         "TVM's own layer_norm keeps its statistics in float32, and on data whose spread is small against its "
         "mean the decomposed result is rounding noise",
    subjects=("DecomposeOpsForTraining", "sequences"),
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees"),
    message=r"wrong numbers|DecomposeOpsForTraining[^\n]* broke the numbers|is wrong",
    ir=r"(?s)\A(?=.*R\.nn\.layer_norm\()(?=.*\"float16\")",
))
register_known_bug(KnownBug(
    name="test_fold_batchnorm_to_conv2d_training_mode",
    repro="tests/expected_findings/test_fold_batchnorm_to_conv2d_training_mode.py",
    note="FoldBatchnormToConv2D folds a batch_norm in training mode (the batch's statistics) into the conv2d "
         "with its moving statistics, as if in inference: the results change",
    subjects=("FoldBatchnormToConv2D", "sequences"),
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees"),
    message=r"wrong numbers|FoldBatchnormToConv2D[^\n]* broke the numbers|is wrong",
    ir=r"(?s)\A(?=.*R\.nn\.conv2d\()(?=.*R\.nn\.batch_norm\([^\n]*training=True)",
))
register_known_bug(KnownBug(
    name="test_fast_exp_flushes_subnormals",
    repro="tests/expected_findings/test_fast_exp_flushes_subnormals.py",
    note="FastMathTransform's fast_exp (and fast_softmax) builds 2^n from exponent bits: where exp(x) is "
         "subnormal (float32 x in about [-88.4, -87.3]) it returns 0, where exp and softmax give the subnormal "
         "value; a consumer that magnifies it (sqrt: 8.9e-20 from 7.9e-39) is off",
    subjects=("FastMathTransform", "sequences"),
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees"),
    message=r"wrong numbers: [^\n]*got -?0\.0, reference -?\d(?:\.\d+)?e-\d+",
    ir=r"R\.(?:exp|nn\.softmax|nn\.log_softmax|tanh)\(",
))
register_known_bug(KnownBug(
    name="test_fold_constant_unknown_shape_operand",
    repro="tests/expected_findings/test_fold_constant_unknown_shape_operand.py",
    note="FoldConstant raises on an op in a dataflow block whose operand has an unknown shape (R.Tensor(ndim=2), "
         "a closure's result typed by its rank): it legalizes the call to fold it, and emit_te asserts on the "
         "operand (the same op outside a dataflow block is left alone)",
    subjects=("FoldConstant", "after:FoldConstant", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"emit_te now only supports Tensor that has ShapeExpr shape",
    ir=r"R\.Tensor\(dtype=\"\w+\", ndim=\d+\)",
))
