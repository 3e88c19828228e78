"""What a run is asked to do and what it found: plain data, shared by every entry point (CLI,
pytest, benchmarks, campaigns) and by the reports."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from passcheck.core.data import plain_data
from passcheck.core.outcome import Verdict
from passcheck.core.subject import Options

# Under this share of examples changed, a run warns that the pass acted on almost nothing.
LOW_ACTIVITY = 0.05


@plain_data("engine.RunConfig")
@dataclass
class RunConfig:
    subject: str
    ir: str = "relax"
    impl: str | None = None
    examples: int = 100
    seed: int = 0
    properties: tuple[str, ...] = ()  # empty: every applicable property
    property_files: tuple[str, ...] = ()
    # seconds per example before it counts as a hang; None: adapted to the run's own example times
    # (``core/engine/timeouts.py``: 20x their p95, at least 5 s)
    timeout: float | None = None
    shrink_seconds: float = 120.0
    findings_dir: str = "passcheck-findings"
    options: Options = field(default_factory=Options)
    # Known TVM bugs follow pytest's xfail convention: counted and listed apart, not failures of
    # the run unless ``strict_known`` (``--strict-known``). ``ignore_known`` (``--ignore-known``)
    # asked for what is now the default; it stays accepted for the callers that pass it.
    strict_known: bool = False
    ignore_known: bool = True
    # Plain-data examples evaluated before the drawn ones, in order, counted and recorded like
    # them (``--corpus``: given modules; saved failures replayed from the example database;
    # ``examples`` then counts the drawn ones only, and 0 means none).
    explicit_examples: tuple[Any, ...] = ()
    jobs: int = 0  # worker processes; 0: one per core
    # Examples per message to a worker, their modules compiled together. Measured on FuseOps, CPU
    # per example: 66 ms one by one, 34 ms by 8, 31 ms by 16, 31 ms by 32.
    batch: int = 16
    # Example database (failures saved, replayed first next time): None off (the default from
    # Python), "" the default directory .passcheck/examples (the CLI's default), a directory, or
    # redis://HOST:PORT.
    database: str | None = None
    # Each kernel compiled once per run and shared by the run's workers (False: every module
    # compiled from scratch, as before the cache; what is checked is the same either way)
    kernel_cache: bool = True
    # How examples are drawn (``core/draws.py``): "hypothesis", Hypothesis's own generation, each
    # new example followed by mutants of it; "independent", each example drawn on its own (every
    # one distinct: wider coverage, fewer examples per second where mutants reused kernels)
    draws: str = "hypothesis"

    @property
    def workers(self) -> int:
        return self.jobs if self.jobs > 0 else cpu_count()


def cpu_count() -> int:
    """The cores this process may use (its CPU affinity, not the machine's total)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@plain_data("engine.PropertyStats")
@dataclass
class PropertyStats:
    held: int = 0
    violated: int = 0
    discarded: int = 0  # the unknown ones included
    unknown: int = 0
    drift: int = 0  # numbers differed within the rounding bound (not a finding; not in discarded)
    # How many violating examples gave each message shape (numbers and names of the example
    # blanked): only the first failure is shrunk, so this says whether the others look alike.
    kinds: dict[str, int] = field(default_factory=dict)
    first_message: dict[str, str] = field(default_factory=dict)  # per kind, to recognise known bugs
    known: dict[str, str] = field(default_factory=dict)  # kind -> the known bug it matches
    # known bug -> how many of the violating examples it explains (the table's ``known`` column)
    known_hits: dict[str, int] = field(default_factory=dict)
    drift_kinds: dict[str, int] = field(default_factory=dict)  # as ``kinds``, for drift
    first_drift: dict[str, str] = field(default_factory=dict)  # per drift kind, its first message

    @property
    def known_violations(self) -> int:
        """Violating examples that a known TVM bug explains (``violated`` counts them too)."""
        return sum(self.known_hits.values())

    def count_known(self, message: str, bug: str) -> None:
        """The violating example just counted with ``message`` is the known TVM bug ``bug``."""
        self.known_hits[bug] = self.known_hits.get(bug, 0) + 1
        self.known.setdefault(message_kind(message), bug)

    def count(self, verdict: Verdict, message: str) -> None:
        if verdict == Verdict.HELD:
            self.held += 1
        elif verdict == Verdict.DRIFT:
            self.drift += 1
            k = message_kind(message)
            self.drift_kinds[k] = self.drift_kinds.get(k, 0) + 1
            self.first_drift.setdefault(k, message)
        elif verdict.finding:
            self.violated += 1
            k = message_kind(message)
            self.kinds[k] = self.kinds.get(k, 0) + 1
            self.first_message.setdefault(k, message)
        else:
            self.discarded += 1
            self.unknown += verdict == Verdict.UNKNOWN


@plain_data("engine.Finding")
@dataclass
class Finding:
    property: str
    kind: Verdict
    message: str
    example: Any
    input_script: str = ""
    output_script: str = ""
    repro: str = ""
    shrunk: bool = False
    also_failing: tuple[str, ...] = ()
    known_bug: str | None = None  # the kept repro of the known TVM bug it matches


@plain_data("engine.RunResult")
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
    # Per example whose subject left notes (``ExampleResult.notes``): the notes, the verdict of
    # every property, and why it was rejected if it was (seed models: import/build status).
    example_notes: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds over all examples
    counts: dict[str, int] = field(default_factory=dict)  # event -> times over all examples (kernel cache)
    coverage: dict[str, dict[str, int]] = field(default_factory=dict)  # category -> item -> examples
    replayed: int = 0  # saved failures replayed first from the example database
    tvm: dict[str, str | None] = field(default_factory=dict)  # the TVM it ran on (``TVMBuild.as_dict``)
    # What the run read and refused, one line each (example database values that are not
    # passcheck's plain data: never loaded), and failures it could not save there.
    refused: list[str] = field(default_factory=list)
    # Activity: of the ``measured`` examples (those whose subject says), how many the
    # transformation changed; ``needs`` is what it acts on (the subject's declaration)
    changed: int = 0
    measured: int = 0
    needs: str = ""

    @property
    def activity(self) -> float | None:
        """The share of examples the transformation changed (None: not measured)."""
        return self.changed / self.measured if self.measured else None

    def activity_line(self) -> str:
        """``changed N of M examples (P%)``, or "" when the subject does not measure it."""
        share = self.activity
        if share is None:
            return ""
        return f"changed {self.changed} of {self.measured} examples ({100 * share:.1f}%)"

    def activity_warning(self) -> str:
        """A warning when the transformation changed fewer than LOW_ACTIVITY of the examples: the
        properties held on examples it did nothing to, so they tested little."""
        share = self.activity
        if share is None or share >= LOW_ACTIVITY:
            return ""
        needs = self.needs or "nothing passcheck knows of (declare what it acts on: docs/architecture.md)"
        return (f"{self.subject_name} changed only {self.changed} of {self.measured} examples: the properties held "
                f"mostly on examples it left as they were. It acts on: {needs}")
    # examples a known TVM bug decided (a property's verdict was one), and examples with a new
    # finding: ``tested`` is the examples that tested the pass (every verdict not a known bug's)
    known_examples: int = 0
    new_examples: int = 0
    timeout_s: float = 0.0  # the per-example time limit at the run's end (``timeouts.TimeLimit``)
    timeout_rule: str = ""  # how it was set: --timeout, or adapted to the run's example times

    @property
    def tested(self) -> int:
        """Examples that tested the pass: every property reached a verdict no known bug decided."""
        return self.examples - self.known_examples

    def per_thousand(self, count: int) -> float:
        return 1000.0 * count / self.examples if self.examples else 0.0

    @property
    def ok(self) -> bool:
        """No new finding (with ``strict_known``: no finding at all, known TVM bugs included)."""
        return not (self.findings if self.config.strict_known else self.new_findings)

    @property
    def known_findings(self) -> list[Finding]:
        return [f for f in self.findings if f.known_bug is not None]

    def known_bugs_hit(self) -> dict[str, dict[str, int]]:
        """Known bug -> property -> violating examples it explains, in the order first met."""
        hits: dict[str, dict[str, int]] = {}
        for f in self.known_findings:
            hits.setdefault(f.known_bug or "", {})
        for n, s in self.stats.items():
            for bug, count in s.known_hits.items():
                hits.setdefault(bug, {})[n] = count
        return hits

    @property
    def new_findings(self) -> list[Finding]:
        return [f for f in self.findings if f.known_bug is None]

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (its schema is documented in the README)."""
        cfg = self.config
        return {
            "pass": self.subject_name,
            "impl": cfg.impl,
            "ir": cfg.ir,
            "seed": cfg.seed,
            "draws": cfg.draws,
            "examples": self.examples,
            "examples_requested": cfg.examples,
            "rejected_examples": self.rejected,
            "discarded_examples": self.discarded_examples,
            "duration_s": round(self.duration_s, 3),
            "shrink_s": round(self.shrink_s, 3),
            "examples_per_s": round(self.examples / self.duration_s, 3) if self.duration_s else None,
            "worker_restarts": self.worker_restarts,
            "timeout_s": round(self.timeout_s, 3),
            "timeout_rule": self.timeout_rule,
            "tvm": self.tvm,
            "strict_known": cfg.strict_known,
            "jobs": cfg.workers,
            "replayed": self.replayed,
            "refused": list(self.refused),
            "timings": {k: round(v, 4) for k, v in sorted(self.timings.items(), key=lambda kv: -kv[1])},
            "counts": dict(sorted(self.counts.items())),
            "coverage": {c: dict(sorted(items.items(), key=lambda kv: (-kv[1], kv[0])))
                         for c, items in self.coverage.items()},
            "activity": None if self.activity is None else {
                "changed": self.changed, "examples": self.measured, "share": round(self.activity, 4),
                "warning": self.activity_warning() or None},
            "new_findings": len(self.new_findings),
            # examples that tested the pass (no verdict decided by a known TVM bug), and the
            # examples with a new finding or a known bug, per 1,000 examples
            "tested_examples": self.tested,
            "tested_share": round(self.tested / self.examples, 4) if self.examples else None,
            "findings_per_1000": {"new": round(self.per_thousand(self.new_examples), 2),
                                  "known": round(self.per_thousand(self.known_examples), 2)},
            "known_bugs_hit": self.known_bugs_hit(),
            "findings": [
                {"property": f.property, "kind": str(f.kind), "message": f.message, "repro": f.repro,
                 "shrunk": f.shrunk, "also_failing": list(f.also_failing), "known_bug": f.known_bug}
                for f in self.findings
            ],
            "properties": {n: {"held": s.held, "violated": s.violated, "known": s.known_violations,
                               "discarded": s.discarded,
                               "unknown": s.unknown, "drift": s.drift,
                               # the check could not decide (Z3 gave up, ...), of the examples checked
                               "unknown_rate": round(s.unknown / self.examples, 4) if self.examples else None,
                               "drift_kinds": [{"message": s.first_drift[k], "examples": c}
                                               for k, c in sorted(s.drift_kinds.items(), key=lambda kc: -kc[1])],
                               "violation_kinds": [{"message": k, "examples": c, "known_bug": s.known.get(k)}
                                                   for k, c in sorted(s.kinds.items(), key=lambda kc: -kc[1])]}
                           for n, s in self.stats.items()},
        }


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
    lines = [x.strip().split(", at ")[0] for x in head.splitlines() if x.strip()]
    text = _HEX.sub("ADDR", " / ".join(lines[:2]))
    while _BRACKETS.search(text):
        text = _BRACKETS.sub("…", text)
        text = text.replace("……", "…")
    text = _INDEXED.sub("BUF[…]", re.sub(r"(\w)…", r"\1[…]", text))
    return _QUOTED.sub("'…'", _NUMBER.sub("N", text))[:240]
