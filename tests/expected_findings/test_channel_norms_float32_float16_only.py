"""TVM 0.27 bug: group_norm and instance_norm type-check in float64 (instance_norm in bfloat16
too) but do not run: TOPI's kernels check "only support float32 and float16 for now" when the
module is built and executed. Relax's type rule accepts these dtypes (it refuses bfloat16
group_norm outright, which the vocabulary therefore does not draw), so a well-typed module fails.
Found by the vocabulary once the norms were drawn in every float dtype (issue 9).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _graph(op: str, dtype: str) -> PipelineBuilds:
    attrs = (("axes", (2,)), ("channel_axis", 1), ("epsilon", 1e-05))
    if op == "group_norm":
        attrs = (*attrs, ("num_groups", 1))
    graph = GraphSpec(
        inputs=(TensorDecl("p0", (2, 2, 3), dtype, False), TensorDecl("p1", (2,), dtype, False, 0.5, 1.5),
                TensorDecl("p2", (2,), dtype, False)),
        nodes=(Node(op, (0, 1, 2), attrs, (2, 2, 3), dtype),),
        outputs=(3,),
    )
    return PipelineBuilds(graph, (Build("default", 0, "generic"),))


CASES = [("group_norm", "float64"), ("instance_norm", "float64"), ("instance_norm", "bfloat16")]


@pytest.mark.parametrize("op,dtype", CASES)
def test_passcheck_reports_it(op: str, dtype: str) -> None:
    assert recheck("pipeline", "every_build_runs", _graph(op, dtype)) == 1


@pytest.mark.parametrize("op,dtype", CASES)
def test_channel_norms_float32_float16_only(op: str, dtype: str) -> None:
    assert_recognised("pipeline", "every_build_runs", _graph(op, dtype), "test_channel_norms_float32_float16_only")
