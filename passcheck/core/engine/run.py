"""The run loop every entry point drives (CLI, ``passcheck.check``, pytest, benchmarks):

resolve (``plan``) -> draw, apply, check, record (``explore``, the worker's ``Session``) ->
shrink -> report (findings, repro scripts). Each stage is a function of its own module.
"""

from __future__ import annotations

import time

from passcheck.core.engine import replaying
from passcheck.core.engine.explore import Progress, Record, Slot, explore
from passcheck.core.engine.plan import Plan, plan
from passcheck.core.engine.pool import Pool
from passcheck.core.engine.repro import write_repros
from passcheck.core.engine.results import Finding, RunConfig, RunResult
from passcheck.core.engine.shrink import Failure, shrink
from passcheck.core.engine.stock import StockPass
from passcheck.core.known import recognise, recognise_example
from passcheck.core.tvm_build import tvm_build


def run(config: RunConfig, progress: Progress | None = None) -> RunResult:
    t_start = time.perf_counter()
    p, replay = replaying.prepare(plan(config))
    with Pool(p, config.workers) as pool, StockPass(p) as stock:
        record = explore(p, pool, progress, stock if stock.active else None)
        t_shrink = time.perf_counter()
        best = shrink(p, pool, record, progress)
        shrink_s = time.perf_counter() - t_shrink
        restarts = pool.restarts
        limit = pool.limit
    result = RunResult(config, p.subject.name, list(p.properties), record.stats, findings(p, record, best),
                       record.examples, record.rejected, record.discarded, 0.0, shrink_s, restarts, p.subject.ir,
                       record.notes)
    result.known_examples, result.new_examples = record.known_examples, record.new_examples
    result.timings = dict(record.timings)
    result.counts = dict(record.counts)
    result.coverage = {c: dict(items) for c, items in record.coverage.items()}
    result.replayed = len(replay.examples)
    result.tvm = tvm_build().as_dict()
    result.changed, result.measured, result.needs = record.changed, record.measured, p.subject.needs
    result.timeout_s, result.timeout_rule = limit.seconds, limit.describe()
    recognise_known(p, result)
    replaying.record_outcome(p, replay, record.explicit_results, result.findings)
    result.refused = replay.refused()
    if result.findings:
        write_repros(result, p.impl, p.subject)
    result.duration_s = time.perf_counter() - t_start
    return result


def findings(p: Plan, record: Record, best: dict[Slot, Failure]) -> list[Finding]:
    """One finding per failing property, in the plan's order, and a second one where its first
    failure is a known TVM bug and a later one is not (that one first: it is what is new); each
    with its shrunk example if shrinking reproduced it, else the failure as first seen."""
    out = []
    for n in p.properties:
        for slot in sorted((s for s in record.first_fail if s.prop == n), key=lambda s: not s.after_known):
            example, outcome, res = best.get(slot, record.first_fail[slot])
            also = tuple(sorted(k for k in res.failed if k != n))
            out.append(Finding(n, outcome.verdict, outcome.message, example, res.input_script, res.output_script,
                               shrunk=slot in best, also_failing=also, known_bug=record.known.get(slot)))
    return out


def recognise_known(p: Plan, result: RunResult) -> None:
    """Mark each finding, and each kind of violation message, that matches a known TVM bug. With
    ``--impl`` only what the record found the stock pass to fail the same way is known (a
    finding keeps the record's verdict on its first example; kinds are not matched by message)."""
    if p.impl is not None:
        return
    for f in result.findings:
        bug = recognise_example(p.subject, f.property, f.example, f.message, f.input_script, f.output_script)
        f.known_bug = bug.name if bug else None
    for name, stats in result.stats.items():
        for kind, message in stats.first_message.items():
            if kind in stats.known:
                continue  # recognised while exploring, from its first example's IR too
            bug = recognise(p.subject, name, message)
            if bug is not None:
                stats.known[kind] = bug.name
