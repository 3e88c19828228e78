"""TVM 0.27 bug: DataflowUseInplaceCalls raises on ``add(<scalar constant>, x)``.

``R.add(R.const(0.5), lv)`` with ``lv`` a dataflow value of shape ``(n,)`` is valid Relax (it
type-checks, builds and runs). DataflowUseInplaceCalls decides the add can write into its
second operand (``lv`` is dead afterwards) and asks for ``call_tir_inplace`` with in-place index
1, but the call it builds has only one tensor argument (the scalar constant is not counted), so
its own check fails: ``ValueError: In-place index 0 is out of range (must be between -1 and 0,
inclusive, but is 1)``. With the operands the other way round (``add(lv, 0.5)``) it works.
Found by ``passcheck sequence`` (``pass_does_not_raise``), shrunk to this two-op graph.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(1,), dtype="float32", const=False),
            TensorDecl(name="c2", shape=(), dtype="float32", const=True)),
    nodes=(Node(op="add", args=(0, 1), attrs=(), shape=(1,), dtype="float32"),
           Node(op="add", args=(2, 3), attrs=(), shape=(1,), dtype="float32")),
    outputs=(4,),
)
EXAMPLE = PassSequence(graph=GRAPH, steps=(Step(name="DataflowUseInplaceCalls"),))


def _module(scalar_first: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(R.add(x, x))
            c = relax.const(np.float32(0.5))
            out = bb.emit_output(R.add(c, lv) if scalar_first else R.add(lv, c))
        bb.emit_func_output(out)
    return bb.get()


def test_dataflow_use_inplace_calls_still_raises() -> None:
    import tvm
    from tvm import relax

    mod = _module(scalar_first=True)
    assert relax.analysis.check_well_formed(mod)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](np.ones(3, "float32")).numpy(), np.full(3, 2.5))
    with pytest.raises(ValueError, match="In-place index"):
        relax.transform.DataflowUseInplaceCalls()(mod)
    relax.transform.DataflowUseInplaceCalls()(_module(scalar_first=False))  # the other order works


def test_passcheck_reports_it() -> None:
    assert recheck("sequence", "pass_does_not_raise", EXAMPLE) == 1
    assert recheck("DataflowUseInplaceCalls", "pass_does_not_raise", GRAPH) == 1


def test_dataflow_use_inplace_calls_scalar_constant() -> None:
    assert_recognised("sequence", "pass_does_not_raise", EXAMPLE, "test_dataflow_use_inplace_calls_scalar_constant")
    assert_recognised("DataflowUseInplaceCalls", "pass_does_not_raise", GRAPH,
                      "test_dataflow_use_inplace_calls_scalar_constant")
