"""TVM 0.27 bug: FoldConstant on a constant ``dynamic_strided_slice`` leaves an ill-formed module.

FoldConstant folds a call whose arguments are all constants by legalizing and evaluating it.
``dynamic_strided_slice``'s legalization computes the output extent at run time: it emits a
``call_tir`` to a ``shape_func`` PrimFunc, a ``tensor_to_shape`` and a ``match_cast``, then the
slice itself with the matched (symbolic) extent. FoldConstant cannot evaluate a ``call_tir``
whose output shape is symbolic, gives up — and keeps the emitted bindings in ``main`` without
adding the ``shape_func`` PrimFunc to the module. The result references an undefined
``GlobalVar``: it is not well-formed, does not build ("There is no definition of
I.GlobalVar("shape_func")"), a second FoldConstant changes it again, and the constant slice stays.
Every constant slice meets it, empty or not (TVM's own FoldConstant tests never slice with
tensor-valued bounds). Found by ``passcheck FoldConstant`` (seed 7).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="c0", shape=(6,), dtype="float32", const=True),
            TensorDecl(name="c1", shape=(1,), dtype="int64", const=True, lo=0.0, hi=1.0, seed=1),
            TensorDecl(name="c2", shape=(1,), dtype="int64", const=True, lo=4.0, hi=5.0, seed=2),
            TensorDecl(name="c3", shape=(1,), dtype="int64", const=True, lo=1.0, hi=2.0, seed=3)),
    nodes=(Node(op="dynamic_strided_slice", args=(0, 1, 2, 3), attrs=(), shape=(4,), dtype="float32"),),
    outputs=(4,),
)


def _folded(begin: int, end: int, stride: int):  # noqa: ANN202
    from tvm import relax

    def c(v: int):  # noqa: ANN202
        return relax.const(np.array([v], "int64"), "int64")

    bb = relax.BlockBuilder()
    with bb.function("main", []):
        with bb.dataflow():
            x = relax.const(np.arange(6, dtype="float32"), "float32")
            out = bb.emit_output(relax.op.dynamic_strided_slice(x, c(begin), c(end), c(stride)))
        bb.emit_func_output(out)
    return relax.transform.FoldConstant()(bb.get())


@pytest.mark.parametrize("bounds", [(0, 4, 1), (1, 5, 2), (0, 0, 2)])
def test_fold_constant_still_leaves_an_undefined_shape_func(bounds: tuple[int, int, int]) -> None:
    from tvm import relax

    mod = _folded(*bounds)
    assert "shape_func" in mod.script()
    assert "shape_func" not in [g.name_hint for g in mod.functions]
    with pytest.raises(ValueError, match="shape_func"):
        relax.analysis.well_formed(mod)


@pytest.mark.parametrize("prop", ["well_formed", "semantics_preserved", "fold_is_idempotent"])
def test_passcheck_reports_it(prop: str) -> None:
    assert recheck("FoldConstant", prop, GRAPH) == 1


@pytest.mark.parametrize("prop", ["well_formed", "semantics_preserved", "fold_is_idempotent",
                                  "no_constant_only_calls"])
def test_registered_as_a_known_bug(prop: str) -> None:
    assert_recognised("FoldConstant", prop, GRAPH, "test_fold_constant_dynamic_strided_slice")
