"""Structural simplification candidates are valid, smaller graphs."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from passcheck.relax.build import build_module
from passcheck.relax.graphs import GraphBias, relax_graphs
from passcheck.relax.shrink import simplifications


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(relax_graphs(GraphBias(min_nodes=2, max_nodes=6)))
def test_candidates_are_smaller_and_build(spec) -> None:  # noqa: ANN001
    from tvm import relax

    for cand in list(simplifications(spec))[:6]:
        assert len(cand.nodes) < len(spec.nodes) or len(cand.outputs) < len(spec.outputs)
        assert all(a < len(cand.inputs) + i for i, n in enumerate(cand.nodes) for a in n.args)
        assert cand.outputs and all(o < cand.num_values for o in cand.outputs)
        assert relax.analysis.check_well_formed(build_module(cand))
