"""TVM 0.27 bug: FoldConstant raises on ``grad.start_checkpoint`` of a foldable value.

``R.grad.start_checkpoint(lv)`` with ``lv = R.reshape(c, ...)`` of a constant ``c`` is valid
Relax (the op's builder requires a Var argument, and ``lv`` is one; outside the Gradient pass
it is an identity, and the module runs). FoldConstant folds ``lv`` into a constant and then
rebuilds the checkpoint call on it, which the op's own builder rejects: ``TypeError: The
argument of relax.op.grad.start_checkpoint should be a Var.`` FoldConstant should leave the
marker alone (or keep its Var). Found by ``passcheck FoldConstant`` (``pass_does_not_raise``)
once the vocabulary had the gradient markers.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="c0", shape=(2, 3), dtype="float32", const=True),),
    nodes=(Node(op="reshape", args=(0,), attrs=(("shape", (6,)),), shape=(6,), dtype="float32"),
           Node(op="grad.start_checkpoint", args=(1,), attrs=(), shape=(6,), dtype="float32")),
    outputs=(2,),
)


def _module():  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((6,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(R.reshape(relax.const(np.ones((2, 3), "float32"), "float32"), (6,)))
            out = bb.emit_output(R.add(bb.emit(R.grad.start_checkpoint(lv)), x))
        bb.emit_func_output(out)
    return bb.get()


def test_fold_constant_still_raises_on_checkpoint() -> None:
    from tvm import relax

    from passcheck.relax.execution import run_relax

    mod = _module()
    assert relax.analysis.check_well_formed(mod)
    np.testing.assert_array_equal(run_relax(mod, [np.zeros(6, "float32")])[0], np.ones(6))
    with pytest.raises(TypeError, match="start_checkpoint should be a Var"):
        relax.transform.FoldConstant()(mod)


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "pass_does_not_raise", GRAPH) == 1


def test_fold_constant_checkpoint() -> None:
    assert_recognised("FoldConstant", "pass_does_not_raise", GRAPH, "test_fold_constant_checkpoint")
