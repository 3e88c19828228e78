"""Checking drawn Relax graphs against their float64 reference, for the op vocabulary tests
(tests/test_op_vocabulary*.py): each graph built, checked well-formed, compiled (in batches,
through a kernel cache, as a run's worker compiles them), run and compared with its reference."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from tvm import relax

from passcheck.core.errors import error_line
from passcheck.core.known import KNOWN_BUGS
from passcheck.core.rounding import Approx
from passcheck.relax.build import build_module
from passcheck.relax.execution import call_main, run_relax
from passcheck.relax.graphs import GraphBias, relax_graphs
from passcheck.relax.reference import evaluate
from passcheck.relax.spec import GraphSpec, input_arrays
from passcheck.relax.tolerance import compare


@dataclass
class Outcome:
    spec: GraphSpec
    stage: str  # "build", "well-formed", "execute" (the stage that failed), "known-bug" or "ran"
    error: str = ""
    dtype: str = "float32"
    outputs: list[np.ndarray] = field(default_factory=list)
    refs: list[Approx] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)


def check_graph(spec: GraphSpec) -> Outcome:
    """Build, check, compile and run ``spec``; compare every output with its reference."""
    built = _built(spec)
    return built if isinstance(built, Outcome) else _run(spec, built, None)


def _built(spec: GraphSpec) -> Any:
    """``spec``'s well-formed module, or the Outcome of the stage that failed."""
    try:
        mod = build_module(spec)
    except Exception as e:  # noqa: BLE001  (any failure here is a generator defect)
        return Outcome(spec, "build", f"{type(e).__name__}: {e}")
    if not relax.analysis.check_well_formed(mod):
        return Outcome(spec, "well-formed")
    return mod


def _run(spec: GraphSpec, mod: Any, compiled: tuple[Any, str] | None) -> Outcome:
    """Run ``mod`` (``compiled``: already compiled, with others, as ``(vm, prefix)``) and compare
    every output with its reference."""
    params = input_arrays(spec)
    try:
        outputs = call_main(compiled[0], compiled[1] + "main", params) if compiled else run_relax(mod, params)
    except Exception as e:  # noqa: BLE001
        error = f"{type(e).__name__}: {error_line(e, 300)}"  # as the engine reports it
        known = known_bug(error, mod)
        return Outcome(spec, "known-bug" if known else "execute", f"{known or ''} {error}".strip())
    refs = evaluate(spec, params)
    dtype = spec.value_dtype(spec.outputs[0])
    out = Outcome(spec, "ran", dtype=dtype, outputs=outputs, refs=refs)
    for i, (got, ref) in enumerate(zip(outputs, refs)):
        m = compare(got, ref, spec.value_dtype(spec.outputs[i]))
        if m is None:
            continue
        known = known_bug("wrong numbers: " + m.describe(f"output {i}"), mod)
        if known:
            out.stage, out.error = "known-bug", f"{out.error} {known}".strip()
        else:
            out.mismatches.append(f"{spec.ops()} ({dtype}): {m.describe(f'output {i}')}")
    return out


def known_bug(message: str, mod: object) -> str | None:
    """The kept TVM bug a valid graph's failure matches (message and IR), if any: the generator
    does not steer around them."""
    return next((b.name for b in KNOWN_BUGS.values() if not b.subjects
                 and b.matches((), "semantics_preserved", message, mod.script())), None)


def campaign(bias: GraphBias, n: int) -> list[Outcome]:
    # ``run`` below only collects the drawn graphs, checked in batches after it. Its source is
    # kept as it was when it checked each one, because derandomize seeds the draws from it: the
    # vocabulary tests' thresholds were measured on these draws.
    outcomes: list[GraphSpec] = []
    check_graph = _drawn

    @settings(max_examples=n, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(relax_graphs(bias))
    def run(spec: GraphSpec) -> None:
        outcomes.append(check_graph(spec))

    run()
    return [o for i in range(0, len(outcomes), BATCH) for o in check_graphs(outcomes[i:i + BATCH])]


def _drawn(spec: GraphSpec) -> GraphSpec:
    return spec


BATCH = 16


def check_graphs(specs: list[GraphSpec]) -> list[Outcome]:
    """``check_graph`` of each (each module built once), compiled together as a run's worker compiles them
    (through a kernel cache: a kernel several graphs share is compiled once); a module that does
    not compile with the others is compiled alone, and meets its failure there."""
    from passcheck.relax.execution import compile_many

    built = [_built(spec) for spec in specs]
    ok = [i for i, b in enumerate(built) if not isinstance(b, Outcome)]
    with _kernel_cache():
        vms = compile_many([built[i] for i in ok]) if len(ok) > 1 else None
    compiled = dict(zip(ok, vms or [None] * len(ok)))
    return [b if isinstance(b, Outcome) else
            _run(spec, b, None if isinstance(compiled[i], Exception) else compiled[i])
            for i, (spec, b) in enumerate(zip(specs, built))]


@contextlib.contextmanager
def _kernel_cache() -> Iterator[None]:
    """This process works for a run of its own for a while: compile_many uses its kernel cache."""
    import tempfile

    from passcheck.core import workdir

    before = workdir.current()
    with tempfile.TemporaryDirectory(prefix="passcheck-test-run-") as d:
        workdir.use(d)
        try:
            yield
        finally:
            workdir.use(before)


def known_tvm_bug(o: Outcome) -> str | None:
    """The registered TVM bug (kept repro) that stopped an outcome or made its numbers wrong."""
    if o.stage == "known-bug":
        return o.error.split()[0]
    return None  # (check_graph marks a mismatch that is a registered bug "known-bug" too)


def failures(outcomes: list[Outcome]) -> list[str]:
    bad = [f"{o.stage} failed for {o.spec.ops()}: {o.error}" for o in outcomes if o.stage not in ("ran", "known-bug")]
    return bad + [m for o in outcomes for m in o.mismatches]
