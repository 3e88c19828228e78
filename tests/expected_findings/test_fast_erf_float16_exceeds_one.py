"""TVM 0.27 bug: FastMathTransform's float16 erf returns up to 1.041, where erf never exceeds 1.

FastMathTransform replaces ``erf`` by TOPI's ``fast_erf``. For float16 that is a polynomial
evaluated in float16 on the input clamped to [-4, 4]: at the clamp (every |x| >= 4) it gives
1.041, and 1.01 at x = 3, against erf's 1.0 (float16's own erf: 1.0; float32's fast_erf: 1.0 to
7 digits). A 4% error where the value saturates is not an approximation's rounding: the
polynomial's coefficients, fitted for float32, do not survive float16. Found by its campaign
(seed 36: 17 of 500 examples, erf and gelu in float16).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1,), dtype="float16", const=False, lo=-100.0, hi=100.0),),
    nodes=(Node(op="erf", args=(0,), attrs=(), shape=(1,), dtype="float16"),),
    outputs=(1,),
)


def test_fast_erf_float16_still_exceeds_one() -> None:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    def erf(dtype: str, fast: bool) -> np.ndarray:
        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TensorType((3,), dtype))
        with bb.function("main", [x]):
            with bb.dataflow():
                out = bb.emit_output(R.erf(x))
            bb.emit_func_output(out)
        mod = relax.transform.FastMathTransform()(bb.get()) if fast else bb.get()
        return run_relax(mod, [np.array([3.0, 4.0, 27.39], dtype)])[0]

    assert np.all(erf("float16", False) <= 1.0)
    assert np.all(np.abs(erf("float32", True) - 1.0) < 1e-4)
    assert erf("float16", True).max() > 1.03


def test_passcheck_reports_it() -> None:
    assert recheck("FastMathTransform", "semantics_preserved", GRAPH) == 1


def test_fast_erf_float16_exceeds_one() -> None:
    assert_recognised("FastMathTransform", "semantics_preserved", GRAPH, "test_fast_erf_float16_exceeds_one")
