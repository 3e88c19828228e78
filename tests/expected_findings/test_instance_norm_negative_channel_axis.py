"""TVM 0.27 bug: ``instance_norm`` with a negative ``channel_axis`` does not compile.

``R.nn.instance_norm(x, gamma, beta, channel_axis=-2, axes=[2])`` on a (2, 3, 4) tensor
type-checks (Relax normalises the axis for its type rule), but LegalizeOps passes the axis
unnormalised to TOPI: ``IndexError: Index -2 out of bounds 3``. ``channel_axis=1`` (the same
axis) works. Found by passcheck's op vocabulary (``semantics_preserved`` raises while compiling).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (2, 3, 4), "float32", False), TensorDecl("p1", (3,), "float32", False),
            TensorDecl("p2", (3,), "float32", False)),
    nodes=(Node("instance_norm", (0, 1, 2), (("axes", (2,)), ("channel_axis", -2), ("epsilon", 1e-5)),
                (2, 3, 4), "float32"),),
    outputs=(3,),
)


def test_instance_norm_negative_channel_axis_still_fails() -> None:
    from tvm.relax import op as R

    rng = np.random.default_rng(0)
    args = [rng.uniform(-1, 1, (2, 3, 4)).astype("float32"), np.ones(3, "float32"), np.zeros(3, "float32")]
    with pytest.raises(Exception, match="Index -2 out of bounds"):
        compile_and_run(lambda x, g, b: R.nn.instance_norm(x, g, b, channel_axis=-2, axes=[2]), args)
    got = compile_and_run(lambda x, g, b: R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2]), args)
    x = args[0].astype(np.float64)
    want = (x - x.mean(axis=2, keepdims=True)) / np.sqrt(x.var(axis=2, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", GRAPH) == 1


def test_instance_norm_negative_channel_axis() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", GRAPH, "test_instance_norm_negative_channel_axis")
