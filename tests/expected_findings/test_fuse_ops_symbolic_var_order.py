"""TVM 0.27 bug: FuseOps moves a symbolic extent's definition after its use.

``dynamic_strided_slice`` legalizes to a ``call_tir`` to a ``shape_func`` PrimFunc, a
``tensor_to_shape`` and a ``match_cast`` that defines the symbolic extent ``s``, then the slice's
``call_tir`` whose output type is ``R.Tensor((s,))``. When an op before those bindings fuses with
a consumer after them (``negative(y)`` with ``add(slice, negative(y))``), FuseOps emits the
fused call at the consumer's place and the bindings that belong to no group after everything
else: the ``match_cast`` that defines ``s`` now comes after the slice that uses it. The module is
not well-formed ("Var s is not defined") and the VM refuses it ("PrimExpr T.int64(4) * s ... has
not been computed"). FuseOps's dependency graph misses uses that appear only in a ``call_tir``'s
output type. Reported upstream as apache/tvm#20195 (open). The default build pipeline does not
show it (``every_build_runs`` holds on the same graph). Found by ``passcheck pipeline`` (seed 2:
the zero pipeline at opt level 3); ``passcheck FuseOps`` shows it too.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2,), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(4,), dtype="float32", const=False),
            TensorDecl(name="c2", shape=(1,), dtype="int64", const=True, lo=0.0, hi=0.0),
            TensorDecl(name="c3", shape=(1,), dtype="int64", const=True, lo=2.0, hi=2.0),
            TensorDecl(name="c4", shape=(1,), dtype="int64", const=True, lo=1.0, hi=1.0)),
    nodes=(Node(op="negative", args=(0,), attrs=(), shape=(2,), dtype="float32"),
           Node(op="dynamic_strided_slice", args=(1, 2, 3, 4), attrs=(), shape=(2,), dtype="float32"),
           Node(op="add", args=(6, 5), attrs=(), shape=(2,), dtype="float32")),
    outputs=(7,),
)
PIPELINE = PipelineBuilds(graph=GRAPH, builds=(Build(opt_level=1),))


def _fused(first_unrelated: bool):  # noqa: ANN202
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    def c(v: int):  # noqa: ANN202
        return relax.const(np.array([v], "int64"), "int64")

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((4,), "float32"))
    y = relax.Var("y", relax.TensorType((2,), "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            n = bb.emit(R.negative(y)) if first_unrelated else None
            s = bb.match_cast(bb.emit(R.dynamic_strided_slice(x, c(0), c(2), c(1))),
                              relax.TensorType((2,), "float32"))
            out = bb.emit_output(R.add(s, n if first_unrelated else bb.emit(R.negative(y))))
        bb.emit_func_output(out)
    mod = bb.get()
    assert relax.analysis.check_well_formed(mod)
    with tvm.transform.PassContext(opt_level=3):
        mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(mod))
        assert relax.analysis.check_well_formed(mod)
        return relax.transform.FuseOps()(mod)


def test_fuse_ops_still_uses_s_before_defining_it() -> None:
    from tvm import relax

    with pytest.raises(ValueError, match="Var s is not defined"):
        relax.analysis.well_formed(_fused(first_unrelated=True))
    # the negative bound after the slice: FuseOps keeps the order
    assert relax.analysis.check_well_formed(_fused(first_unrelated=False))


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "well_formed", GRAPH) == 1
    assert recheck("pipeline", "semantics_preserved", PIPELINE) == 1
    assert recheck("pipeline", "every_build_runs", PIPELINE) == 0


@pytest.mark.parametrize("prop", ["well_formed", "semantics_preserved"])
def test_fuse_ops_symbolic_var_order(prop: str) -> None:
    assert_recognised("FuseOps", prop, GRAPH, "test_fuse_ops_symbolic_var_order")
    assert_recognised("pipeline", prop, PIPELINE, "test_fuse_ops_symbolic_var_order")
