"""TVM 0.27 bug: a lifted closure whose result is read does not compile.

LambdaLift turns a local function into ``R.make_closure`` and ``R.invoke_pure_closure(...,
ty_args=(R.Tuple(...),))``, well-formed and typed. tvm.compile's LowerRuntimeBuiltin then lowers
the invocation to a call typed ``R.Any``, and the ``TupleGetItem`` reading its result no longer
normalizes: ``InternalError: The type of Tuple must be TupleType, but expression t has type
R.Any``. A closure returning one tensor that an op reads fails the same way at that op's
argument: ``Argument 0 type mismatch: expected R.Tensor((1,), dtype="float32"), given R.Any``
(LegalizeOps, 2,000 examples at seed 0: a closure of one abs read by another). Every subject
meets it when a drawn program has such a closure (tvm.compile needs LambdaLift first: passcheck
runs it for a module with local functions, as its VMShapeLower asks). An op LegalizeOps left
as it was (its operand's shape unknown: a closure of a symbolic-shaped value, returned in a branch)
refuses the R.Any operand by name: "relax.negative requires argument 0 (x) to be a tensor"
(CallTIRRewrite, seed 20670: 3 of 500 examples; VMBuiltinLower, which runs after LowerRuntimeBuiltin,
raises it itself, and VMShapeLower's prerequisite LowerRuntimeBuiltin does). A binary op whose
operand is the closure's result (its shape symbolic, so the op is left for later) refuses it in
its type rule: "Arguments to binary operators must be either R.Tensor or R.Prim types, ... which has
Type R.Any" (DeadCodeElimination, seed 1207: 1 of 2,000); a reshape likewise: "Reshape requires the
input data to be Tensor. However, the given one is relax.AnyType" (LambdaLift, seed 1207: 6 of 2,000).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.relax.program.spec import Cond, ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# two values computed in a closure (which reads p0 from main: a capture), both returned
PROGRAM = ProgramSpec(
    graph=GraphSpec(inputs=(TensorDecl("p0", (3,), "float32", False), TensorDecl("p1", (3,), "float32", False)),
                    nodes=(Node("add", (0, 1), (), (3,), "float32"), Node("multiply", (0, 1), (), (3,), "float32")),
                    outputs=(2, 3)),
    regions=(Region(0, 2, "closure", "inner", options=(("capture", True),)),),
)

# one value computed in a closure (reading p0 from main), read by an op in main
ONE = ProgramSpec(
    graph=GraphSpec(inputs=(TensorDecl("p0", (1,), "float32", False),),
                    nodes=(Node("abs", (0,), (), (1,), "float32"), Node("abs", (1,), (), (1,), "float32")),
                    outputs=(2,)),
    regions=(Region(0, 1, "closure", "helper", options=(("capture", True),)),),
)

# the closure's value has a symbolic shape and is returned by a branch typed by rank alone: the
# negative reading it is not legalized, and refuses the R.Any operand when it is normalized
UNLEGALIZED = ProgramSpec(
    graph=GraphSpec(inputs=(TensorDecl("p0", ("m", 1), "float32", False),),
                    nodes=(Node("flip", (0,), (("axis", 0),), ("m", 1), "float32"),),
                    outputs=(1,), sym_sizes=(("m", 1),)),
    regions=(Region(0, 1, "branch", "", options=(("cond", 0), ("tails", ((1, "negative"),))),
                    inner=(Region(0, 1, "closure", "helper", options=(("capture", True),)),)),),
    conds=(Cond("tensor", 0, "int64"),),
)


# a closure of a symbolic-shaped abs (a capture of p0), read by a less
BINARY = ProgramSpec(
    graph=GraphSpec(inputs=(TensorDecl("p0", ("n", 1), "float32", False), TensorDecl("p1", ("n", 1), "float32", False)),
                    nodes=(Node("abs", (0,), (), ("n", 1), "float32"), Node("less", (2, 1), (), ("n", 1), "bool")),
                    outputs=(3,), sym_sizes=(("n", 1),)),
    regions=(Region(0, 1, "closure", "helper", options=(("capture", True),)),),
)


def _before_lower_runtime_builtin(program: ProgramSpec):  # noqa: ANN202
    from tvm import relax

    from passcheck.relax.program.emit import build_program

    lifted = relax.transform.LambdaLift()(build_program(program))
    assert relax.analysis.check_well_formed(lifted)
    assert "invoke_pure_closure" in lifted.script()
    lowered = lifted
    for name in ("LegalizeOps", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
                 "LowerAllocTensor", "KillAfterLastUse"):
        lowered = getattr(relax.transform, name)()(lowered)
    return lowered


def test_lower_runtime_builtin_loses_the_tuple_type() -> None:
    import tvm
    from tvm import relax

    lowered = _before_lower_runtime_builtin(PROGRAM)
    with pytest.raises(tvm.error.InternalError, match="The type of Tuple must be TupleType"):
        relax.transform.LowerRuntimeBuiltin()(lowered)


def test_lower_runtime_builtin_loses_the_tensor_type() -> None:
    from tvm import relax

    lowered = _before_lower_runtime_builtin(ONE)
    with pytest.raises(ValueError, match=r"Argument 0 type mismatch: expected R\.Tensor\(\(1,\), .*given R\.Any"):
        relax.transform.LowerRuntimeBuiltin()(lowered)


def test_passcheck_recognises_it() -> None:
    assert_recognised("DeadCodeElimination", "semantics_preserved", PROGRAM, "test_lower_runtime_builtin_closure_tuple")
    assert_recognised("LegalizeOps", "semantics_preserved", ONE, "test_lower_runtime_builtin_closure_tuple")
    assert_recognised("CallTIRRewrite", "semantics_preserved", UNLEGALIZED, "test_lower_runtime_builtin_closure_tuple")
    # (the pass itself, or its prerequisite, raises: TVM's message quotes the op's whole repr)
    assert_recognised("VMBuiltinLower", "pass_does_not_raise", UNLEGALIZED, "test_lower_runtime_builtin_closure_tuple")
    assert_recognised("VMShapeLower", "pass_does_not_raise", UNLEGALIZED, "test_lower_runtime_builtin_closure_tuple")
    message = assert_recognised("DeadCodeElimination", "semantics_preserved", BINARY,
                                "test_lower_runtime_builtin_closure_tuple")
    assert "Arguments to binary operators" in message
    # (that run's words: the reshape of an affine_grid a closure returned, against the registry)
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    bug = recognise(resolve("LambdaLift"), "semantics_preserved", "checking raised TypeError (execution.py:190): Reshape "
                    "requires the input data to be Tensor. However, the given one is relax.AnyType")
    assert bug is not None and bug.name == "test_lower_runtime_builtin_closure_tuple"


def test_a_tuple_holding_the_closures_result() -> None:
    """The R.Any inside a tuple handed to a function (DeadCodeElimination, seed 1207: 1 of 2,000).
    That run's words against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    message = ('checking raised ValueError (execution.py:190): Argument 0 type mismatch: expected T.Tuple(R.Tensor(('
               'T.int64(4), k), dtype="float32"), R.Tensor((), dtype="float32")), given T.Tuple(R.Any, R.Tensor((), '
               'dtype="float32"))')
    bug = recognise(resolve("DeadCodeElimination"), "semantics_preserved", message)
    assert bug is not None and bug.name == "test_lower_runtime_builtin_closure_tuple"
