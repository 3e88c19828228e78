"""Drive Hypothesis over a subject, collect findings, shrink them, write repros.

Two Hypothesis runs with the same seed:

1. *explore*: ``max_examples`` examples, generation only; the test never fails, so every
   property's held / violated / discarded counts cover all examples, and the first failing
   example of each property is kept.
2. *shrink* (only if something failed): the same seed regenerates the same examples, the test
   now raises one exception class per failing property, and Hypothesis shrinks each to a
   minimal example (``report_multiple_bugs``). A time budget bounds this phase.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis.errors import Unsatisfiable

from passcheck.core.engine.worker import Worker, WorkerConfig, WorkerDied
from passcheck.core.errors import UsageError
from passcheck.core.outcome import DISCARDED, HELD, VIOLATED, ExampleResult, Outcome
from passcheck.core.subject import Options


@dataclass
class RunConfig:
    subject: str
    ir: str = "relax"
    impl: str | None = None
    examples: int = 100
    seed: int = 0
    properties: tuple[str, ...] = ()  # empty: every applicable property
    property_files: tuple[str, ...] = ()
    timeout: float = 60.0
    shrink_seconds: float = 120.0
    findings_dir: str = "passcheck-findings"
    options: Options = field(default_factory=Options)


@dataclass
class PropertyStats:
    held: int = 0
    violated: int = 0
    discarded: int = 0
    # How many violating examples gave each message shape (numbers and names of the example
    # blanked): only the first failure is shrunk, so this says whether the others look alike.
    kinds: dict[str, int] = field(default_factory=dict)


_NUMBER = re.compile(r"-?\b\d+(\.\d+)?(e[-+]?\d+)?\b")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_HEX = re.compile(r"0x[0-9a-f]+")
_BRACKETS = re.compile(r"\[[^\[\]]*\]")
_INDEXED = re.compile(r"[\w.]+\[…\]")


def message_kind(message: str) -> str:
    """A violation message with what varies between examples blanked (numbers, addresses,
    quoted and indexed names, the point of a witness, the schedule or graph it was found on),
    so failures of one cause count as one kind."""
    head = message.split("\nschedule")[0].split("; schedule")[0]
    lines = [x.strip().split(", at ")[0] for x in head.splitlines() if x.strip()][:2]
    text = _HEX.sub("ADDR", " / ".join(lines))
    while _BRACKETS.search(text):
        text = _BRACKETS.sub("…", text)
        text = text.replace("……", "…")
    text = _INDEXED.sub("BUF[…]", re.sub(r"(\w)…", r"\1[…]", text))
    return _QUOTED.sub("'…'", _NUMBER.sub("N", text))[:240]


@dataclass
class Finding:
    property: str
    kind: str
    message: str
    example: Any
    input_script: str = ""
    output_script: str = ""
    repro: str = ""
    shrunk: bool = False
    also_failing: tuple[str, ...] = ()


@dataclass
class RunResult:
    config: RunConfig
    subject_name: str
    properties: list[str]
    stats: dict[str, PropertyStats]
    findings: list[Finding]
    examples: int = 0
    rejected: int = 0
    discarded_examples: int = 0
    duration_s: float = 0.0
    shrink_s: float = 0.0
    worker_restarts: int = 0
    subject_ir: str = "relax"

    @property
    def ok(self) -> bool:
        return not self.findings


Progress = Callable[[str, int, int, int], None]  # (phase, done, total, findings)


def select_properties(config: RunConfig) -> tuple[Any, list[str]]:
    """Resolve the subject and the properties that apply (in the runner, for validation)."""
    from passcheck.core import property as props
    from passcheck.core.lookup import resolve

    props.load_builtin()
    files = {str(Path(f).resolve()) for f in config.property_files}
    for f in config.property_files:
        props.load_file(f)
    subject = resolve(config.subject, config.ir)
    # Only what the worker will load too: the shipped properties and the given files (a
    # property registered some other way in this process does not exist in the worker).
    applicable = [p for p in props.all_properties() if p.applies_to(subject.names, subject.ir)
                  and (p.origin == "builtin" or str(Path(p.origin).resolve()) in files)]
    if config.properties:
        names = []
        for n in config.properties:
            p = props.get(n)
            if p.origin != "builtin" and p not in applicable:
                raise UsageError(f"property {n!r} comes from {p.origin}; put it in a file and pass it "
                                 "with --properties (property_files=...) so the worker can load it")
            if p not in applicable:
                raise UsageError(f"property {n!r} does not apply to {subject.name} "
                                 f"(it is for {', '.join(p.passes)}, ir={p.ir})")
            names.append(p.name)
    else:
        names = [p.name for p in applicable]
    if not names:
        raise UsageError(f"no property applies to {subject.name}; add one with --properties FILE")
    return subject, names


def _settings(examples: int, phases: list[Phase]) -> settings:
    return settings(max_examples=examples, phases=phases, deadline=None, database=None,
                    report_multiple_bugs=True, suppress_health_check=list(HealthCheck),
                    print_blob=False, verbosity=Verbosity.quiet)


def run(config: RunConfig, progress: Progress | None = None) -> RunResult:
    from passcheck.core.lookup import load_impl

    t_start = time.perf_counter()
    subject, names = select_properties(config)
    impl = config.impl
    if impl is None and subject.needs_impl:
        impl = config.subject  # PASS given as an import spec: it is the implementation
    if impl is not None:
        obj = load_impl(impl)  # fail fast in the runner with a one-line error
        if hasattr(subject, "check_impl"):
            subject.check_impl(obj, impl)
    wconf = WorkerConfig(subject.name, config.ir, impl,
                         tuple(names), tuple(str(Path(f).resolve()) for f in config.property_files),
                         config.options)
    worker = Worker(wconf, config.timeout)
    worker.start()
    strategy = subject.strategy(config.options)
    stats = {n: PropertyStats() for n in names}
    first_fail: dict[str, tuple[Any, Outcome, ExampleResult]] = {}
    first_call: dict[str, int] = {}  # call index (rejected draws included) of each first failure
    counts = {"examples": 0, "rejected": 0, "discarded": 0}

    def evaluate(example: Any) -> ExampleResult:
        try:
            return worker.run(example)
        except WorkerDied as d:
            prop_name = d.stage if d.stage in names else _transform_property(names)
            res = ExampleResult(outcomes={n: Outcome(DISCARDED, message="worker died") for n in names})
            res.outcomes[prop_name] = Outcome(VIOLATED, d.kind, d.detail)
            return res

    # -- phase 1: explore ---------------------------------------------------------------------
    @seed(config.seed)
    @_settings(config.examples, [Phase.explicit, Phase.generate])
    @given(strategy)
    def explore(example: Any) -> None:
        from hypothesis import reject

        res = evaluate(example)
        if res.rejected is not None:
            counts["rejected"] += 1
            reject()
        counts["examples"] += 1
        if res.discarded is not None:
            counts["discarded"] += 1
        for n, o in res.outcomes.items():
            st = stats[n]
            if o.status == HELD:
                st.held += 1
            elif o.status == VIOLATED:
                st.violated += 1
                k = message_kind(o.message)
                st.kinds[k] = st.kinds.get(k, 0) + 1
                if n not in first_fail:
                    first_fail[n] = (example, o, res)
                    first_call[n] = counts["examples"] + counts["rejected"]
            else:
                st.discarded += 1
        if progress:
            progress("explore", counts["examples"], config.examples, len(first_fail))

    try:
        explore()
    except Unsatisfiable:
        pass
    # -- phase 2: shrink ----------------------------------------------------------------------
    t_shrink = time.perf_counter()
    best: dict[str, tuple[Any, Outcome, ExampleResult]] = {}
    if first_fail:
        kinds = {n: o.kind for n, (_, o, _) in first_fail.items()}
        per_target = max(15.0, config.shrink_seconds / len(kinds))
        for n in sorted(kinds, key=lambda k: first_call[k]):
            if n in best:
                continue  # already reproduced (on candidates shrunk for an earlier property)
            found = _shrink(config, strategy, evaluate, kinds, n, first_call[n], per_target, progress)
            for k, v in found.items():
                if k not in best or _size(v[0]) < _size(best[k][0]):
                    best[k] = v
        best = _simplify(config, subject, evaluate, kinds, best)
    findings = []
    for n in names:
        if n not in first_fail:
            continue
        shrunk = n in best
        example, outcome, res = best.get(n, first_fail[n])
        also = tuple(sorted(k for k in res.failed if k != n))
        findings.append(Finding(n, outcome.kind, outcome.message, example, res.input_script,
                                res.output_script, shrunk=shrunk, also_failing=also))
    worker.close()
    result = RunResult(config, subject.name, names, stats, findings, counts["examples"], counts["rejected"],
                       counts["discarded"], 0.0, time.perf_counter() - t_shrink, worker.restarts,
                       subject.ir)
    if findings:
        from passcheck.core.engine.repro import write_repros

        write_repros(result, impl)
    result.duration_s = time.perf_counter() - t_start
    return result


def _transform_property(names: list[str]) -> str:
    for n in names:
        if n.endswith("does_not_raise"):
            return n
    return names[0]


def _size(example: Any) -> int:
    return len(repr(example))


def _same_failure(res: ExampleResult, name: str, kind: str) -> bool:
    """A candidate reproduces a finding only if the same property fails the same way: a
    violation must not shrink into, say, an unrelated exception raised while checking."""
    o = res.outcomes.get(name)
    return o is not None and o.status == VIOLATED and o.kind == kind


def _shrink(config: RunConfig, strategy: Any, evaluate: Callable[[Any], ExampleResult],
            targets: dict[str, str], target: str, first_call: int, budget: float,
            progress: Progress | None) -> dict[str, tuple[Any, Outcome, ExampleResult]]:
    """Regenerate the explore run's examples (same seed) up to where ``target`` first failed,
    then let Hypothesis shrink it; failures of other targets seen meanwhile are kept too.

    One hunt per property, because Hypothesis stops generating soon after the first bug it
    finds: a property that first failed late would never be reached in a shared hunt."""
    best: dict[str, tuple[Any, Outcome, ExampleResult]] = {}
    started: list[float] = []
    calls = [0]

    class TargetFailed(Exception):
        pass

    @seed(config.seed)
    @_settings(config.examples, [Phase.explicit, Phase.generate, Phase.shrink])
    @given(strategy)
    def hunt(example: Any) -> None:
        calls[0] += 1
        if started and time.perf_counter() - started[0] > budget:
            return  # budget spent: stop evaluating, Hypothesis finishes quickly
        if not started and calls[0] > first_call + 1 + first_call // 10:
            return  # the stream diverged from the explore run: the failure will not come back
        res = evaluate(example)
        if res.rejected is not None:
            from hypothesis import reject

            reject()  # as in the explore run, so both runs draw the same stream
        for n in sorted(targets):
            if _same_failure(res, n, targets[n]):
                cur = best.get(n)
                if cur is None or _size(example) <= _size(cur[0]):
                    best[n] = (example, res.outcomes[n], res)
        if progress:
            progress("shrink", calls[0], 0, len(best))
        if _same_failure(res, target, targets[target]):
            if not started:
                started.append(time.perf_counter())
            raise TargetFailed()

    try:
        hunt()
    except BaseException as e:  # noqa: BLE001 - Hypothesis re-raises our per-property errors
        if isinstance(e, KeyboardInterrupt):
            raise
    return best


def _simplify(config: RunConfig, subject: Any, evaluate: Callable[[Any], ExampleResult],
              kinds: dict[str, str], best: dict[str, tuple[Any, Outcome, ExampleResult]],
              ) -> dict[str, tuple[Any, Outcome, ExampleResult]]:
    """Structural clean-up after Hypothesis: try the subject's smaller variants of each minimal
    example (e.g. a graph without one of its ops) and keep any that still fails the same way.
    Hypothesis shrinks the draws; this removes what the draws cannot (an op in the middle)."""
    candidates = getattr(subject, "simplifications", None)
    if candidates is None:
        return best
    deadline = time.perf_counter() + max(5.0, config.shrink_seconds / 2)
    out = dict(best)
    for name, (example, outcome, res) in best.items():
        improved = True
        while improved and time.perf_counter() < deadline:
            improved = False
            for cand in candidates(example):
                if time.perf_counter() > deadline:
                    break
                r = evaluate(cand)
                if r.rejected is None and _same_failure(r, name, kinds[name]):
                    example, outcome, res = cand, r.outcomes[name], r
                    improved = True
                    break
        out[name] = (example, outcome, res)
    return out
