"""TVM 0.27 bug: LiftTransformParams drops an output computed from the weights alone.

``main(x, w)`` with ``num_input=1`` returning ``R.abs(w)``: the value depends on no input, so
LiftTransformParams moves its computation into ``main_transform_params``, but that function
returns an empty tuple and ``main`` keeps returning ``gv`` with its binding gone: the output
module is ill-formed (``Var gv is not defined``), and tvm.compile of it fails. With the output
depending on an input too (``x + abs(w)``), ``abs(w)`` is lifted and passed back correctly.
Found by LiftTransformParams' campaign (seed 36: 66 of 150 examples, wherever an output reads
only weights); LazyTransformParams, which lifts first, fails on the same examples.
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),
                      TensorDecl(name="c1", shape=(1,), dtype="float32", const=False)),
              nodes=(Node(op="abs", args=(1,), attrs=(), shape=(1,), dtype="float32"),),
              outputs=(2,)),
    num_input=1, weights=(1,),
)


def _module(uses_input: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1,), "float32"))
    w = relax.Var("w", relax.TensorType((1,), "float32"))
    with bb.function("main", [x, w], attrs={"num_input": 1}):
        with bb.dataflow():
            a = bb.emit(R.abs(w))
            out = bb.emit_output(R.add(x, a) if uses_input else a)
        bb.emit_func_output(out)
    return bb.get()


def test_lift_transform_params_still_drops_the_output() -> None:
    from tvm import relax

    assert relax.analysis.check_well_formed(_module(False))
    assert not relax.analysis.check_well_formed(relax.transform.LiftTransformParams()(_module(False)))
    assert relax.analysis.check_well_formed(relax.transform.LiftTransformParams()(_module(True)))


def test_passcheck_reports_it() -> None:
    assert recheck("LiftTransformParams", "well_formed", EXAMPLE) == 1


def test_lift_transform_params_weights_only_output() -> None:
    assert_recognised("LiftTransformParams", "well_formed", EXAMPLE, "test_lift_transform_params_weights_only_output")
    assert_recognised("LiftTransformParams", "semantics_preserved", EXAMPLE,
                      "test_lift_transform_params_weights_only_output")
