"""TVM 0.27 bug: a lifted closure returning a tuple does not compile.

LambdaLift turns a local function into ``R.make_closure`` and ``R.invoke_pure_closure(...,
ty_args=(R.Tuple(...),))``, well-formed and typed. tvm.compile's LowerRuntimeBuiltin then lowers
the invocation to a call typed ``R.Any``, and the ``TupleGetItem`` reading its result no longer
normalizes: ``InternalError: The type of Tuple must be TupleType, but expression t has type
R.Any``. Every subject meets it when a drawn program
has a closure with several results (tvm.compile needs LambdaLift first: passcheck runs it for a
module with local functions, as its VMShapeLower asks).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# two values computed in a closure (which reads p0 from main: a capture), both returned
PROGRAM = ProgramSpec(
    graph=GraphSpec(inputs=(TensorDecl("p0", (3,), "float32", False), TensorDecl("p1", (3,), "float32", False)),
                    nodes=(Node("add", (0, 1), (), (3,), "float32"), Node("multiply", (0, 1), (), (3,), "float32")),
                    outputs=(2, 3)),
    regions=(Region(0, 2, "closure", "inner", options=(("capture", True),)),),
)


def _lifted():  # noqa: ANN202
    from tvm import relax

    from passcheck.relax.program.emit import build_program

    return relax.transform.LambdaLift()(build_program(PROGRAM))


def test_lower_runtime_builtin_loses_the_tuple_type() -> None:
    import tvm
    from tvm import relax

    lifted = _lifted()
    assert relax.analysis.check_well_formed(lifted)
    assert "invoke_pure_closure" in lifted.script()
    lowered = lifted
    for name in ("LegalizeOps", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
                 "LowerAllocTensor", "KillAfterLastUse"):
        lowered = getattr(relax.transform, name)()(lowered)
    with pytest.raises(tvm.error.InternalError, match="The type of Tuple must be TupleType"):
        relax.transform.LowerRuntimeBuiltin()(lowered)


def test_passcheck_recognises_it() -> None:
    assert_recognised("DeadCodeElimination", "semantics_preserved", PROGRAM, "test_lower_runtime_builtin_closure_tuple")
