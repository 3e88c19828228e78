"""TVM 0.27 bug: float16 ``softplus`` returns inf for inputs between about 11 and the threshold.

Softplus is ``x`` above ``threshold / beta`` (20 by default) and ``log(1 + exp(beta x)) / beta``
below it. LegalizeOps computes the second branch in float16, where ``exp`` overflows from
``beta x > 11.09``: every input in (11.09, 20] gives inf, although softplus(x) ~= x is
representable (PyTorch computes half softplus in float32). float32 is fine. Found by passcheck's
op vocabulary (``semantics_preserved``: wrong numbers against the float64 reference).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (4,), "float16", False, 12.0, 19.0),),
    nodes=(Node("softplus", (0,), (("beta", 1.0), ("threshold", 20.0)), (4,), "float16"),),
    outputs=(1,),
)


def test_softplus_float16_still_overflows() -> None:
    from tvm.relax import op as R

    x = np.array([5.0, 12.0, 15.0, 19.0], dtype="float16")
    got = compile_and_run(lambda a: R.nn.softplus(a), [x])
    assert np.isfinite(got[0]) and np.all(np.isinf(got[1:]))
    got32 = compile_and_run(lambda a: R.nn.softplus(a), [x.astype("float32")])
    np.testing.assert_allclose(got32, np.logaddexp(0.0, x.astype(np.float64)), rtol=1e-6)


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", GRAPH) == 1


def test_softplus_float16_overflow() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", GRAPH, "test_softplus_float16_overflow")
