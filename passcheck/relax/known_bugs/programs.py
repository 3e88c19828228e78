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
    note="LowerRuntimeBuiltin lowers R.invoke_closure of a closure returning a tuple to a call typed R.Any: the "
         "TupleGetItem reading its result no longer normalizes, so tvm.compile raises on any lifted closure "
         "that returns several values",
    message=r"The type of Tuple must be TupleType, but expression \w+ has type R\.Any",
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
    name="test_merge_composite_functions_helper_call",
    repro="tests/expected_findings/test_merge_composite_functions.py",
    note="MergeCompositeFunctions raises on a module whose main calls another Relax function (a private "
         "helper, not a composite one): the values of the callee are in no group",
    subjects=("MergeCompositeFunctions",),
    properties=("pass_does_not_raise",),
    message=r"could not be found in any group",
))
