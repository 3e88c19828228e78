"""TVM 0.27 bug: FastMathTransform raises on a module whose ``main`` calls a Relax function.

After FuseOps (and before FuseTIR), ``main`` calls each fused group as a private Relax function:
``R.call(fused_exp_relu, ...)`` -- valid Relax that builds and runs. FastMathTransform's
``visit_call_`` (python/tvm/relax/transform/fast_math.py) reads ``call.op.name`` for every
call, and a ``GlobalVar`` callee has ``name_hint``, not ``name``: ``AttributeError: 'GlobalVar'
object has no attribute 'name'``. Any module with a call to a Relax function (a lifted lambda,
an inlined-later helper, a fused group) makes it raise. Found by ``passcheck sequence``
(``pass_does_not_raise``: FuseOps, then FastMathTransform).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (2, 3), "float32", False),),
    nodes=(Node("exp", (0,), (), (2, 3), "float32"), Node("relu", (1,), (), (2, 3), "float32")),
    outputs=(2,),
)
EXAMPLE = PassSequence(GRAPH, (Step("FuseOps"), Step("FastMathTransform")))


def test_fast_math_still_raises_on_a_call_to_a_function() -> None:
    import numpy as np
    import tvm
    from tvm import relax

    from passcheck.relax.build import build_module

    T = relax.transform
    fused = T.FuseOps()(T.AnnotateTIROpPattern()(T.LegalizeOps()(build_module(GRAPH))))
    assert relax.analysis.check_well_formed(fused)
    x = np.ones((2, 3), "float32")
    vm = relax.VirtualMachine(tvm.compile(fused, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](x).numpy(), np.exp(x), rtol=1e-6)
    with pytest.raises(AttributeError, match="'GlobalVar' object has no attribute 'name'"):
        T.FastMathTransform()(fused)


def test_passcheck_reports_it() -> None:
    assert recheck("sequence", "pass_does_not_raise", EXAMPLE) == 1


def test_fast_math_calls_to_functions() -> None:
    assert_recognised("sequence", "pass_does_not_raise", EXAMPLE, "test_fast_math_calls_to_functions")
