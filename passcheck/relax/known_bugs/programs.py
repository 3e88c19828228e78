"""Known TVM 0.27 bugs that programs show (branches, several functions, closures, composite
functions), each kept as a repro under tests/expected_findings/."""

from passcheck.core.known import KnownBug, register_known_bug

_PLAN = "tests/expected_findings/test_static_plan_block_memory_branches.py"
register_known_bug(KnownBug(
    name="test_static_plan_block_memory_branches",
    repro=_PLAN,
    note="StaticPlanBlockMemory plans both branches of an R.If into one storage and allocates it in the first "
         "branch only: the else-branch reads an undefined variable (ill-formed) and the compiled program "
         "segfaults when the else-branch runs (apache/tvm#17348)",
    message=r"(?:StaticPlanBlockMemory made|module handed to tvm\.compile) is ill-formed: Var storage\d* is not "
            r"defined|the module StaticPlanBlockMemory made is ill-formed: Var storage\d* is not defined",
))
register_known_bug(KnownBug(
    name="test_static_plan_block_memory_branches_output",
    repro=_PLAN,
    note="the same bug seen in the pass's own output: not well-formed (a storage defined in one branch only)",
    subjects=("StaticPlanBlockMemory",),
    properties=("well_formed",),
    message=r"not well-formed: Var storage\d* is not defined",
))
register_known_bug(KnownBug(
    name="test_lower_runtime_builtin_closure_tuple",
    repro="tests/expected_findings/test_lower_runtime_builtin_closure_tuple.py",
    note="LowerRuntimeBuiltin lowers R.invoke_closure to a call typed R.Any: what reads its result no longer "
         "normalizes (a TupleGetItem of a closure returning several values, an op taking the tensor one returns), "
         "so tvm.compile raises on a lifted closure whose result is read",
    message=r"The type of Tuple must be TupleType, but expression \w+ has type R\.Any"
            r"|Argument \d+ type mismatch: expected (?:T\.Tuple\()?R\.Tensor\(.*\), given (?:T\.Tuple\()?R\.Any"
            r"|requires argument \d+ \(\w+\) to be a tensor\.\s+However, the argument \w+ is instead of type R\.Any"
            r"|Arguments to binary operators must be either R\.Tensor or R\.Prim types, .* which has Type R\.Any"
            r"|requires the input data to be Tensor\. However, the given one is relax\.AnyType",
))
register_known_bug(KnownBug(
    name="test_merge_composite_functions_extern_call",
    repro="tests/expected_findings/test_merge_composite_functions.py",
    note="MergeCompositeFunctions raises on a module whose main calls an external function "
         "(R.call_dps_packed): its graph partitioner has no rule for an ExternFunc",
    subjects=("MergeCompositeFunctions",),
    properties=("pass_does_not_raise",),
    message=r"Do not have a default for relax\.expr\.ExternFunc",
))
register_known_bug(KnownBug(
    name="test_merge_composite_functions_match_cast",
    repro="tests/expected_findings/test_merge_composite_functions.py",
    note="MergeCompositeFunctions raises on a match_cast binding in main (a data-dependent op's result cast "
         "to its shape): its graph partitioner has no case for relax.expr.MatchCast",
    subjects=("MergeCompositeFunctions",),
    properties=("pass_does_not_raise",),
    message=r"Invalid type: relax\.expr\.MatchCast",
))
register_known_bug(KnownBug(
    name="test_merge_composite_functions_helper_call",
    repro="tests/expected_findings/test_merge_composite_functions.py",
    note="MergeCompositeFunctions raises on a module whose main calls another Relax function (a private "
         "helper, not a composite one): the values of the callee are in no group",
    subjects=("MergeCompositeFunctions",),
    properties=("pass_does_not_raise",),
    message=r"could not be found in any group",
))
register_known_bug(KnownBug(
    name="test_convert_layout_match_cast_of_a_call",
    repro="tests/expected_findings/test_convert_layout_dynamic_strided_slice.py",
    note="ConvertLayout raises on a match_cast applied to a data-dependent call itself (a dynamic_strided_slice "
         "of a converted conv2d's output): 'Cannot convert when exactly one of the layouts is unknown'; the "
         "call bound first, then cast, converts",
    subjects=("AlterOpLayout", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"Cannot convert when exactly one of the layouts is unknown",
))
register_known_bug(KnownBug(
    name="test_convert_layout_dynamic_strided_slice_int32_indices",
    repro="tests/expected_findings/test_convert_layout_dynamic_strided_slice.py",
    note="ConvertLayout hands a dynamic_strided_slice of a converted tensor int32 begin/end/strides, which its "
         "own type check refuses (it expects int64)",
    subjects=("AlterOpLayout", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"Dynamic strided_slice expects the input beginvalues to be all int64",
))
register_known_bug(KnownBug(
    name="test_fuse_transpose_matmul_shared_transpose",
    repro="tests/expected_findings/test_fuse_transpose_matmul_shared_transpose.py",
    note="FuseTransposeMatmul raises AttributeError when the transposed value is also used elsewhere: the composite "
         "function returns a tuple and the rewrite reads its return type as one tensor's",
    subjects=("FuseTransposeMatmul", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"'TupleType' object has no attribute 'dtype'",
))
register_known_bug(KnownBug(
    name="test_fold_batchnorm_to_conv2d_float16",
    repro="tests/expected_findings/test_fold_batchnorm_to_conv2d_float16.py",
    note="FoldBatchnormToConv2D adds a float32 epsilon to float16 batch_norm statistics: TypeError (Binary operators "
         "must have the same datatype)",
    subjects=("FoldBatchnormToConv2D", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"Binary operators must have the same datatype",
    ir=r"float16",
))
register_known_bug(KnownBug(
    name="test_lazy_transform_params_missing_import",
    repro="tests/expected_findings/test_lazy_transform_params_missing_import.py",
    note="LazyTransformParams calls relax.op.vm.kill_object, but tvm.relax.op never imports its vm subpackage: "
         "AttributeError in a fresh process (it works only after something else imported tvm.relax.op.vm)",
    subjects=("LazyTransformParams", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"module 'tvm\.relax\.op' has no attribute 'vm'",
))
register_known_bug(KnownBug(
    name="test_split_layout_rewrite_preproc_opaque_block",
    repro="tests/expected_findings/test_split_layout_rewrite_preproc_opaque_block.py",
    note="SplitLayoutRewritePreproc fails an internal check ('There should be a compute block if there is only "
         "one subtree under the root') on a PrimFunc with no layout-rewrite block to split: TVM's own legalization "
         "of index_put (one opaque block of parallel loops); the pass should leave such a function alone",
    subjects=("SplitLayoutRewritePreproc", "sequences"),
    properties=("pass_does_not_raise",),
    message=r"There should be a compute block if there is only one subtree under the root",
))
register_known_bug(KnownBug(
    name="test_vm_shape_lower_float_shape_expr",
    repro="tests/expected_findings/test_vm_shape_lower_float_shape_expr.py",
    note="Relax types a float arange's length with float arithmetic (ceil(cast(float32, f16(2) - f16(1)))); "
         "where that type crosses a function boundary unfolded (a helper returning the arange), VMShapeLower "
         "cannot compute it and tvm.compile fails ('has not been computed')",
    message=r"value_computed\) is false: PrimExpr .*T\.float\d+\(.* has not been computed",
))
register_known_bug(KnownBug(
    name="test_fuse_ops_local_function",
    repro="tests/expected_findings/test_fuse_ops_local_function.py",
    note="FuseOps raises on a local function (a closure in main) whose dataflow block binds something other "
         "than a call_tir (tensor_to_shape, a match_cast): 'Variable ... could not be found in any group'",
    properties=("pass_does_not_raise",),
    message=r"could not be found in any group",
    ir=r"\n {8}@R\.function",
))
register_known_bug(KnownBug(
    name="test_lift_transform_params_name_taken",
    repro="tests/expected_findings/test_lift_transform_params_name_taken.py",
    note="LiftTransformParams takes an existing function named main_transform_params for its own earlier "
         "output: it removes that function's GlobalVar (composing it with what it lifts), and main's call "
         "to it is left to an undefined GlobalVar",
    subjects=("LiftTransformParams", "LazyTransformParams"),
    # (a private helper of that name: "no definition"; one taking two parameters: main_transform_params
    # is the composition, which the lifted calling convention hands one tuple)
    message=r"GlobalVar I\.GlobalVar\(\"main_transform_params\"\) is not defined"
            r"|Cannot find ffi::Function main_transform_params\b"
            r"|There is no definition of I\.GlobalVar\(\"main_transform_params\"\)"
            r"|Invoking function main_transform_params expects \d+ arguments"
            r"|tokens\.IsNested\(\)|main\(inputs, main_transform_params\(weights\)\) differs"
            r"|during match-cast we find tuple size mismatch"  # (its tuple of results: the composition's)
            r"|(?:the pass|LiftTransformParams \(run before \w+\)) raised IndexError: Index \d+ out of bounds \d+",  # (more outputs than it composes)
    # (a drawn function of that name, in the example's description: the pass's output has one too)
    ir=r"regions [^\n]*\bmain_transform_params\[",
))
register_known_bug(KnownBug(
    name="test_lazy_get_input_shape_parameter",
    repro="tests/expected_findings/test_lazy_get_input_shape_parameter.py",
    note="LazyGetInput loads a parameter where its Var is first read: an R.Shape([n]) parameter read only "
         "through n is never loaded, and n is left undefined (ill-formed); a T.bool one is bound untyped",
    subjects=("LazyGetInput",),
    # (a T.bool parameter, the symbolic variable of an R.Prim: loaded, but its match_cast binds the
    # variable to the untyped value, which tvm.compile refuses)
    message=r"Var \w+ is not defined|Explicit binding for symbolic variable \w+ must be a primitive expression",
    ir=r"(?m)^\s*def main\(.*: (?:R\.Shape\(\[\w|T\.(?:bool|int\d+)\b)",
))
register_known_bug(KnownBug(
    name="test_bundle_model_params_closure_capture",
    repro="tests/expected_findings/test_bundle_model_params_closure_capture.py",
    note="BundleModelParams replaces main's weights by fields of one tuple but leaves a local function that "
         "captures a weight reading the weight's Var, now undefined (ill-formed)",
    subjects=("BundleModelParams",),
    message=r"Var \w+ is not defined",
    ir=r"(?m)^ {8,}@R\.function",  # (a local function: indented inside main)
))
register_known_bug(KnownBug(
    name="test_lazy_transform_params_whole_tuple",
    repro="tests/expected_findings/test_lazy_transform_params_whole_tuple.py",
    note="LazyTransformParams rewrites only reads of the tuple parameter's fields: a transform_params that "
         "returns the tuple whole (nothing was lifted) returns it undefined once the parameter is dropped",
    subjects=("LazyTransformParams",),
    message=r"Var model_params is not defined",
    ir=r"\n\s+return model_params\n",
))
register_known_bug(KnownBug(
    name="test_lazy_transform_params_no_parameters",
    repro="tests/expected_findings/test_lazy_transform_params_no_parameters.py",
    note="LazyTransformParams takes every function named *transform_params for one LiftTransformParams made "
         "and reads its parameter and tuple result unchecked: one without parameters raises IndexError, one "
         "returning a tensor AssertionError",
    subjects=("LazyTransformParams",),
    properties=("pass_does_not_raise",),
    message=r"IndexError: Index out of range|raised AssertionError",
    ir=r"def \w*transform_params\((?!model_params: R\.Tuple)",  # (not one LiftTransformParams made)
))
register_known_bug(KnownBug(
    name="test_lazy_transform_params_called_helper",
    repro="tests/expected_findings/test_lazy_transform_params_no_parameters.py",
    note="LazyTransformParams makes a helper named *transform_params that main calls lazy (no parameters) "
         "and leaves main's call with its arguments: the call fails",
    subjects=("LazyTransformParams",),
    # (or, a helper main calls with no weights at all, it reads a weight main does not have)
    message=r"Invoking function \w*transform_params expects 0 arguments, but \d+ arguments were provided"
            r"|get_item\(\d+\): the module has \d+ weight\(s\)",
))
register_known_bug(KnownBug(
    name="test_fuse_ops_by_pattern_cyclic_match",
    repro="tests/expected_findings/test_fuse_ops_by_pattern_cyclic_match.py",
    note="FuseOpsByPattern raises 'A cyclic dependency detected' on a match whose fusion would make a cycle "
         "(subtract(exp(x), square(exp(x)))) instead of leaving it unfused; or, where the match's inner result is "
         "read on the way to its other operand (add(relu(x), f(relu(x)))), returns a module that reads it before it "
         "is defined, on which MergeCompositeFunctions fails its memo check",
    properties=("pass_does_not_raise",),
    message=r"FuseOpsByPattern \(run before \w+\) raised .*A cyclic dependency detected between the groups"
            r"|Check failed: \(memo_\.count\(ffi::GetRef<Expr>\(vn\)\)\) is false",
))
register_known_bug(KnownBug(
    name="test_remove_unused_parameters_prim_param",
    repro="tests/expected_findings/test_remove_unused_parameters_prim_param.py",
    note="RemoveUnusedParameters (and FuseTIR, which runs it) raises on a function with an unused parameter "
         "and a non-int64 PrimValue parameter its body reads: it passes the PrimValue on in an R.shape, which "
         "holds int64 only",
    properties=("pass_does_not_raise",),
    message=r"the value in ShapeType can only have dtype of int64",
    ir=r"\w+: T\.(?!int64\b)[a-z]+\d*[,)]",
))
register_known_bug(KnownBug(
    name="test_inline_private_functions_symbolic_var",
    repro="tests/expected_findings/test_inline_private_functions_symbolic_var.py",
    note="InlinePrivateFunctions inlines a helper whose body names its own symbolic variable in an expression "
         "(R.shape([m, m])) without replacing it by the caller's: the inlined body reads a variable main never "
         "defines (not well-formed; tvm.compile: 'has not been computed')",
    subjects=("InlinePrivateFunctions",),
    message=r"Var \w+ is not defined|PrimExpr [^\n]* has not been computed",
    ir=r"(?s)\A(?=.*@R\.function\(private=True\))(?=.*R\.shape\(\[[^\]\n]*[a-z])",
))
