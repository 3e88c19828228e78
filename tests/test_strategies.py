"""``passcheck.strategies`` draws what passcheck's own runs draw: every one of the ten dtypes of
the first input, and a call it cannot honour is refused with what to do instead."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from passcheck.relax.graphs import OTHER_DTYPES
from passcheck.strategies import relax_graph_specs, relax_graphs

TEN = ("float32", "float16", *OTHER_DTYPES)


def test_the_ten_dtypes_are_the_engines() -> None:
    assert len(TEN) == 10 and len(set(TEN)) == 10


@pytest.mark.parametrize("dtype", TEN)
def test_every_dtype_the_engine_draws_is_accepted_and_drawn(dtype: str) -> None:
    seen: set[str] = set()

    @settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(relax_graph_specs(dtypes=[dtype], max_ops=3))
    def draw(spec) -> None:  # noqa: ANN001
        seen.add(spec.inputs[0].dtype)

    draw()
    assert seen == {dtype}


def test_a_module_of_another_dtype_builds() -> None:
    @settings(max_examples=3, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(relax_graphs(ops=["add", "maximum"], dtypes=["int32", "int8"], max_ops=2), st.data())
    def build(mod, data) -> None:  # noqa: ANN001
        params = mod["main"].params
        assert str(params[0].ty.dtype) in {"int32", "int8"}

    build()


def test_an_unknown_dtype_is_refused_with_the_ones_that_work() -> None:
    with pytest.raises(ValueError, match="must be some of float32, float16, float64"):
        relax_graph_specs(dtypes=["float8"])
    with pytest.raises(ValueError, match="must be some of"):
        relax_graph_specs(dtypes=[])


def test_a_dtype_no_chosen_op_takes_is_refused() -> None:
    with pytest.raises(ValueError, match="no op of .* takes bool"):
        relax_graph_specs(ops=["exp"], dtypes=["bool"])
