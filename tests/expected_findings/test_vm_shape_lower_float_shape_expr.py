"""TVM 0.27 bug: a shape computed from float constants does not compile across a function call.

Relax types ``R.arange(f16(1), f16(2), f16(1), dtype="float16")`` as
``R.Tensor((T.Cast("int64", T.ceil(T.Cast("float32", T.float16(2.0) - T.float16(1.0)))),))``: its
length is float arithmetic on constants, left unfolded. Inside one function LegalizeOps folds it;
returned by a helper, the caller's types keep the expression, and VMShapeLower, which computes
only integer shape expressions, fails: ``Check failed: (slot->value_computed) is false: PrimExpr
... has not been computed``. Found by LegalizeOps's forms swarm (float16 graphs, 2,000 examples
at seed 0: 4 examples); any subject meets it when a program returns a float arange from a helper.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

PROGRAM = ProgramSpec(
    graph=GraphSpec(
        inputs=(TensorDecl("p0", (1,), "float16", False),),
        nodes=(Node("arange", (), (("dtype", "float16"), ("end", 2.0), ("start", 1.0), ("step", 1.0)), (1,), "float16"),
               Node("gelu", (1,), (), (1,), "float16")),
        outputs=(0, 2)),
    regions=(Region(0, 1, "function", "helper", options=(("private", False),)),),
)


def test_vm_shape_lower_cannot_compute_a_float_shape() -> None:
    import tvm

    from passcheck.relax.program.emit import build_program

    mod = build_program(PROGRAM)
    assert "T.float16(2.0) - T.float16(1.0)" in mod.script()  # the length as Relax typed it
    with pytest.raises(tvm.error.InternalError, match="has not been computed"):
        tvm.compile(mod, target="llvm")


def test_passcheck_recognises_it() -> None:
    assert_recognised("LegalizeOps", "semantics_preserved", PROGRAM, "test_vm_shape_lower_float_shape_expr")
