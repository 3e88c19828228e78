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


def test_a_min_over_a_group_holding_nan_is_unknown_to_what_reads_it() -> None:
    """``isnan(min(c))`` for a constant ``c = [0.35, nan, -0.18]`` (FoldConstant 2,000 at seed 0):
    NumPy's min is NaN, TVM's select-based min gives an element depending on where the NaN sits,
    unfolded and folded alike (min([1, nan, 2]) is 2). The reference said isnan is decided True
    and flagged the stock pass; the value is unknown, so is what reads it."""
    spec = GraphSpec(
        inputs=(TensorDecl("c1", (3,), "float32", True, -1.0, 1.0, "special", 198),
                TensorDecl("p1", (3,), "float32", False)),
        nodes=(Node("min", (0,), (("axis", None), ("keepdims", False)), (), "float32"),
               Node("isnan", (2,), (), (), "bool"),
               Node("maximum", (0, 1), (), (3,), "float32"),
               Node("isnan", (4,), (), (3,), "bool")),
        outputs=(3, 5))
    from passcheck.relax.spec import const_array

    nan_at = np.isnan(const_array(spec.inputs[0]))
    assert nan_at.any() and not nan_at.all()
    is_nan, is_nan_elementwise = reference.evaluate(spec, input_arrays(spec))
    assert np.all(is_nan.e == np.inf)
    assert np.all(is_nan_elementwise.e[nan_at] == np.inf) and np.all(is_nan_elementwise.e[~nan_at] == 0)


def test_an_int64_part_of_a_split_keeps_every_bit() -> None:
    """A split's parts went through float64: an int64 near 2^62 lost its low bits, and FuseOps
    (2,000 examples, seed 0) was flagged 192 off on ``split(p0)[2] - p2``."""
    spec = GraphSpec(
        inputs=(TensorDecl("p0", (3, 3), "int64", False, -9.223372036854776e18, 9.223372036854776e18, seed=1509),
                TensorDecl("p2", (), "int64", False, -100.0, 100.0, seed=1789)),
        nodes=(Node("split", (0,), (("axis", 1), ("sections", 3)), (), "int64", ((3, 1), (3, 1), (3, 1))),
               Node("tuple_get_item", (2,), (("index", 2),), (3, 1), "int64"),
               Node("subtract", (3, 1), (), (3, 1), "int64")),
        outputs=(4,), input_seed=65535)
    p0, p2 = input_arrays(spec)
    assert np.abs(p0).max() > 2**53
    (got,) = reference.evaluate(spec, [p0, p2])
    assert np.array_equal(np.asarray(got.v, np.int64), p0[:, 2:3] - p2)
