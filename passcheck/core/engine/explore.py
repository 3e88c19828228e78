"""Stages 2 and 5, draw and record: Hypothesis draws every example, the evaluator applies and
checks it, and the record keeps every property's counts and its first failing example.

The explore run never fails its Hypothesis test, so the counts cover all examples; shrinking
is a separate run over the same seed (``shrink``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, example, given, reject, seed, settings
from hypothesis.errors import Unsatisfiable

from passcheck.core.engine.plan import Plan
from passcheck.core.engine.results import PropertyStats
from passcheck.core.outcome import ExampleResult, Outcome

Evaluate = Callable[[Any], ExampleResult]
Progress = Callable[[str, int, int, int], None]  # (phase, done, total, findings)


def hypothesis_settings(examples: int, phases: list[Phase]) -> settings:
    if examples < 1:  # only the explicit examples (Hypothesis wants max_examples >= 1)
        examples, phases = 1, [p for p in phases if p == Phase.explicit]
    return settings(max_examples=examples, phases=phases, deadline=None, database=None,
                    report_multiple_bugs=True, suppress_health_check=list(HealthCheck),
                    print_blob=False, verbosity=Verbosity.quiet)


@dataclass
class Record:
    """What the explore run saw, example by example."""

    names: tuple[str, ...]
    stats: dict[str, PropertyStats] = field(default_factory=dict)
    first_fail: dict[str, tuple[Any, Outcome, ExampleResult]] = field(default_factory=dict)
    first_call: dict[str, int] = field(default_factory=dict)  # draw index (rejected ones included)
    examples: int = 0
    rejected: int = 0
    discarded: int = 0
    notes: list[dict[str, Any]] = field(default_factory=list)  # see RunResult.example_notes

    def __post_init__(self) -> None:
        self.stats = {n: PropertyStats() for n in self.names}

    def add(self, example: Any, res: ExampleResult) -> None:
        if res.notes:
            self.notes.append({"notes": res.notes, "rejected": res.rejected,
                               "verdicts": {n: o.verdict.value for n, o in res.outcomes.items()}})
        if res.rejected is not None:
            self.rejected += 1
            return
        self.examples += 1
        if res.discarded is not None:
            self.discarded += 1
        for n, o in res.outcomes.items():
            self.stats[n].count(o.verdict, o.message)
            if o.verdict.finding and n not in self.first_fail:
                self.first_fail[n] = (example, o, res)
                self.first_call[n] = self.examples + self.rejected


def with_explicit(plan: Plan, test: Callable[[Any], None]) -> Callable[[Any], None]:
    """``test`` with the run's explicit examples (``RunConfig.explicit_examples``), evaluated
    first and in order (Hypothesis's explicit phase runs the outermost ``@example`` first)."""
    for ex in reversed(plan.config.explicit_examples):
        test = example(ex)(test)
    return test


def explore(plan: Plan, evaluate: Evaluate, progress: Progress | None = None) -> Record:
    config = plan.config
    record = Record(plan.properties)
    total = config.examples + len(config.explicit_examples)

    @seed(config.seed)
    @hypothesis_settings(config.examples, [Phase.explicit, Phase.generate])
    @given(plan.strategy())
    @partial(with_explicit, plan)
    def draw(example: Any) -> None:
        res = evaluate(example)
        record.add(example, res)
        if res.rejected is not None:
            reject()
        if progress:
            progress("explore", record.examples, total, len(record.first_fail))

    try:
        draw()
    except Unsatisfiable:
        pass
    return record
