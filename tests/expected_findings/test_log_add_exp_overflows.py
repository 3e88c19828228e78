"""TVM 0.27 bug: ``log_add_exp`` overflows to inf where its value is finite.

TOPI computes ``log_add_exp(a, b)`` as ``log(exp(a) + exp(b))``: ``exp`` overflows for
arguments above ~88.7 in float32 (~11.1 in float16) and the result is ``inf``, although
``log_add_exp(100, 100) = 100.69`` is an ordinary float32. The op exists to be the stable form
(``max(a, b) + log1p(exp(-|a - b|))``, as NumPy's ``logaddexp`` and PyTorch's ``logaddexp``
compute it); its documentation gives the formula but no range restriction. Arguments below
~-103 underflow the same way, to ``-inf``. Found while declaring the op (issue 9): every
property that compares with the float64 reference reports it, in every pass, as soon as an
argument is large; the op is kept drawable with the full range of values.
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(4,), dtype="float32", const=False, lo=90.0, hi=100.0),
            TensorDecl(name="p1", shape=(4,), dtype="float32", const=False, lo=-1.0, hi=1.0)),
    nodes=(Node(op="log_add_exp", args=(0, 1), attrs=(), shape=(4,), dtype="float32"),),
    outputs=(2,),
)


def _log_add_exp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(a.shape, str(a.dtype)))
    y = relax.Var("y", relax.TensorType(b.shape, str(b.dtype)))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            out = bb.emit_output(R.log_add_exp(x, y))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(tvm.compile(bb.get(), target="llvm"), tvm.cpu())
    return vm["main"](a, b).numpy()


def test_log_add_exp_still_overflows() -> None:
    for dtype, big in (("float32", 100.0), ("float16", 12.0)):
        a = np.full(3, big, dtype=dtype)
        got = _log_add_exp(a, a)
        assert np.all(np.isinf(got)), (dtype, got)
        assert np.isfinite(np.logaddexp(a, a).astype(dtype)).all()  # the value is representable


def test_small_arguments_are_right() -> None:
    a = np.array([1.0, -2.0, 3.0], dtype="float32")
    b = np.array([0.5, -2.0, -3.0], dtype="float32")
    np.testing.assert_allclose(_log_add_exp(a, b), np.logaddexp(a, b), rtol=1e-6)


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("FuseOps", "semantics_preserved", EXAMPLE, "test_log_add_exp_overflows")


# the inf meeting another: inf - inf is NaN where the value is 0 (LegalizeOps seed 23497: a matmul
# over weights of both signs, 1 of 500)
INF_MINUS_INF = GraphSpec(
    inputs=EXAMPLE.inputs,
    nodes=EXAMPLE.nodes + (Node(op="subtract", args=(2, 2), attrs=(), shape=(4,), dtype="float32"),),
    outputs=(3,),
)


def test_the_inf_becomes_nan_downstream() -> None:
    a = np.full(3, 100.0, dtype="float32")
    got = _log_add_exp(a, a)
    with np.errstate(invalid="ignore"):
        assert np.isnan(got - got).all()
    assert recheck("LegalizeOps", "semantics_preserved", INF_MINUS_INF) == 1
    message = assert_recognised("LegalizeOps", "semantics_preserved", INF_MINUS_INF, "test_log_add_exp_overflows")
    assert "got nan" in message


# the sum of 66 values up to 100, through log_add_exp: StaticPlanBlockMemory's poisoned-storage run
# meets it too (seed 2612), and says so in its own words
PLANNED = ProgramSpec(GraphSpec(
    inputs=(TensorDecl("p1", (11, 6), "float32", False, lo=0.01, hi=100.0), TensorDecl("p2", (), "float32", False)),
    nodes=(Node("sum", (0,), (("axis", None), ("keepdims", False)), (), "float32"),
           Node("log_add_exp", (2, 1), (), (), "float32"),
           Node("abs", (3,), (), (), "float32")),
    outputs=(2, 4)))


def test_the_poisoned_plan_meets_it() -> None:
    message = assert_recognised("StaticPlanBlockMemory", "planned_storage_poisoned", PLANNED,
                                "test_log_add_exp_overflows")
    assert "planned storage(s) poisoned before use" in message and "got inf" in message


# main and main after LiftTransformParams, each with its inf where the other is finite: the inputs
# reach exp's range in p0 + exp(c2) (LiftTransformParams, seed 4242)
LIFTED = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", (4, 7), "float32", False, -100.0, 100.0),
                      TensorDecl("c1", (4, 7), "float32", False, -100.0, 100.0),
                      TensorDecl("c2", (4, 7), "float32", True), TensorDecl("p3", (4, 7), "float32", False)),
              nodes=(Node("exp", (2,), (), (4, 7), "float32"), Node("add", (0, 4), (), (4, 7), "float32"),
                     Node("log_add_exp", (5, 3), (), (4, 7), "float32")),
              outputs=(6,)),
    num_input=0, weights=(1,),
)


def test_lifted_params_meet_it() -> None:
    message = assert_recognised("LiftTransformParams", "lifted_params_agree", LIFTED, "test_log_add_exp_overflows")
    assert "differs from main(inputs, weights)" in message and "got inf" in message
