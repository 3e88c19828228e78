"""TVM 0.27 bug: dividing a float tensor by a scalar constant 0.0 makes LegalizeOps raise.

IEEE float division by zero is defined (+-Inf, or NaN for 0/0) and Relax types
``R.divide(x, R.const(0.0))`` without complaint; LegalizeOps (TOPI) turns the scalar constant into
a TIR immediate and TVM's arithmetic simplifier then refuses to fold ``x / 0f``:
``InternalError: Check failed: fb->value != 0 (0 vs. 0) : Divide by zero``. FoldConstant, which
legalizes what it folds, raises the same on a constant subgraph holding the division (the
graphs passcheck's FoldConstant bias draws: constants with NaN/+-Inf/0), and so does every
pipeline that legalizes (FuseOps' prerequisite, tvm.compile). A divisor 2.0 folds fine.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# found by the 100-example FoldConstant campaign (relax-bias); the scalar constant's one value
# is 0.0 (a "special" constant: NaN, +-Inf and 0 in turn)
EXAMPLE = GraphSpec(
    inputs=(TensorDecl("c1", (1,), "float32", True, -1.0, 1.0, "special", 0),
            TensorDecl("c2", (), "float32", True, 0.5, 2.0, "special", 0)),
    nodes=(Node("sum", (0,), (("axis", None), ("keepdims", False)), (), "float32"),
           Node("divide", (2, 1), (), (), "float32")),
    outputs=(3,),
)


def _module(divisor: float, x_const: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    params = [] if x_const else [relax.Var("x", relax.TensorType((2,), "float32"))]
    x = relax.const(np.ones(2, "float32")) if x_const else params[0]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(R.divide(x, relax.const(divisor, "float32")))
        bb.emit_func_output(out)
    return bb.get()


def test_a_non_zero_divisor_folds() -> None:
    from tvm import relax

    relax.transform.FoldConstant()(_module(2.0, True))
    relax.transform.LegalizeOps()(_module(2.0, False))


def test_division_by_constant_zero_still_raises() -> None:
    import tvm
    from tvm import relax

    with pytest.raises(tvm.error.InternalError, match="Divide by zero"):
        relax.transform.LegalizeOps()(_module(0.0, False))
    with pytest.raises(tvm.error.InternalError, match="Divide by zero"):
        relax.transform.FoldConstant()(_module(0.0, True))


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "pass_does_not_raise", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("FoldConstant", "pass_does_not_raise", EXAMPLE, "test_divide_by_constant_zero")


# found by the 2,000-example FoldConstant campaign (seed 2026): floor_divide meets the same check
FLOOR = GraphSpec(
    inputs=(TensorDecl("c1", (1,), "float32", True, -1.0, 1.0, "uniform", 0),
            TensorDecl("c2", (), "float32", True, 0.5, 2.0, "special", 0)),
    nodes=(Node("floor_divide", (0, 1), (), (1,), "float32"),),
    outputs=(2,),
)


def test_floor_divide_by_constant_zero_too() -> None:
    assert recheck("FoldConstant", "pass_does_not_raise", FLOOR) == 1
    assert_recognised("FoldConstant", "pass_does_not_raise", FLOOR, "test_divide_by_constant_zero")
