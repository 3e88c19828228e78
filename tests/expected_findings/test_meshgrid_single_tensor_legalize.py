"""TVM 0.27 bug: LegalizeOps turns ``meshgrid`` of one tensor into a tensor, not a 1-tuple.

``R.meshgrid([x])`` is typed ``R.Tuple(R.Tensor((3,)))`` (as NumPy's ``np.meshgrid(x)`` returns a
list of one array), and its part is read with ``TupleGetItem``. LegalizeOps replaces the call
by a ``call_tir`` returning a plain tensor, so the ``TupleGetItem`` no longer type-checks:
``InternalError: The type of Tuple must be TupleType, but expression lv has type R.Tensor``.
With two tensors it works. Found by the vocabulary's meshgrid (``passcheck pipeline``:
``every_build_runs``; FoldConstant raises on it when the tensor is a constant). When a helper
returns the meshgrid, LegalizeOps passes (nothing in the helper reads the tuple) and retypes the
helper's result; the caller's ``lv[0]`` then fails in the VM: ``vm.builtin.tuple_getitem``
expected ``Array<Any>`` but got ``ffi.Tensor`` (LegalizeOps campaign, seed 25925).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(3,), dtype="float32", const=False),),
    nodes=(Node(op="meshgrid", args=(0,), attrs=(("indexing", "ij"),), shape=(), dtype="float32", parts=((3,),)),
           Node(op="tuple_get_item", args=(1,), attrs=(("index", 0),), shape=(3,), dtype="float32")),
    outputs=(2,),
)
EXAMPLE = PipelineBuilds(GRAPH, (Build("default", 0, "generic"),))
# FoldConstant legalizes only what it can fold: a constant operand
CONST_GRAPH = GraphSpec(inputs=(TensorDecl(name="c0", shape=(3,), dtype="float32", const=True),),
                        nodes=GRAPH.nodes, outputs=GRAPH.outputs)
HELPER = ProgramSpec(
    GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),),
              nodes=(Node(op="meshgrid", args=(0,), attrs=(("indexing", "ij"),), shape=(), dtype="float32",
                          parts=((1,),)),
                     Node(op="tuple_get_item", args=(1,), attrs=(("index", 0),), shape=(1,), dtype="float32")),
              outputs=(2,)),
    regions=(Region(start=0, stop=1, form="function", name="helper", options=(("private", False),)),))


def _module(n: int):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(R.meshgrid([x] * n))[0])
        bb.emit_func_output(out)
    return bb.get()


def test_meshgrid_single_tensor_still_fails_to_legalize() -> None:
    import tvm
    from tvm import relax

    assert relax.analysis.check_well_formed(_module(1))
    with pytest.raises(tvm.error.InternalError, match="must be TupleType"):
        relax.transform.LegalizeOps()(_module(1))
    relax.transform.LegalizeOps()(_module(2))


def test_passcheck_reports_it() -> None:
    assert recheck("pipeline", "every_build_runs", EXAMPLE) == 1
    assert recheck("FoldConstant", "pass_does_not_raise", CONST_GRAPH) == 1
    assert recheck("LegalizeOps", "semantics_preserved", HELPER) == 1


def test_meshgrid_single_tensor_legalize() -> None:
    assert_recognised("pipeline", "every_build_runs", EXAMPLE, "test_meshgrid_single_tensor_legalize")
    assert_recognised("FoldConstant", "pass_does_not_raise", CONST_GRAPH, "test_meshgrid_single_tensor_legalize")
    assert_recognised("LegalizeOps", "semantics_preserved", HELPER, "test_meshgrid_single_tensor_legalize")


# the 1-tuple passed whole to a helper that reads its field: the helper's parameter is typed as the
# tuple, the call is handed the tensor (NormalizeGlobalVar's campaign, seed 23497)
PASSED = ProgramSpec(HELPER.graph, regions=(Region(start=1, stop=2, form="function", name="helper",
                                                   options=(("private", False),)),))


def test_a_helper_given_the_tuple() -> None:
    assert_recognised("NormalizeGlobalVar", "semantics_preserved", PASSED, "test_meshgrid_single_tensor_legalize")


# its 1-tuple handed to a helper of symbolic shape: the VM checks the parameter and finds a
# tensor ("expect a Tuple but get ffi.Tensor"; NormalizeGlobalVar, seed 12305)
SYMBOLIC_HELPERS = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", ("n",), "float32", False),),
              nodes=(Node("meshgrid", (0,), (("indexing", "ij"),), (), "float32", parts=(("n",),)),
                     Node("tuple_get_item", (1,), (("index", 0),), ("n",), "float32")),
              outputs=(2,), sym_sizes=(("n", 1),)),
    regions=(Region(0, 1, "function", "helper", options=(("private", False),)),
             Region(1, 2, "function", "helper", options=(("private", False),))))


def test_through_helpers_of_symbolic_shape() -> None:
    assert_recognised("NormalizeGlobalVar", "semantics_preserved", SYMBOLIC_HELPERS, "test_meshgrid_single_tensor_legalize")
