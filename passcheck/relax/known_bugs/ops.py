"""Known TVM 0.27 bugs of ops themselves (legalization, kernels, the VM): they show up under
every pass (each kept as a repro under tests/expected_findings/)."""

from passcheck.core.known import KnownBug, register_known_bug

register_known_bug(KnownBug(
    name="test_rms_norm_all_axes",
    repro="tests/expected_findings/test_rms_norm_all_axes.py",
    note="rms_norm over every axis of its input type-checks but its legalized kernel reads a buffer with no "
         "indices: compiling raises 'Tensor dimension mismatch in read'",
    message=r"Tensor dimension mismatch in read", ir=r"\brms_norm\b",
))
register_known_bug(KnownBug(
    name="test_instance_norm_negative_channel_axis",
    repro="tests/expected_findings/test_instance_norm_negative_channel_axis.py",
    note="instance_norm with a negative channel_axis type-checks but LegalizeOps hands TOPI the axis "
         "unnormalised: compiling raises 'Index -k out of bounds'",
    message=r"Index -\d+ out of bounds", ir=r"R\.nn\.instance_norm\([^\n]*channel_axis=-\d",
))
register_known_bug(KnownBug(
    name="test_resize_align_corners_single_output",
    repro="tests/expected_findings/test_resize_align_corners_single_output.py",
    note="resize2d/3d with align_corners and an output size of 1 divide (in - 1) by (out - 1) = 0 while "
         "building the kernel: compiling raises 'Divide by zero'",
    message=r"Divide by zero", ir=r"R\.image\.resize[23]d\([^\n]*align_corners",
))
register_known_bug(KnownBug(
    name="test_softplus_float16_overflow",
    repro="tests/expected_findings/test_softplus_float16_overflow.py",
    note="float16 softplus computes log(1 + exp(beta x)) in float16 below its threshold: exp overflows from "
         "beta x > 11.09 and the result is inf where softplus(x) ~= x",
    message=r"wrong numbers: .*got -?inf",
    ir=r"(?s)\A(?=.*\bsoftplus\b)(?=.*float16)",
))
register_known_bug(KnownBug(
    name="test_group_norm_one_pass_variance",
    repro="tests/expected_findings/test_group_norm_one_pass_variance.py",
    note="group_norm and instance_norm compute the variance as E[x^2] - E[x]^2 in float32: on data whose "
         "mean is large against its spread the result is rounding noise or NaN (TVM's layer_norm is accurate)",
    message=r"wrong numbers|main\(inputs, main_transform_params\(weights\)\) differs|planned storage\(s\) poisoned before use",  # (or the lifted module's; the planned one's)
    ir=r"\b(?:group|instance)_norm\b",  # R.nn.group_norm( or its legalized kernel
))
register_known_bug(KnownBug(
    name="test_float16_kernels_return_float32",
    repro="tests/expected_findings/test_float16_kernels_return_float32.py",
    note="float16 (and bfloat16) grid_sample, and float16 attention with an explicit scale, are typed float16 but "
         "their legalized kernels return float32: a float16 consumer meeting another float16 operand fails to "
         "compile, and FoldConstant folds the call to a float32 constant (the function's result becomes float32)",
    message=r"Binary operators must have the same datatype|different data type"
            r"|(?:requires|expects) all (?:the )?input tensors to have the same dtype"  # (rms_norm's weight, seed 104; concat)
            r'|dtype="b?float16"\) became R\.Tensor\([^\n]*?dtype="float32"\)|Argument \d+ type mismatch: expected R\.Tensor\([^\n]*dtype="b?float16"\), given R\.Tensor\([^\n]*dtype="float32"\)',
    ir=r"(?s)\A(?=.*\b(?:grid_sample|attention(?:_bias)?)\b)(?=.*float16)",
))
register_known_bug(KnownBug(
    name="test_causal_attention_underflow",
    repro="tests/expected_findings/test_causal_attention_underflow.py",
    note="causal attention masks scores to 0 (not -inf) before the row maximum: a row whose visible scores "
         "are all very negative underflows every exp and divides 0 by 0 (NaN)",
    message=r"wrong numbers: .*got nan",
    ir=r"(?s)\A(?=.*\battention(?:_bias)?\b)(?=.*(?:causal_mask=\"(?:TopLeft|BottomRight)\"|trilu))",
))
register_known_bug(KnownBug(
    name="test_index_tensor_negative_indices",
    repro="tests/expected_findings/test_index_tensor_negative_indices.py",
    note="index_tensor is documented as NumPy advanced indexing, but its kernel uses a negative index as is "
         "and reads before the buffer (garbage values, no error)",
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees", "matches_unfused_bitwise",
                "planned_storage_poisoned", "lifted_params_agree", "functions_agree"),
    # (fused and unfused kernels read different memory before the buffer; poisoned storage too)
    message=r"wrong numbers|differs from the unfused module|planned storage\(s\) poisoned before use|"
            r"main\(inputs, main_transform_params\(weights\)\) differs|computes something else after the pass",
    ir=r"\bindex_tensor\b",
    varies=True,
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
    name="test_split_index_past_end_legalize",
    repro="tests/expected_findings/test_split_index_past_end_legalize.py",
    note="split with an index past the end of its axis is typed with clamped parts ((1,) then (0,) for [2] on "
         "1 element, as np.split gives), but LegalizeOps gives TOPI's unclamped ones, (2,) and (-1,): the "
         "function's result type changes, and a part read reads past the input",
    # the legalized call's out_ty has the negative extent (only this lowering makes one); where no pass legalized
    # it, the example's description names the split (or part 0 is typed shorter than the first index: in a sequence)
    message=r"signature of \w+ changed|wrong numbers|std::bad_alloc|negative dimensions are not allowed|Cannot broadcast"
            r"|raised ValueError: In relax\.\w+, [^\n]*which are not broadcastable"  # (a binary consumer re-typed in LegalizeOps)
            # (a kernel of the negative part: dies, or no unsigned extent; a helper refuses TOPI's part, in LegalizeOps)
            r"|died \(signal SIGSEGV\)|cannot make uint from negative|raised ValueError: Argument \d+ type mismatch|Concat expects the input tensors to have the same shape|available_size >= 0 \(-\d+ vs\. 0\)|query number of heads should be a multiple of key number of heads"
            r"|raised ValueError \([\w.]+:\d+\): Argument \d+ type mismatch: expected R\.Tensor(?![^\n]*CallTIRRewrite)",
    ir=r"a split index past the end|R\.Tensor\(\((?:[^()\n]*, )?-\d+[,)]|" + "|".join(rf"R\.Tuple\(R\.Tensor\(\((?:[^(),\n]+, ){{{a}}}(?P<e{a}>\d+)[,)]"
        rf"[^\n]*= R\.split\(\w+, indices_or_sections=\[(?!(?P=e{a})[,\]])\d+[,\]][^\n]*axis={a}\)" for a in range(8)),
))
register_known_bug(KnownBug(
    name="test_split_index_past_end_partly_legalized",
    repro="tests/expected_findings/test_split_index_past_end_legalize.py",
    note="the same split inside tvm.compile: a part's consumer a pass legalized for the clamped type "
         "(FastMathTransform's fast_erf) is handed TOPI's unclamped part; a negative-extent part fails the plan",
    properties=("semantics_preserved",),
    # (the unclamped type is made inside tvm.compile: neither module shows it, only the split)
    message=r"Argument \d+ type mismatch: expected R\.Tensor\(.*, given R\.Tensor\(.*\(in CallTIRRewrite\)"
            r"|Check failed: available_size >= 0 \(-\d+ vs\. 0\)"  # (and a helper handed the parts, clamped in its type)
            r"|Argument \d+ type mismatch: expected T\.Tuple\([^\n]*T\.int64\(0\)[,)][^\n]*, given T\.Tuple\("
            # (a binary consumer of the part, normalized again after LegalizeOps: the unclamped extent)
            r"|In relax\.\w+, the \w+ input shape at dim \d+ is T\.int64\(-\d+\)[^\n]*not broadcastable",
    ir=r"R\.split\(",
))
register_known_bug(KnownBug(
    name="test_meshgrid_single_tensor_legalize",
    repro="tests/expected_findings/test_meshgrid_single_tensor_legalize.py",
    note="LegalizeOps lowers meshgrid of one tensor (typed as a 1-tuple) to a plain tensor, so the "
         "TupleGetItem reading it no longer type-checks (in another function: the VM's tuple_getitem "
         "is handed the tensor)",
    # (a helper returning the meshgrid legalizes, and its caller's lv[0] fails when it runs)
    message=r"The type of Tuple must be TupleType|vm\.builtin\.tuple_getitem\(.*Expected `Array<Any>` but got `ffi\.Tensor`"
            r"|annotation=T\.Tuple\([^\n]*expect a Tuple but get ffi\.Tensor"  # (a helper's tuple parameter)
            r"|type mismatch: expected T\.Tuple\((?:T\.Tuple\()?R\.Tensor\(.*given (?:T\.Tuple\()?R\.Tensor\(",  # (to a helper)
    ir=r"\bmeshgrid\b",
))
register_known_bug(KnownBug(
    name="test_collapse_sum_empty_axis",
    repro="tests/expected_findings/test_collapse_sum_empty_axis.py",
    note="collapse_sum_to/like over a zero-size axis return uninitialized memory: the kernel's init sits "
         "under the empty reduction loop (R.sum of the same returns 0)",
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees", "builds_agree",
                "matches_unfused_bitwise", "planned_storage_poisoned", "lifted_params_agree"),
    # (builds_agree says "the ... build is wrong: output ..."; FuseOps's fused and unfused modules
    # read different leftover memory; a poisoned plan, the poison; main and lifted main, theirs)
    message=r"wrong numbers|build is wrong: |differs from the unfused module|planned storage\(s\) poisoned before use"
            r"|differs from main\(inputs, weights\)",
    ir=r"collapse_sum",
    varies=True,
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
    note="tvm.compile fails (IndexError: Index k out of bounds n) when RewriteDataflowReshape turns a "
         "reshape-like kernel on a zero-size value (broadcast_to, expand_dims feeding another op) into "
         "R.reshape, whose shape inference indexes past the input's dims when it has no elements (or, for a "
         "transpose, gets the new shape wrong: 'Reshape expects the new shape to be convertible')",
    # (with a symbolic extent the rewrite's reshape is typed (1, 1, 1, n) and the output left reading
    # an undefined copy of the variable: "Var lv is not defined" in the VM's codegen)
    message=r"Index \d+ out of bounds \d+|Reshape expects the new shape to be convertible from the old shape"
            r"|Var \w+ is not defined",
    ir=r"(?:shape=|R\.Tensor\()\((?:'?\w+'?, )*0[,)]",  # a zero-size value, in the spec or the TVMScript
))
register_known_bug(KnownBug(
    name="test_legalize_batch_norm_float16",
    repro="tests/expected_findings/test_legalize_batch_norm_float16.py",
    note="LegalizeOps lowers a float16 batch_norm to a float32 result (TOPI promotes var + eps) while Relax "
         "types it float16: a float16 consumer makes LegalizeOps raise, a bare output comes back float32",
    # the consumer's type check fails, whichever consumer (a binary op, another batch_norm, ...);
    # TVM prints the whole Op before its reason, which a one-line message may cut off (error_line
    # shortens it to the op's name)
    message=r"d(?:ata)?type|name=\"relax\.nn\.batch_norm\"|\brelax\.nn\.batch_norm\b|TVMTensorCopyFromTo: The size in bytes",
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
    # a consumer failing LegalizeOps (conv2d: "requires the input to be 4-dim"); the wrong shape at run time; FoldConstant
    # folding it (main's return type changes); a helper handed the (1,) that a median of it reduces to ()
    # a consumer's type error cut off inside TVM's print of the Op (layer_norm), before its reason
    message=r"ndim|rank|\d-dim tensor|at least \w+ dimensions(?:, but got \d|\. However, the given input has \d)|In ir\.Op\(|shape \[1?\], the reference has shape \[1(?:, 1)+\]|"
            r"R\.Tensor\(\(1(?:, 1)+\)[^\n]*\) became R\.Tensor\(\(1(?:, 1)*,?\)"  # (expand_dims of it: rank 1 + k)
            r"|number of dimensions in input must match the number of source dimensions in index map|Predictions shape is \(C,\) while targets is not a scalar|NLLLoss expects number of dimensions K inferred from different arguments to be equal"
            r"|number of indices in begin to equal the number of axes|input axis -?\d+ is out of range|data has only \d+ dim"
            r"|expected R\.Tensor\(\(1(?:, 1)*,?\), [^\n]*given R\.Tensor\(\((?:1,)?\)"  # (a consumer's call_tir)
            r"|raised ValueError \([^)\n]*\): +expected \d+$"  # (a helper's kernel: "Mismatched lv.ndim ..., expected 2")
            r"|raised IndexError \([^)\n]*\): Index \d+ out of bounds \d+$",  # (an einsum of it: "ij->ji" on rank 1)
    ir=r"R\.median\([^\n]*axis=None, keepdims=True",
))
register_known_bug(KnownBug(
    name="test_vm_zero_size_numpy_input",
    repro="tests/expected_findings/test_vm_zero_size_numpy_input.py",
    note="the VM refuses a zero-size NumPy argument ('expected to be compact array': NumPy gives empty arrays "
         "zero strides); a copy into a TVM tensor runs",
    message=r"expected to be compact array",
    # the chance a graph with a zero-size parameter passes NumPy arrays (one graph in twenty to
    # one in five has a zero-size parameter): 0.5-2% of graphs
    drawn_rate=0.1,
))
register_known_bug(KnownBug(
    name="test_divide_by_constant_zero",
    repro="tests/expected_findings/test_divide_by_constant_zero.py",
    note="LegalizeOps (and FoldConstant, which legalizes what it folds) raises 'Divide by zero' on a float "
         "divide or floor_divide by a scalar constant 0.0: the arithmetic simplifier refuses x / 0f (IEEE gives +-Inf/NaN)",
    message=r"Divide by zero",
    ir=r"R\.(?:floor_)?divide\(",
))
register_known_bug(KnownBug(
    name="test_relax_reduction_over_empty_axis",
    repro="tests/expected_findings/test_relax_reduction_over_empty_axis.py",
    note="a reduction over a symbolic axis bound to 0 never runs its init (TOPI runs it at the first reduction "
         "iteration): the output is uninitialised memory instead of 0 / -inf / ...",
    properties=("semantics_preserved", "matches_unfused_bitwise", "builds_agree", "planned_storage_poisoned"),
    # (builds_agree: two builds read different leftover memory where the reference, max's -inf
    # or mean's 0/0, is not finite; planned_storage_poisoned: the poison is what is never written)
    message=r"wrong numbers|differs from the unfused module|where the reference is not finite"
            r"|planned storage\(s\) poisoned before use",
    # a reduction op of a graph with a shape variable bound to 0
    ir=r"(?s)\A(?=.*\bops: [^\n]*\b(?:sum|max|min|prod|mean|variance|std|argmax|argmin)\b)(?=.*run at [^\n]*=0\b)",
    shows_on="a run whose uninitialised output memory is not 0 by chance",
    varies=True,
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
    note="compiling layer_norm (or batch_norm's training form) over axes of extent 0 (an empty result) fails 'Divide "
         "by zero': the kernel divides by the constant element count 0 and constant folding rejects it",
    message=r"Divide by zero",
    ir=r"R\.nn\.layer_norm\(|R\.nn\.batch_norm\([^\n]*training=True",
))
register_known_bug(KnownBug(
    name="test_float16_math_intrinsics",
    repro="tests/expected_findings/test_float16_math_intrinsics.py",
    note="float16 acos/acosh/asin/asinh/atan/atan2/cosh/sinh type-check but do not compile for llvm "
         "('unknown intrinsic'): the LLVM backend has no float16 lowering for them; ToMixedPrecision makes them",
    # (the op's repr is shortened to its name in findings: error_line)
    message=r'unknown intrinsic (?:[^\n]*name=")?tirx\.(?:acos|acosh|asin|asinh|atan|atan2|cosh|sinh)\b',
))
register_known_bug(KnownBug(
    name="test_conv_transpose_nan_where_no_input_reaches",
    repro="tests/expected_findings/test_conv_transpose_nan_where_no_input_reaches.py",
    note="conv1d/conv2d_transpose are computed as a convolution over the zero-dilated, zero-padded input: each "
         "output adds 0 * w for the weights its window puts on padding or stride gaps, NaN for a NaN/Inf weight "
         "(0 where no input reaches, x * w[1] alone at the border of a stride-1 transpose)",
    # a finite reference: a NaN the exact sum has too is no finding
    message=r"wrong numbers: .*got nan, reference -?\d",
    ir=r"\bconv[12]d_transpose\b",
))
# op/dtype pairs type inference accepts that do not compile (one kept repro, three patterns)
_UNCOMPILABLE = "tests/expected_findings/test_dtype_pairs_that_do_not_compile.py"
register_known_bug(KnownBug(
    name="test_bfloat16_ops_do_not_compile",
    repro=_UNCOMPILABLE,
    note="bfloat16 mod, log_add_exp, power, isnan/isinf/isfinite type-check but do not compile for llvm (the "
         "legalized kernels' checks do not count bfloat16 as a float; mod stores bfloat16 into a uint16 buffer)",
    message=r"buffer's dtype is `T\.uint16`|IsFloatType|power only applies to float"
            r"|Data type T\.bfloat16 not supported",
    # the op, or its legalized kernel (FuseOps' input is legalized)
    ir=r'(?s)\A(?=.*(?:R\.|def )(?:mod|log_add_exp|power|isnan|isinf|isfinite)\()(?=.*"bfloat16")',
))
register_known_bug(KnownBug(
    name="test_bool_ops_do_not_compile",
    repro=_UNCOMPILABLE,
    note="comparisons of bool tensors and bool clip type-check but do not compile for llvm (an fcmp on i1, "
         "or a check that the operands are floats)",
    message=r"Invalid operand types for FCmp|fcmp o\w+ i1|MatchesCode\(DLDataTypeCode::kDLFloat\)",
    ir=r'(?s)\A(?=.*(?:R\.|def )(?:equal|not_equal|greater|greater_equal|less|less_equal|clip)\()(?=.*"bool")',
))
register_known_bug(KnownBug(
    name="test_uint8_negation_does_not_compile",
    repro=_UNCOMPILABLE,
    note="uint8 negative and sign type-check but do not compile: the legalization makes the constant -1 in "
         "the operand's unsigned type",
    message=r"cannot make uint from negative value",
    ir=r'(?s)\A(?=.*(?:R\.|def )(?:negative|sign)\()(?=.*"uint8")',
))
register_known_bug(KnownBug(
    name="test_float64_computed_in_float32",
    repro="tests/expected_findings/test_float64_computed_in_float32.py",
    note="float64 rms_norm, resize2d/3d and affine_grid are typed and returned as float64 but computed through "
         "float32 (a nearest-neighbour resize returns its inputs rounded to float32): ~1e-8 relative error",
    message=r"wrong numbers",
    ir=r"(?s)\A(?=.*\b(?:rms_norm|resize[23]d|affine_grid)\b)(?=.*float64)",
))
register_known_bug(KnownBug(
    name="test_channel_norms_float32_float16_only",
    repro="tests/expected_findings/test_channel_norms_float32_float16_only.py",
    note="group_norm and instance_norm type-check in float64 (instance_norm in bfloat16 too) but TOPI's kernels "
         "refuse them when built and run: 'only support float32 and float16 for now'",
    message=r"only support float32 and float16",
    ir=r"\b(?:group|instance)_norm\b",
))
register_known_bug(KnownBug(
    name="test_einsum_empty_contraction",
    repro="tests/expected_findings/test_einsum_empty_contraction.py",
    note="einsum summing over an axis of extent 0 returns uninitialized memory: the kernel's init sits under "
         "the empty reduction loop (as collapse_sum's)",
    message=r"wrong numbers|differs from the unfused module|poisoned before use",
    ir=r"(?s)\A(?=.*\beinsum\b)(?=.*(?:shape=|R\.Tensor\()\((?:\d+, )*0[,)])",
))
register_known_bug(KnownBug(
    name="test_meshgrid_xy_type",
    repro="tests/expected_findings/test_meshgrid_xy_type.py",
    note="Relax types meshgrid(indexing='xy') of lengths (a, b, ...) as (a, b, ...); the kernel, like NumPy, "
         "returns (b, a, ...) and the VM does not check it; FoldConstant's folded constants change the signature, "
         "and a function's declared return type is checked when it returns: the run fails",
    properties=("signature_preserved", "semantics_preserved"),
    message=r"signature of main changed|Check failed: [^\n]*ErrorContext\(fn=\w+, loc=return",
    ir=r'R\.meshgrid\([^\n]*indexing="xy"',
))
register_known_bug(KnownBug(
    name="test_min_max_reduction_nan",
    repro="tests/expected_findings/test_min_max_reduction_nan.py",
    note="min/max reductions over a group holding NaN return an element that depends on where the NaN sits "
         "(min([1, nan, 2]) is 2; NumPy and torch give NaN): the kernel's select(acc < x, acc, x) replaces a NaN "
         "accumulator. passcheck's reference leaves such a group unknown, so no drawn finding is this bug",
    # (never a drawn finding: a reference of NaN is not checked)
    message=r"reference nan\b",
    ir=r"R\.(?:min|max)\(",
))
register_known_bug(KnownBug(
    name="test_fast_erf_float16_exceeds_one",
    repro="tests/expected_findings/test_fast_erf_float16_exceeds_one.py",
    note="FastMathTransform's float16 erf (TOPI fast_erf, a polynomial evaluated in float16) returns up to "
         "1.041 where erf saturates at 1 (|x| >= 3): float32's fast_erf is right to 7 digits",
    subjects=("FastMathTransform",),
    message=r"wrong numbers",
    ir=r"(?s)\A(?=.*\bR\.(?:erf|nn\.gelu)\()(?=.*float16)",
))
register_known_bug(KnownBug(
    name="test_optimize_layout_transform_not_inverse",
    repro="tests/expected_findings/test_optimize_layout_transform_not_inverse.py",
    note="OptimizeLayoutTransform replaces layout_transform(layout_transform(x, A), B) by x whenever the "
         "shapes match, without comparing the index maps: a transpose after an identity map is dropped",
    subjects=("OptimizeLayoutTransform",),
    properties=("semantics_preserved",),
    message=r"wrong numbers",
    ir=r"R\.layout_transform\(.*R\.layout_transform\(",
))
register_known_bug(KnownBug(
    name="test_specialize_primfunc_buffer_alignment",
    repro="tests/expected_findings/test_specialize_primfunc_buffer_alignment.py",
    note="SpecializePrimFuncBasedOnCallSite requires a PrimFunc's buffer alignment to equal the default of the "
         "call site's buffer: a legalized median/argsort (align=8 for the external sort) makes it raise",
    subjects=("SpecializePrimFuncBasedOnCallSite",),
    properties=("pass_does_not_raise",),
    message=r"The buffer data_alignment mismatched",
))
