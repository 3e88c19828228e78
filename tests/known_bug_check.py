"""For the kept repros: the known-bug registry must recognise each one's finding as produced
by the real engine (a worker process: a repro may corrupt memory)."""

from __future__ import annotations

from typing import Any

from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import plan
from passcheck.core.engine.results import RunConfig
from passcheck.core.known import recognise_example


def assert_recognised(subject: str, prop: str, example: Any, bug: str, ir: str = "relax") -> str:
    p = plan(RunConfig(subject=subject, ir=ir, properties=(prop,), timeout=300))
    with Evaluator(p) as evaluate:
        res = evaluate(example)
    outcome = res.outcomes[prop]
    assert outcome.verdict.finding, outcome
    found = recognise_example(p.subject, prop, example, outcome.message, res.input_script, res.output_script)
    assert found is not None and found.name == bug, (found, outcome.message[:300])
    return outcome.message
