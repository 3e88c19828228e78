"""The float64 reference's error bounds: unknown is inf, never NaN (a NaN bound compares false,
and a comparison of it would count as decided)."""

from __future__ import annotations

import numpy as np

from passcheck.relax import reference
from passcheck.relax.spec import GraphSpec, Node, TensorDecl, input_arrays


def test_an_exact_zero_times_an_unknown_operand_is_unknown_not_decided() -> None:
    """``0.01 <= 0.01`` of two rounded products is undecided (unknown: e = inf), and an exact 0
    times it gave the bound 0 * inf = NaN. NaN compares false, so the next comparison counted
    as decided and its element was checked exactly; an implementation where the undecided weight
    came out NaN or Inf computes NaN there, and was flagged. Unknown stays unknown."""
    spec = GraphSpec(
        inputs=(TensorDecl("p0", (1, 1, 2), "float32", False, 0.0, 0.0),
                TensorDecl("c1", (1, 1, 1), "float32", True, 0.1, 0.1)),
        nodes=(Node("multiply", (1, 1), (), (1, 1, 1), "float32"),
               Node("less_equal", (2, 2), (), (1, 1, 1), "bool"),
               Node("astype", (3,), (("dtype", "float32"),), (1, 1, 1), "float32"),
               Node("conv1d_transpose", (0, 4),
                    (("dilation", (1,)), ("groups", 1), ("output_padding", (0,)), ("padding", (0, 0)),
                     ("strides", (1,))), (1, 1, 2), "float32"),
               Node("less_equal", (5, 0), (), (1, 1, 2), "bool")),
        outputs=(4, 5, 6))
    weight, conv, le = reference.evaluate(spec, input_arrays(spec))
    assert np.all(weight.e == np.inf)
    assert np.array_equal(conv.v, [[[0.0, 0.0]]]) and np.all(conv.e == np.inf)
    assert np.all(le.e == np.inf)
