"""For the kept repros: the known-bug registry must recognise each one's finding as produced
by the real engine (a worker process: a repro may corrupt memory), and the example a test
checks must be the one passcheck ships (``passcheck known show NAME``, ``--check``)."""

from __future__ import annotations

from typing import Any

from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import plan
from passcheck.core.engine.results import RunConfig
from passcheck.core.known import Repro, load_repros, recognise_example


def assert_recognised(subject: str, prop: str, example: Any, bug: str, ir: str = "relax") -> str:
    p = plan(RunConfig(subject=subject, ir=ir, properties=(prop,), timeout=300))
    with Evaluator(p) as evaluate:
        res = evaluate(example)
    outcome = res.outcomes[prop]
    assert outcome.verdict.finding, outcome
    found = recognise_example(p.subject, prop, example, outcome.message, res.input_script, res.output_script)
    assert found is not None and found.name == bug, (found, outcome.message[:300])
    assert_shipped(bug, p.subject.name, prop, example, p.subject.ir)
    return outcome.message


def assert_shipped(bug: str, subject: str, prop: str, example: Any, ir: str) -> None:
    """``example`` failing ``prop`` under ``subject`` is a kept repro of ``bug`` that passcheck
    ships: the tests and ``passcheck known --check`` run the same examples."""
    shipped = load_repros().get(bug, [])
    assert Repro(bug, subject, prop, example, ir) in shipped, (
        f"{bug}: this example is not among the {len(shipped)} shipped repros; add it to the module for its kind "
        f"under passcheck/{ir}/known_bugs/repros/: keep_repro({bug!r}, {subject!r}, {prop!r}, <the example>"
        + (', ir="tir")' if ir == "tir" else ")"))
