"""Shape edges the Relax generator must reach: shape variables in any position (several, a name
repeated), bound at run time to 0, 1 and primes; zero-size dims."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings

from passcheck.relax.graphs import SYM_SIZES, GraphBias, relax_graphs
from passcheck.relax.spec import GraphSpec


def _draw(bias: GraphBias, n: int) -> list[GraphSpec]:
    specs: list[GraphSpec] = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(relax_graphs(bias))
    def run(spec: GraphSpec) -> None:
        specs.append(spec)

    run()
    return specs


def test_shape_variables_anywhere_and_bound_to_edges() -> None:
    specs = _draw(GraphBias(symbolic=1.0, other_dtypes=0.0), 200)
    first_shapes = [s.inputs[0].shape for s in specs]
    # chance(1.0) is False on Hypothesis's minimal draw (0.0): nearly all, not all
    assert sum(any(isinstance(d, str) for d in sh) for sh in first_shapes) >= 0.9 * len(first_shapes)
    assert any(isinstance(d, str) for sh in first_shapes for d in sh[1:]), "only leading shape variables"
    assert any(len({d for d in sh if isinstance(d, str)}) >= 2 for sh in first_shapes), "never two variables"
    assert any(len([d for d in sh if isinstance(d, str)]) > len({d for d in sh if isinstance(d, str)})
               for sh in first_shapes), "a variable never repeats"
    bound = {v for s in specs for _, v in s.sym_sizes}
    assert {0, 1} <= bound and bound <= set(SYM_SIZES) and any(v in (2, 3, 5, 7) for v in bound)


def test_zero_size_dims_are_drawn() -> None:
    specs = _draw(GraphBias(zero_size=1.0, symbolic=0.0, other_dtypes=0.0), 60)
    assert sum(0 in s.inputs[0].shape for s in specs) >= 0.75 * len(specs)
