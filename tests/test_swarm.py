"""Swarm testing (relax/swarm.py): a swarmed example builds from a few ops and one dtype, and a
bias without a swarm draws exactly what it drew before swarms existed."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

import passcheck.relax.passes  # noqa: F401  (registers the passes)
from passcheck.core.draws import examples_of
from passcheck.core.subject import resolve
from passcheck.relax.graphs import GraphBias, relax_graphs
from passcheck.relax.swarm import Swarm

N = 300


def _ops(spec: object) -> set[str]:
    return {n.op for n in spec.nodes if n.op != "tuple_get_item"}  # type: ignore[attr-defined]


def test_a_swarmed_example_builds_from_the_few_ops_it_kept() -> None:
    # (no motifs: every op comes from the menu, the kept ops unless each is refused twice; astype
    # comes in where a dtype changes)
    bias = GraphBias(min_nodes=4, max_nodes=8, swarm=Swarm(rate=1.0, max_ops=2))
    few = sum(len(_ops(s) - {"astype"}) <= 2 for s in examples_of(relax_graphs(bias), N, seed=3))
    plain = sum(len(_ops(s) - {"astype"}) <= 2 for s in examples_of(relax_graphs(replace(bias, swarm=Swarm())), N,
                                                                      seed=3))
    # measured: 179 of 300 swarmed, 24 of 300 plain
    assert few >= N // 2 and plain < N // 4, (few, plain)


def test_a_swarmed_example_draws_its_dtype_among_all_the_bias_takes() -> None:
    bias = GraphBias(other_dtypes=0.1)
    plain = Counter(s.inputs[0].dtype for s in examples_of(relax_graphs(bias), N, seed=5))
    swarmed = Counter(s.inputs[0].dtype for s in examples_of(relax_graphs(replace(bias, swarm=Swarm(rate=1.0))), N,
                                                             seed=5))
    narrow = ("int8", "uint8", "int16")
    assert sum(swarmed[d] for d in narrow) > 3 * max(1, sum(plain[d] for d in narrow))
    # a bias that draws float graphs only keeps them float when swarmed (AlterOpLayout's)
    floats = replace(bias, other_dtypes=0.0, swarm=Swarm(rate=1.0))
    assert {s.inputs[0].dtype for s in examples_of(relax_graphs(floats), N, seed=5)} <= {"float32"}


def test_no_swarm_draws_what_the_generator_drew_before() -> None:
    # rate 0 draws nothing: the same examples as a bias that never heard of swarms
    bias = resolve("FuseOps").bias
    off = examples_of(relax_graphs(replace(bias, swarm=Swarm())), 50, seed=1)
    on = examples_of(relax_graphs(bias), 50, seed=1)
    assert off == examples_of(relax_graphs(replace(bias, swarm=Swarm(rate=0.0, max_ops=5))), 50, seed=1)
    assert off != on


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"rate": 1.5}, "a chance, between 0 and 1"),
    ({"max_ops": 0}, "at least 1"),
    ({"fresh": -0.5}, "a chance, between 0 and 1"),
    ({"features": ("symbolic", "colour")}, "colour not among"),
])
def test_a_wrong_swarm_says_how_to_fix_it(kwargs: dict[str, object], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Swarm(**kwargs)  # type: ignore[arg-type]


def test_the_headline_passes_declare_a_swarm() -> None:
    for name in ("FuseOps", "FoldConstant", "AlterOpLayout", "SimplifyInference"):
        assert resolve(name).bias.swarm.rate > 0, name


def _only(op: str, **swarm: object) -> GraphBias:
    from passcheck.relax.ops.base import op_registry

    return GraphBias(op_weights=tuple((n, float(n == op)) for n in op_registry()), min_nodes=2, max_nodes=6,
                     swarm=Swarm(rate=1.0, max_ops=1, keep=1.0, **swarm))  # type: ignore[arg-type]


def test_a_kept_op_no_value_fits_gets_an_input_of_its_own() -> None:
    # conv2d takes a rank-4 input only: graphs starting from a rank-1 input draw it only with
    # ``fresh``
    def convs(fresh: float) -> int:
        bias = replace(_only("conv2d", fresh=fresh), first_ranks=(1,))
        return sum("conv2d" in _ops(s) for s in examples_of(relax_graphs(bias), 100, seed=2))

    assert convs(0.0) == 0
    assert convs(1.0) >= 40, convs(1.0)  # measured: 74 of 100


def test_a_kept_op_aimed_at_its_forms_reaches_its_rare_ones() -> None:
    # strided_slice declares fifteen forms; its own draw makes a slice ending at 0 or beginning
    # at 1 least often
    from passcheck.relax.forms import forms

    def rarest(aimed: bool) -> int:
        graphs = examples_of(relax_graphs(_only("strided_slice", forms=aimed)), 200, seed=4)
        counts = Counter(f for s in graphs for f in forms(s)["op attributes"])
        assert len(counts) == 15
        return min(counts.values())

    assert rarest(True) >= 1.5 * rarest(False), (rarest(True), rarest(False))  # measured: 53 and 27


def test_legalize_ops_draws_every_op_of_the_vocabulary_for_its_forms() -> None:
    swarm = resolve("LegalizeOps").bias.swarm
    assert swarm.forms and swarm.fresh > 0 and swarm.rate >= 0.5
