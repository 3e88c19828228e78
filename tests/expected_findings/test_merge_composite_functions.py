"""TVM 0.27 bugs: MergeCompositeFunctions raises on modules FuseOpsByPattern leaves with composite
functions, when ``main`` also calls something that is not a composite function.

* an external function (``R.call_dps_packed``): ``InternalError: Do not have a default for
  relax.expr.ExternFunc`` (its graph partitioner visits the callee);
* another Relax function (a private helper): ``InternalError: ... Variable b could not be found
  in any group`` (the helper's values are in no group).

Without the extra call the same module merges. Found by ``passcheck MergeCompositeFunctions``
(the composite functions come from a pattern table drawn from the graph's ops).

* a ``match_cast`` binding in ``main`` (after a data-dependent op, as ``dynamic_strided_slice``
  needs), composite functions or not: ``TypeError: Invalid type: relax.expr.MatchCast`` (its
  partitioner has no case for the binding; seed 20670: 11 of 500 examples).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(inputs=(TensorDecl("p0", (4,), "float32", False),),
                  nodes=(Node("add", (0, 0), (), (4,), "float32"), Node("exp", (1,), (), (4,), "float32")),
                  outputs=(2,), extra=(("patterns", (("compA", ("add",)),)),))
PACKED = ProgramSpec(GRAPH, regions=(Region(1, 2, "packed"),))
HELPER = ProgramSpec(GRAPH, regions=(Region(1, 2, "function", "helper"),))

# a data-dependent op's result, cast to its static shape
SLICE = ProgramSpec(GraphSpec(
    inputs=(TensorDecl("p1", (4,), "float32", False), TensorDecl("c2", (1,), "int64", True, 0.0, 0.0),
            TensorDecl("c3", (1,), "int64", True, 2.0, 2.0), TensorDecl("c4", (1,), "int64", True, 1.0, 1.0)),
    nodes=(Node("dynamic_strided_slice", (0, 1, 2, 3), (), (2,), "float32"),),
    outputs=(4,), extra=(("patterns", (("compA", ("exp",)),)),)))


def _composites(prog: ProgramSpec):  # noqa: ANN202
    from passcheck.relax.pattern_tables import fuse_ops_by_pattern
    from passcheck.relax.program.emit import build_program

    return fuse_ops_by_pattern(GRAPH.extras["patterns"])(build_program(prog))


@pytest.mark.parametrize("prog, message", [(PACKED, "Do not have a default for relax.expr.ExternFunc"),
                                           (HELPER, "could not be found in any group")])
def test_merge_composite_functions_raises(prog: ProgramSpec, message: str) -> None:
    import tvm
    from tvm import relax

    with pytest.raises(tvm.error.InternalError, match=message):
        relax.transform.MergeCompositeFunctions()(_composites(prog))
    merged = relax.transform.MergeCompositeFunctions()(_composites(ProgramSpec(GRAPH)))  # no other call
    assert "Codegen" in merged.script()


def test_passcheck_recognises_them() -> None:
    assert_recognised("MergeCompositeFunctions", "pass_does_not_raise", PACKED,
                      "test_merge_composite_functions_extern_call")
    assert_recognised("MergeCompositeFunctions", "pass_does_not_raise", HELPER,
                      "test_merge_composite_functions_helper_call")


def test_merge_composite_functions_raises_on_a_match_cast() -> None:
    from passcheck.core.engine.repro import recheck

    assert "R.match_cast(" in _composites(SLICE).script()
    with pytest.raises(TypeError, match="Invalid type: relax.expr.MatchCast"):
        __import__("tvm").relax.transform.MergeCompositeFunctions()(_composites(SLICE))
    assert recheck("MergeCompositeFunctions", "pass_does_not_raise", SLICE) == 1
    assert_recognised("MergeCompositeFunctions", "pass_does_not_raise", SLICE,
                      "test_merge_composite_functions_match_cast")
