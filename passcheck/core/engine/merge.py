"""Results of several runs of one subject (a campaign's tasks, each a seed range, on any machine)
merged into one: counts and times add up, each property keeps its smallest finding."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from passcheck.core import timing
from passcheck.core.engine.results import Finding, PropertyStats, RunResult


def _size(example: Any) -> int:
    return len(repr(example))


def merge_stats(into: PropertyStats, more: PropertyStats) -> None:
    into.held += more.held
    into.violated += more.violated
    into.discarded += more.discarded
    into.unknown += more.unknown
    for kind, n in more.kinds.items():
        into.kinds[kind] = into.kinds.get(kind, 0) + n
        into.first_message.setdefault(kind, more.first_message.get(kind, ""))
    for kind, bug in more.known.items():
        into.known.setdefault(kind, bug)
    for bug, n in more.known_hits.items():
        into.known_hits[bug] = into.known_hits.get(bug, 0) + n


def merge_results(results: list[RunResult]) -> RunResult:
    """One result for runs of the same subject (in the order given: the first one's config)."""
    if not results:
        raise ValueError("nothing to merge")
    first = results[0]
    names = list(dict.fromkeys(n for r in results for n in r.properties))
    stats = {n: PropertyStats() for n in names}
    findings: dict[str, Finding] = {}
    out = RunResult(first.config, first.subject_name, names, stats, [], subject_ir=first.subject_ir,
                    tvm=dict(first.tvm))
    for r in results:
        for n, s in r.stats.items():
            merge_stats(stats[n], s)
        for f in r.findings:
            have = findings.get(f.property)
            if have is None or (f.shrunk, -_size(f.example)) > (have.shrunk, -_size(have.example)):
                findings[f.property] = replace(f)
        out.examples += r.examples
        out.rejected += r.rejected
        out.discarded_examples += r.discarded_examples
        out.known_examples += r.known_examples
        out.new_examples += r.new_examples
        out.duration_s = max(out.duration_s, r.duration_s)
        out.shrink_s += r.shrink_s
        out.worker_restarts += r.worker_restarts
        out.replayed += r.replayed
        out.refused += [line for line in r.refused if line not in out.refused]
        out.changed += r.changed
        out.measured += r.measured
        out.needs = out.needs or r.needs
        timing.add(out.timings, r.timings)
        timing.add_counts(out.counts, r.counts)
        for category, items in r.coverage.items():
            mine = out.coverage.setdefault(category, {})
            for item, n in items.items():
                mine[item] = mine.get(item, 0) + n
    out.findings = [findings[n] for n in names if n in findings]
    return out
