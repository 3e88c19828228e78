"""TVM 0.27 bug: SplitLayoutRewritePreproc raises ``InternalError: Check failed:
(current_subtree_ == -1) is false: There should be a compute block if there is only one subtree
under the root`` on a PrimFunc it has nothing to do with.

The pass splits the layout-rewrite blocks MetaSchedule's tuning adds (``cpu_weight_prepack``);
a function without one should pass through as it is. TVM's own legalization of ``index_put``
is one opaque block holding parallel loops (no compute block), and the pass's block analysis
fails its internal check on it. Found by ``passcheck sequence`` once sequences draw every
pass of TVM's pipelines in their order (LegalizeOps, AnnotateTIROpPattern,
SplitLayoutRewritePreproc).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("x", (1, 2), "float32", False), TensorDecl("i", (2,), "int64", False, lo=0.0, hi=0.0),
            TensorDecl("j", (2,), "int64", False, lo=0.0, hi=0.0), TensorDecl("v", (2,), "float32", True)),
    nodes=(Node("index_put", (0, 3, 1, 2), (("accumulate", True),), (1, 2), "float32"),),
    outputs=(4,))
SEQUENCE = PassSequence(GRAPH, (Step("AnnotateTIROpPattern"), Step("SplitLayoutRewritePreproc")))


def test_split_layout_rewrite_preproc_fails_on_legalized_index_put() -> None:
    import pytest
    import tvm
    from tvm import relax

    from passcheck.relax.build import build_module

    mod = relax.transform.LegalizeOps()(build_module(GRAPH))
    (name,) = [gv.name_hint for gv, f in mod.functions_items() if isinstance(f, tvm.tirx.PrimFunc)]
    func = mod[name]
    assert "pragma_scope" in func.script()  # one opaque block, no compute block
    with pytest.raises(tvm.error.InternalError, match="There should be a compute block"):
        relax.transform.SplitLayoutRewritePreproc()(tvm.IRModule({name: func}))


def test_passcheck_recognises_it() -> None:
    assert_recognised("sequence", "pass_does_not_raise", SEQUENCE, "test_split_layout_rewrite_preproc_opaque_block")
