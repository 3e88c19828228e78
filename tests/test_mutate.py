"""The metamorphic mutators (relax/mutate/): each relation's mutant computes the same function as
its graph, by the float64 reference and by running both; the error model of the ops they insert
holds on TVM's kernels; mutations resolve deterministically and reduce by delta debugging."""

from __future__ import annotations

import numpy as np
import pytest
import tvm_ffi
from hypothesis import HealthCheck, assume, given, seed, settings
from hypothesis import strategies as st
from tvm import relax

from passcheck.core.reduce import without_chunks
from passcheck.core.rounding import UNIT_ROUNDOFF, Approx
from passcheck.relax import execution, reference
from passcheck.relax.build import build_module
from passcheck.relax.graphs import GraphBias, relax_graphs
from passcheck.relax.mutate.calc import RefCalc
from passcheck.relax.mutate.graph import MutantCase
from passcheck.relax.mutate.reduce import mutant_simplifications
from passcheck.relax.mutate.relations import CONDITIONS, GARBAGE, Mutant, Mutation, relations
from passcheck.relax.spec import input_arrays
from passcheck.relax.tolerance import allowed, checkable, compare

relations()
GRAPHS = relax_graphs(GraphBias(max_nodes=5, symbolic=0.3, float16=0.2))
SETTINGS = settings(max_examples=3, deadline=None, database=None, suppress_health_check=list(HealthCheck))
PICKS = st.tuples(*[st.integers(0, 50)] * 4)
_OP_OF_GARBAGE = {"conv2d": "relax.nn.conv2d", "matmul": "relax.matmul", "add": "relax.add",
                  "multiply": "relax.multiply", "none": None}


def _calls(mod: object) -> list[str]:
    found: list[str] = []
    tvm_ffi.structural_walk(mod["main"], [(relax.Call, lambda c: found.append(str(getattr(c.op, "name", ""))))])
    return found


def _check_same_function(spec: object, mutations: tuple[Mutation, ...]) -> MutantCase:
    case = MutantCase("FoldConstant", Mutant(spec, mutations))
    dtype = case.dtype
    ref_m, ref_t = case.base_reference(), case.reference()
    for rm, rt in zip(ref_m, ref_t, strict=True):
        # the mutant's reference is the graph's, up to both rounding bounds
        ok = checkable(rm, dtype) & checkable(rt, dtype)
        assert np.all(np.abs(rm.v - rt.v)[ok] <= (allowed(rm, dtype) + allowed(rt, dtype))[ok])
    try:
        got = execution.run_relax(case.built, case.params())
    except Exception as e:  # noqa: BLE001  (only a registered TVM bug may stop it)
        # the garbage may consume a value the graph only returned: a float16 batch_norm's result,
        # which LegalizeOps retypes float32 (a kept bug), now read by an add
        assert _known("every_build_runs", str(e), f"{spec!r}\n{case.built.script()}"), e
        assume(False)
    for g, rt in zip(got, ref_t, strict=True):
        assert compare(g, rt, dtype) is None  # and TVM computes it within the mutant's own bound
    return case


def _known(prop: str, message: str, ir: str) -> bool:
    from passcheck.core.known import KNOWN_BUGS
    from passcheck.relax import known_bugs  # noqa: F401  (registers them)

    return any(b.matches((), prop, message, ir) for b in KNOWN_BUGS.values())


def _graph_runs_right(spec: object) -> bool:
    params = input_arrays(spec)
    mod = build_module(spec)
    # a kept bug's IR pattern reads the TVMScript (a float16 batch_norm), others the spec
    ir = f"{spec!r}\n{mod.script()}"
    try:
        got = execution.run_relax(mod, params)
    except Exception as e:  # noqa: BLE001  (only a registered TVM bug may stop it)
        assert _known("every_build_runs", str(e), ir), e
        return False
    refs = reference.evaluate(spec, params)
    dtypes = [spec.value_dtype(o) for o in spec.outputs]  # type: ignore[attr-defined]
    bad = [(i, m) for i, (g, r, d) in enumerate(zip(got, refs, dtypes)) if (m := compare(g, r, d)) is not None]
    # the message semantics_preserved would give (properties/generic.py)
    messages = ["wrong numbers: " + m.describe(f"output {i}") for i, m in bad]
    assert all(_known("semantics_preserved", msg, ir) for msg in messages), messages
    return not bad


def _check_relation(conditions: list[str], garbages: list[str], salt: int) -> None:
    @seed(salt)
    @SETTINGS
    @given(GRAPHS, st.lists(st.tuples(st.sampled_from(conditions), st.sampled_from(garbages), st.integers(0, 50),
                                      PICKS, st.integers(0, 99)), min_size=1, max_size=3))
    def check(spec: object, draws: list) -> None:  # type: ignore[type-arg]
        # a graph TVM already computes wrong (a registered TVM bug, e.g. index_tensor's negative
        # indices) says nothing about the mutation: the relation is about mutant vs graph
        assume(_graph_runs_right(spec))
        muts = tuple(Mutation(c, g, t, p, s, round=i) for i, (c, g, t, p, s) in enumerate(draws))
        case = _check_same_function(spec, muts)
        for r in case.resolved:
            op = _OP_OF_GARBAGE[r.garbage.name] if r is not None else None
            if op is not None:  # the garbage is really there for the compiler to deal with
                assert _calls(case.built).count(op) > _calls(case.base_module()).count(op)
        if case.applied and all(CONDITIONS.get(m.condition).universal for m in muts):
            # a universal zero is exactly zero: the mutant's numbers are the graph's, bit for bit
            # up to the sign of zero
            base = execution.run_relax(case.base_module(), case.params())
            mut = execution.run_relax(case.built, case.params())
            for b, m in zip(base, mut, strict=True):
                assert np.array_equal(b, m, equal_nan=True)

    check()


