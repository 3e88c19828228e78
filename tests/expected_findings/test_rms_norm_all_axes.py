"""TVM 0.27 bug: ``rms_norm`` over every axis of its input does not compile.

``R.nn.rms_norm(x, weight, axes=[0, 1])`` on a (2, 3) tensor (or ``axes=[0]`` on a 1-D one),
with ``weight`` shaped like the normalised axes as its documentation and Relax's type rule ask,
type-checks, but the legalized kernel reads a buffer with no indices: ``InternalError: Check
failed: shape.size() == indices.size() (1 vs. 0): Tensor dimension mismatch in read``. Leaving
one axis out works (``axes=[1]``; ``axes=[1, 2]`` of a 3-D tensor). Found by passcheck's op
vocabulary (``semantics_preserved`` raises while compiling the graph).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (2, 3), "float32", False), TensorDecl("p1", (2, 3), "float32", False, 0.5, 1.5)),
    nodes=(Node("rms_norm", (0, 1), (("axes", (0, 1)), ("epsilon", 1e-5)), (2, 3), "float32"),),
    outputs=(2,),
)


def test_rms_norm_all_axes_still_fails() -> None:
    from tvm.relax import op as R

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 3)).astype("float32")
    with pytest.raises(Exception, match="Tensor dimension mismatch"):
        compile_and_run(lambda a, w: R.nn.rms_norm(a, w, axes=[0, 1]), [x, np.ones((2, 3), "float32")])
    with pytest.raises(Exception, match="Tensor dimension mismatch"):
        compile_and_run(lambda a, w: R.nn.rms_norm(a, w, axes=[0]), [x[0], np.ones((3,), "float32")])
    one = compile_and_run(lambda a, w: R.nn.rms_norm(a, w, axes=[1]), [x, np.ones((3,), "float32")])
    want = x / np.sqrt(np.mean(x.astype(np.float64) ** 2, axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(one, want, rtol=1e-5, atol=1e-6)


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", GRAPH) == 1


def test_rms_norm_all_axes() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", GRAPH, "test_rms_norm_all_axes")
