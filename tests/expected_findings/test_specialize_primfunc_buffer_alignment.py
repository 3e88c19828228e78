"""TVM 0.27 bug: SpecializePrimFuncBasedOnCallSite raises on a PrimFunc whose buffer declares an
alignment other than the default.

LegalizeOps lowers ``median`` (and the ops built on TOPI's argsort) to a PrimFunc whose input
buffer is declared ``align=8`` for the external sort. SpecializePrimFuncBasedOnCallSite builds the
call site's buffer with the default alignment (64) and requires the two to be equal: ``Check
failed: specific_buf->data_alignment == buf_to_specialize->data_alignment (64 vs. 8)``. A
PrimFunc TVM itself made, on a valid module: the pass should keep the declared alignment. Found
by its campaign (seed 20670: 8 of 500 examples).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(3, 2), dtype="float32", const=False),),
    nodes=(Node(op="median", args=(0,), attrs=(("axis", 0), ("keepdims", False)), shape=(2,), dtype="float32"),),
    outputs=(1,),
)


def test_specialize_still_refuses_the_declared_alignment() -> None:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3, 2), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.median(x, axis=0))
        bb.emit_func_output(out)
    mod = relax.transform.LegalizeOps()(bb.get())
    assert "align=8" in mod.script()
    with tvm.target.Target("llvm"), pytest.raises(ValueError, match="data_alignment mismatched"):
        relax.transform.SpecializePrimFuncBasedOnCallSite()(mod)


def test_passcheck_reports_it() -> None:
    assert recheck("SpecializePrimFuncBasedOnCallSite", "pass_does_not_raise", GRAPH) == 1


def test_specialize_primfunc_buffer_alignment() -> None:
    assert_recognised("SpecializePrimFuncBasedOnCallSite", "pass_does_not_raise", GRAPH,
                      "test_specialize_primfunc_buffer_alignment")
