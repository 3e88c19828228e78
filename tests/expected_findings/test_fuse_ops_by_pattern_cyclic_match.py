"""TVM 0.27 bug: FuseOpsByPattern raises on a match whose fusion would make a cycle.

The pattern ``subtract(exp(x), _)`` matches ``subtract(lv, square(lv))`` with ``lv = exp(x)``: the
square reads the exp and the subtract reads the square, so exp and subtract cannot be one group.
Instead of leaving that match unfused (as FuseOps does with such groups), FuseOpsByPattern stops
with ``InternalError: A cyclic dependency detected between the groups``. A valid module and a
valid pattern table: MergeCompositeFunctions, which runs after it, never gets a module (found by
its campaign, seed 20670: 9 of 500 examples).

Where the cycle is longer -- ``add(relu(x), subtract(abs(x), multiply(relu(x), x)))``, relu then add
matched -- it is not detected: the pass returns a module whose multiply reads the relu's var, now
bound inside the composite called after it (not well-formed: used before it is defined), and
MergeCompositeFunctions fails on it, ``Check failed: (memo_.count(...)) is false`` (its campaign,
seed 1207: 5 of 2,000 examples).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2,), dtype="float32", const=False),),
    nodes=(Node(op="exp", args=(0,), attrs=(), shape=(2,), dtype="float32"),
           Node(op="square", args=(1,), attrs=(), shape=(2,), dtype="float32"),
           Node(op="subtract", args=(1, 2), attrs=(), shape=(2,), dtype="float32")),
    outputs=(3,),
    extra=(("patterns", (("compA", ("exp", "subtract")),)),),
))


def test_fuse_ops_by_pattern_still_raises_on_the_cycle() -> None:
    import tvm
    from tvm import relax
    from tvm.relax import op as R
    from tvm.relax.dpl import is_op, wildcard

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            e = bb.emit(R.exp(x))
            out = bb.emit_output(R.subtract(e, bb.emit(R.square(e))))
        bb.emit_func_output(out)
    pattern = is_op("relax.subtract")(is_op("relax.exp")(wildcard()), wildcard())
    with pytest.raises(tvm.error.InternalError, match="cyclic dependency"):
        relax.transform.FuseOpsByPattern([("compA.exp_subtract", pattern)])(bb.get())


def test_passcheck_reports_it() -> None:
    assert recheck("MergeCompositeFunctions", "pass_does_not_raise", EXAMPLE) == 1


def test_fuse_ops_by_pattern_cyclic_match() -> None:
    assert_recognised("MergeCompositeFunctions", "pass_does_not_raise", EXAMPLE, "test_fuse_ops_by_pattern_cyclic_match")


LONGER = ProgramSpec(GraphSpec(
    inputs=(TensorDecl("p0", (2,), "float32", False),),
    nodes=(Node("abs", (0,), (), (2,), "float32"), Node("relu", (0,), (), (2,), "float32"),
           Node("multiply", (2, 0), (), (2,), "float32"), Node("subtract", (1, 3), (), (2,), "float32"),
           Node("negative", (2,), (), (2,), "float32"), Node("add", (2, 4), (), (2,), "float32")),
    outputs=(5, 6),
    extra=(("patterns", (("compB", ("relu", "add")),)),),
))


def test_a_longer_cycle_is_fused_into_an_ill_formed_module() -> None:
    from tvm import relax
    from tvm.relax import op as R
    from tvm.relax.dpl import is_op, wildcard

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            r = bb.emit(R.nn.relu(x))
            d = bb.emit(R.subtract(bb.emit(R.abs(x)), bb.emit(R.multiply(r, x))))
            out = bb.emit_output(relax.Tuple([bb.emit(R.negative(r)), bb.emit(R.add(r, d))]))
        bb.emit_func_output(out)
    mod = bb.get()
    assert relax.analysis.check_well_formed(mod)
    pattern = is_op("relax.add")(is_op("relax.nn.relu")(wildcard()), wildcard())
    fused = relax.transform.FuseOpsByPattern([("compB.relu_add", pattern)], bind_constants=False)(mod)
    assert "fused_relax_nn_relu_relax_add" in fused.script()
    assert not relax.analysis.check_well_formed(fused)
    message = assert_recognised("MergeCompositeFunctions", "pass_does_not_raise", LONGER,
                                "test_fuse_ops_by_pattern_cyclic_match")
    assert "memo_.count" in message
