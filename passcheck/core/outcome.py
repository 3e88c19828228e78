"""Outcomes, one enum everywhere: what a property said about one example, as plain data that
crosses the worker pipe and ends in reports and repro directory names."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from passcheck.core.data import plain_data


@plain_data("engine.Verdict")
class Verdict(StrEnum):
    HELD = "held"
    DISCARDED = "discarded"  # the property does not apply to this example
    UNKNOWN = "unknown"  # the check could not decide (e.g. Z3 gave up): never a finding
    DRIFT = "drift"  # numbers differ within the rounding bound: reported apart, never a finding
    REJECTED = "rejected"  # the example could not be built: it is not counted at all
    # findings: the value is the kind written in reports and in passcheck-findings/<prop>-<kind>/
    VIOLATION = "violation"
    ILL_FORMED = "ill-formed"
    RAISED = "raised"
    # a pass run before the one under test (LegalizeOps before FuseOps) raised on the example: a
    # TVM failure like any other, so a finding with its repro, never a rejected example
    PREREQUISITE_RAISED = "prerequisite-raised"
    CRASH = "crash"
    HANG = "timeout"

    @property
    def finding(self) -> bool:
        return self in _FINDINGS


_FINDINGS = frozenset({Verdict.VIOLATION, Verdict.ILL_FORMED, Verdict.RAISED, Verdict.PREREQUISITE_RAISED,
                       Verdict.CRASH, Verdict.HANG})
TRANSFORM = "<transform>"  # pseudo-property: the crash/hang happened while building or transforming
BATCH_STAGE = "<batch>"  # a stage of a batch: a crash there is re-run example by example


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    message: str = ""


@dataclass
class ExampleResult:
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    rejected: str | None = None  # the example could not be built: not counted as an example
    discarded: str | None = None  # the transformation refused it by design (e.g. ScheduleError)
    input_script: str = ""  # TVMScript of the input, filled when some property failed
    output_script: str = ""
    seconds: float = 0.0
    # What the subject says about the example, as plain strings (a seed model's import and
    # build status): reports that tabulate examples read them (``RunResult.example_notes``).
    notes: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds (core.timing)
    counts: dict[str, int] = field(default_factory=dict)  # event -> times (core.timing.count)
    coverage: dict[str, tuple[str, ...]] = field(default_factory=dict)  # what it exercised, by category
    # Did the transformation change the example's IR (structurally)? None: the subject does not
    # say. A run counts these: a pass that changed nothing tested nothing (its activity).
    changed: bool | None = None

    @property
    def failed(self) -> dict[str, Outcome]:
        return {k: v for k, v in self.outcomes.items() if v.verdict.finding}
