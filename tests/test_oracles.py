"""Oracles in isolation: symbolic type comparison, tolerance, bitwise equality."""

from __future__ import annotations

import numpy as np
import pytest
from tvm import relax, tirx

from passcheck.core.rounding import Approx
from passcheck.relax.execution import bitwise_equal
from passcheck.relax.tolerance import compare
from passcheck.relax.types import compare_types, dims_equal


def test_symbolic_dims_proved_equal_and_separated() -> None:
    n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")
    assert dims_equal(n * 2, n + n) == (True, None)
    assert dims_equal((n * 4) // 2, n * 2) == (True, None)
    eq, witness = dims_equal(n * 2, n + m)
    assert not eq and witness is not None
    assert witness["n"] * 2 != witness["n"] + witness["m"]  # the assignment really separates them


def test_a_dim_computed_from_float_constants_equals_its_folded_value() -> None:
    # Relax types a float16 arange(1, 2) as (ceil(cast(float32, f16(2) - f16(1))),) and LegalizeOps
    # folds it to (1,): the same type (LegalizeOps, 2,000 independent draws: flagged as a changed
    # signature before the dim was evaluated)
    f16 = tirx.FloatImm("float16", 2.0) - tirx.FloatImm("float16", 1.0)
    length = tirx.Cast("int64", tirx.ceil(tirx.Cast("float32", f16)))
    assert dims_equal(length, tirx.IntImm("int64", 1)) == (True, None)
    assert dims_equal(length, tirx.IntImm("int64", 2))[0] is False
    third = tirx.Cast("int64", tirx.ceil(tirx.Cast("float32", f16) / tirx.FloatImm("float32", 3.0)))
    assert dims_equal(third, tirx.IntImm("int64", 1)) == (True, None)
    before = relax.TensorType((length,), "float16")
    assert compare_types(before, relax.TensorType((1,), "float16"), "return type") is None
    assert compare_types(before, relax.TensorType((2,), "float16"), "return type") is not None


def test_dropped_symbolic_var_in_type_is_reported_with_assignment() -> None:
    n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")
    before = relax.TensorType((n, m), "float32")
    after = relax.TensorType((n, n), "float32")  # m dropped, as in TVM issue #20195
    mm = compare_types(before, after, "return type")
    assert mm is not None and mm.separating is not None
    assert mm.separating["n"] != mm.separating["m"]
    assert compare_types(before, relax.TensorType((n, m), "float32"), "x") is None
    assert compare_types(before, relax.TensorType((n, m), "float16"), "x") is not None


def test_tolerance_accepts_rounding_and_rejects_real_differences() -> None:
    v = np.linspace(-3, 3, 50)
    ref = Approx(v, np.full_like(v, 1e-6))
    got = v.astype(np.float32)
    assert compare(got, ref, "float32") is None
    bad = got.copy()
    bad[7] += 1e-3
    mm = compare(bad, ref, "float32")
    assert mm is not None and mm.index == (7,) and mm.count == 1


def test_nan_in_output_is_a_mismatch_unless_reference_is_not_finite() -> None:
    v = np.ones(4)
    got = np.ones(4, np.float32)
    got[2] = np.nan
    assert compare(got, Approx.exact(v), "float32") is not None
    v2 = v.copy()
    v2[2] = np.nan  # e.g. NaN inputs: relu(NaN) is NaN in NumPy, 0 with LLVM's maxnum
    assert compare(got, Approx.exact(v2), "float32") is None
    assert compare(np.zeros(4, np.float32), Approx.exact(v2), "float32") is not None


def test_shape_mismatch_is_a_mismatch() -> None:
    assert compare(np.ones((2, 3), np.float32), Approx.exact(np.ones((3, 2))), "float32") is not None


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_bitwise_equal(dtype: str) -> None:
    a = np.array([1.0, -0.0, np.nan], dtype)
    assert bitwise_equal(a, a.copy())
    b = a.copy()
    b[1] = 0.0  # -0.0 == 0.0 numerically, but not bitwise
    assert not bitwise_equal(a, b)
    assert bitwise_equal(np.float32(3).reshape(()), np.float32(3).reshape(()))


@pytest.mark.parametrize("axes", [(1, 2), (-3, 3), (0, 2)])
def test_layer_norm_reference_over_non_trailing_axes(axes: tuple[int, ...]) -> None:
    """Relax indexes gamma/beta by the normalised axes wherever they are: the reference must too
    (it used to broadcast them against the trailing axes and fail on such a graph)."""
    from passcheck.relax.build import build_module
    from passcheck.relax.execution import run_relax
    from passcheck.relax.reference import evaluate
    from passcheck.relax.spec import GraphSpec, Node, TensorDecl, input_arrays

    shape = (2, 3, 5, 4)
    norm = tuple(shape[a] for a in sorted(a % 4 for a in axes))
    spec = GraphSpec(
        inputs=(TensorDecl("x", shape, "float32", False), TensorDecl("g", norm, "float32", False, 0.5, 1.5, seed=1),
                TensorDecl("b", norm, "float32", False, seed=2)),
        nodes=(Node("layer_norm", (0, 1, 2), (("axes", axes), ("epsilon", 1e-5)), shape, "float32"),),
        outputs=(3,),
    )
    params = input_arrays(spec)
    (got,) = run_relax(build_module(spec), params)
    (want,) = evaluate(spec, params)
    assert compare(got, want, "float32") is None
    bad = got.copy()
    bad.flat[7] += 1e-2  # and the bound is tight enough to see a real error
    assert compare(bad, want, "float32") is not None
