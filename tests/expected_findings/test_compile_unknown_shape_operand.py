"""TVM 0.27 bug: tvm.compile cannot compile an op whose operand has an unknown shape.

Relax types ``R.abs(x)`` for an ``x: R.Tensor(dtype="float32", ndim=2)`` (rank known, extents not)
and the module is well-formed, but LegalizeOps leaves the call as it is (it legalizes only
operands of known shape) and VM codegen then raises ``InternalError: CodeGenVM cannot emit this
Relax operator directly``. passcheck draws such a value where a closure returns a tensor whose
extent its caller cannot name (a helper's closure capturing a parameter of symbolic shape: the
call's result is typed with its rank alone). Found by DeadCodeElimination's campaign (seed 12305:
1 of 500 examples).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", ("n", 1), "float32", False),),
              nodes=(Node("abs", (0,), (), ("n", 1), "float32"), Node("abs", (1,), (), ("n", 1), "float32")),
              outputs=(2,), sym_sizes=(("n", 1),)),
    regions=(Region(0, 1, "function", "helper", options=(("private", False),),
                    inner=(Region(0, 1, "closure", "helper", options=(("capture", True),)),)),))


def test_tvm_compile_still_refuses_an_op_on_a_tensor_of_unknown_shape() -> None:
    import tvm
    from tvm import relax

    x = relax.Var("x", relax.TensorType(dtype="float32", ndim=2))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit_output(relax.op.abs(x))
        bb.emit_func_output(y)
    mod = bb.get()
    assert relax.analysis.check_well_formed(mod)
    with pytest.raises(tvm.error.InternalError, match="CodeGenVM cannot emit this Relax operator directly"):
        tvm.compile(mod, "llvm")


def test_passcheck_reports_it() -> None:
    assert recheck("DeadCodeElimination", "semantics_preserved", EXAMPLE) == 1


def test_compile_unknown_shape_operand() -> None:
    assert_recognised("DeadCodeElimination", "semantics_preserved", EXAMPLE, "test_compile_unknown_shape_operand")


def test_a_call_with_attributes_in_the_message() -> None:
    """TVM's message ends with the whole call, attributes and tuples too (LambdaLift, seed 1207: 8 of
    2,000, an expand_dims and a strided_slice of a closure's rank-only result). Those runs' words
    are checked against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    ir = 'gv7: R.Tensor(dtype="float32", ndim=3) = gv5[1]'
    for call in ("R.expand_dims(gv7, axis=[1, 0])", "R.strided_slice(gv4, (-1,), (-1,), (-1,), (-2,), assume_inbound=False)"):
        bug = recognise(resolve("LambdaLift"), "semantics_preserved", f"checking raised InternalError (kernels.py:380): {call}",
                        ir)
        assert bug is not None and bug.name == "test_compile_unknown_shape_operand", call