@pytest.mark.parametrize("condition", ["uoc-relu", "uoc-sinlog", "pioc"])
def test_every_condition_computes_the_same_function(condition: str) -> None:
    _check_relation([condition], list(GARBAGE.names()), len(condition))


@pytest.mark.parametrize("garbage", ["none", "add", "multiply", "matmul", "conv2d"])
def test_every_garbage_kind_computes_the_same_function(garbage: str) -> None:
    _check_relation(list(CONDITIONS.names()), [garbage], 7 * len(garbage))


def test_iterated_rounds_read_what_earlier_rounds_added() -> None:
    spec = _one_graph()
    rounds = tuple(Mutation("uoc-relu", "conv2d", target=k, picks=(10 + k, 3, 7, 1), seed=k, round=k) for k in range(4))
    case = _check_same_function(spec, rounds)
    assert case.applied == 4
    described = case.notes["mutations"]
    assert described.count("+=") == 4
    # some later round reads a garbage value (G) or a mutated value (y) an earlier one made
    assert "G" in described or "y" in described.split("#1", 1)[1]


def test_a_per_input_condition_needs_a_static_value_and_is_skipped_without_one() -> None:
    from passcheck.relax.spec import GraphSpec, Node, TensorDecl

    symbolic = GraphSpec((TensorDecl("p0", ("n", 4), "float32", False),),
                         (Node("relu", (0,), (), ("n", 4), "float32"),), (1,), (("n", 3),))
    case = MutantCase("FoldConstant", Mutant(symbolic, (Mutation("pioc", "none", 0, (0,), 0),
                                                        Mutation("uoc-relu", "none", 0, (0, 0), 0))))
    assert case.applied == 1 and case.notes["mutations"].startswith("#0 skipped")
    static = GraphSpec((TensorDecl("p0", (2, 4), "float32", False),),
                       (Node("relu", (0,), (), (2, 4), "float32"),), (1,))
    case = _check_same_function(static, (Mutation("pioc", "conv2d", 0, (0, 1), 0),))
    assert case.applied == 1 and "pioc" in case.notes["mutations"]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_error_model_of_inserted_ops_holds_on_tvm_kernels(dtype: str) -> None:
    """sin, log (libm-backed) and tanh over many values: TVM's results within RefCalc's bound."""
    from tvm.relax import op as R

    rng = np.random.default_rng(0)
    x = rng.uniform(-6.0, 6.0, 4096).astype(dtype)
    pos = (1.0 + rng.uniform(0.0, 20.0, 4096) ** 2).astype(dtype)
    calc = RefCalc(dtype)
    for name, data in (("sin", x), ("tanh", x), ("log", pos)):
        bb = relax.BlockBuilder()
        v = relax.Var("x", relax.TensorType(data.shape, dtype))
        with bb.function("main", [v]):
            with bb.dataflow():
                out = bb.emit_output(getattr(R, name)(v))
            bb.emit_func_output(out)
        (got,) = execution.run_relax(bb.get(), [data])
        ref = getattr(calc, name)(Approx.exact(data.astype(np.float64)))
        err = np.abs(got.astype(np.float64) - ref.v)
        assert np.all(err <= ref.e + UNIT_ROUNDOFF[dtype] * np.abs(ref.v)), (name, float((err - ref.e).max()))


def test_mutations_reduce_by_delta_debugging() -> None:
    assert list(without_chunks((1, 2, 3, 4))) == [(3, 4), (1, 2), (2, 3, 4), (1, 3, 4), (1, 2, 4), (1, 2, 3)]
    assert list(without_chunks((1, 2), keep_at_least=2)) == []
    spec = _one_graph()
    m = Mutant(spec, tuple(Mutation("uoc-relu", seed=i) for i in range(3)))
    first = list(mutant_simplifications(m))
    assert first[0].mutations == m.mutations[2:] and first[0].base == spec
    assert any(c.base != spec and c.mutations == m.mutations for c in first)  # then the graph shrinks


def test_every_relation_is_declared_once_with_a_summary() -> None:
    assert set(CONDITIONS.names()) >= {"uoc-relu", "uoc-sinlog", "pioc"}
    assert set(GARBAGE.names()) >= {"none", "add", "multiply", "matmul", "conv2d"}
    assert all(c.summary for c in CONDITIONS.values()) and all(g.summary for g in GARBAGE.values())


def _one_graph(symbolic: float = 0.0, max_nodes: int = 5) -> object:
    found: list[object] = []

    @seed(3)
    @settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(relax_graphs(GraphBias(min_nodes=max_nodes, max_nodes=max_nodes, symbolic=symbolic,
                                  first_ranks=(2, 3, 4))))
    def pick(spec: object) -> None:
        found.append(spec)

    pick()
    # a graph TVM already computes wrong (a registered TVM bug) is no base for a mutant
    spec = max([s for s in found if _graph_runs_right(s)], key=lambda s: len(s.nodes))  # type: ignore[attr-defined]
    build_module(spec)
    reference.evaluate(spec, input_arrays(spec))
    return spec
