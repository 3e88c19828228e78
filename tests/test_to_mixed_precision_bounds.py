"""ToMixedPrecision computes float32 graphs in float16 by design: its semantics are checked
against the float64 reference with bounds derived for float16 (inputs cast, each op rounded in
float16, an element outside float16's range unknown), not float32's. Both false alarms the
2,000-example campaign (seed 2026) showed under float32 bounds are examples here; a planted
1.5% error is still caught."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import plan
from passcheck.core.engine.repro import recheck
from passcheck.core.engine.results import RunConfig
from passcheck.core.outcome import Verdict
from passcheck.core.rounding import UNIT_ROUNDOFF, Approx
from passcheck.core.subject import Options
from passcheck.relax import reference
from passcheck.relax.spec import GraphSpec, Node, TensorDecl, input_arrays

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")

# a float32 constant through batch_flatten: float16's rounding of the constant, 1.1e-4 at 0.66
# (float32's bound allowed 1.6e-7)
CAST_CONSTANT = GraphSpec(
    inputs=(TensorDecl("p0", (6, 13, 8, 8), "float32", False, -10.0, 10.0, "wide", 141),
            TensorDecl("p1", (6, 13, 8, 8), "float32", False, 0.5, 2.0, "uniform", 761),
            TensorDecl("c2", (6, 13, 1, 8), "float32", True, 0.5, 2.0, "wide", 21)),
    nodes=(Node("nn.batch_flatten", (2,), (), (6, 104), "float32"),),
    outputs=(3,), input_seed=867)

# square of 3.8e-4 in float16 is subnormal there: 1.19e-7 for 1.44e-7, within float16's
# absolute underflow error 2^-25, which square's bound lacked
SUBNORMAL_SQUARE = GraphSpec(
    inputs=(TensorDecl("c4", (1,), "float32", True, -0.01, 0.01, "uniform", 253),),
    nodes=(Node("square", (0,), (), (1,), "float32"),), outputs=(1,))

MATMUL = GraphSpec(
    inputs=(TensorDecl("p0", (4, 8), "float32", False, -1.0, 1.0), TensorDecl("p1", (8, 5), "float32", False, -1.0, 1.0)),
    nodes=(Node("matmul", (0, 1), (("out_dtype", None),), (4, 5), "float32"),), outputs=(2,))


def test_the_campaigns_float16_roundings_hold() -> None:
    assert recheck("ToMixedPrecision", "semantics_preserved", CAST_CONSTANT) == 0
    assert recheck("ToMixedPrecision", "semantics_preserved", SUBNORMAL_SQUARE) == 0
    assert recheck("ToMixedPrecision", "semantics_preserved", MATMUL) == 0


def test_float32_bounds_would_have_refused_them() -> None:
    """The same outputs against float32's bounds: the false alarm the derived bound removes."""
    for spec in (CAST_CONSTANT, SUBNORMAL_SQUARE):
        params = input_arrays(spec)
        f16 = reference.evaluate(spec, params, {"float32": "float16"})[0]
        f32 = reference.evaluate(spec, params)[0]
        assert np.all(f16.e >= f32.e) and np.max(f16.e) > 100 * np.max(f32.e)


def test_inputs_are_cast_and_out_of_range_values_unknown() -> None:
    spec = GraphSpec(inputs=(TensorDecl("p0", (3,), "float32", False, -1.0, 1.0),),
                     nodes=(Node("exp", (0,), (), (3,), "float32"),), outputs=(1,))
    x = np.array([0.5, 12.0, 0.0], "float32")  # exp(12) = 162755 > float16's 65504
    (out,) = reference.evaluate(spec, [x], {"float32": "float16"})
    assert np.isinf(out.e[1]) and np.isfinite(out.e[[0, 2]]).all()
    assert out.e[0] >= np.exp(0.5) * 0.5 * UNIT_ROUNDOFF["float16"]  # the input's cast, through exp
    assert out.dtype == "float32" and isinstance(out, Approx)


def test_a_planted_error_a_few_float16_roundings_wide_is_caught() -> None:
    config = RunConfig(subject="ToMixedPrecision", ir="relax", properties=("semantics_preserved",), timeout=300,
                       impl=f"{BUGGY}:to_mixed_precision_scale_off",
                       options=Options(impl=f"{BUGGY}:to_mixed_precision_scale_off"))
    with Evaluator(plan(config)) as evaluate:
        out = evaluate(CAST_CONSTANT).outcomes["semantics_preserved"]
        assert out.verdict == Verdict.VIOLATION and "wrong numbers" in out.message, out
