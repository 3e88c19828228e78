"""TVM 0.27 bug: causal ``attention`` returns NaN when a query's visible scores are all below
about -87 (float32; about -10 in float16).

The legalized kernel masks the scores with ``trilu``, which writes 0 (not -inf) to the masked
positions, and takes the row maximum over all of them: a row whose visible scores are all very
negative gets the maximum 0, every ``exp(score - 0)`` underflows to 0, and the normalisation
divides 0 by 0. The softmax is well defined (shift-invariant) and without a mask the same row is
computed correctly. Found by passcheck's op vocabulary (``semantics_preserved``: NaN against
the float64 reference).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (1, 2, 1, 4), "float32", False, 9.0, 10.0),
            TensorDecl("p1", (1, 3, 1, 4), "float32", False, -10.0, -9.0),
            TensorDecl("p2", (1, 3, 1, 2), "float32", False)),
    nodes=(Node("attention", (0, 1, 2), (("causal_mask", "TopLeft"), ("scale", None)), (1, 2, 1, 2), "float32"),),
    outputs=(3,),
)


def test_causal_attention_still_underflows() -> None:
    from tvm.relax import op as R

    q = np.full((1, 2, 1, 4), 10.0, "float32")
    k = np.full((1, 3, 1, 4), -10.0, "float32")
    v = np.ones((1, 3, 1, 2), "float32")
    plain = compile_and_run(lambda a, b, c: R.nn.attention(a, b, c), [q, k, v])
    np.testing.assert_allclose(plain, 1.0)
    causal = compile_and_run(lambda a, b, c: R.nn.attention(a, b, c, causal_mask="TopLeft"), [q, k, v])
    assert np.isnan(causal).all()  # every row of a TopLeft mask has masked positions here


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", GRAPH) == 1


def test_causal_attention_underflow() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", GRAPH, "test_causal_attention_underflow")
