"""Shared by the test_tvm_bugs_*.py modules: expected findings, real bugs of TVM 0.27's
schedule primitives that passcheck found (the list is in TVM_BUGS.md beside this file). The
case helpers serve the other TIR tests too.

Each test keeps a minimal repro (a PrimFunc spec plus the schedule steps, as the runner prints
them) and asserts that the bug is still there, that the right passcheck property reports it,
and that the known-bug registry (passcheck/tir/known_bugs/) recognises that finding as this
repro's (``known_violation``). When a TVM upgrade fixes one, its test fails on purpose: turn it
into a regression test and drop its declaration.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
from known_bug_check import assert_shipped

from passcheck.core.errors import Violation
from passcheck.core.known import KNOWN_BUGS, recognise_example
from passcheck.core.subject import Options
from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step
from passcheck.tir.subjects import tir_subject

OPTS = Options()


def case_of(subject: str, spec: PrimFuncSpec, *steps: Step, prefix: int = 0) -> Any:
    return tir_subject(subject).make_case(ScheduleExample(spec, steps, prefix), None, OPTS)


def example_case(subject: str, example: ScheduleExample) -> Any:
    return tir_subject(subject).make_case(example, None, OPTS)


def violation(prop: Any, case: Any) -> str:
    with pytest.raises(Violation) as e:
        prop(case)
    return str(e.value)


def known_violation(prop: Any, case: Any, bug: str | None = None) -> str:
    """``violation``, and the known-bug registry recognises it as the kept repro ``bug`` (by
    default the calling test: a kept repro's name is its test function's)."""
    msg = violation(prop, case)
    assert_only(bug or sys._getframe(1).f_code.co_name, tir_subject(case.subject), prop.__name__, case.example, msg,
                case.input_script(), case.output_script())
    return msg


def assert_only(bug: str, subject: Any, prop: str, example: Any, message: str, input_script: str,
                output_script: str) -> None:
    """The registry recognises the finding as ``bug``, and no other kept repro's declaration
    matches it too (none swallows another's finding)."""
    found = recognise_example(subject, prop, example, message, input_script, output_script)
    assert found is not None and found.name == bug, (found and found.name, message[:600])
    ir = "\n".join((input_script, output_script, subject.describe_example(example)))
    names = (*subject.names, *subject.groups)
    also = [b.name for b in KNOWN_BUGS.values() if b.name != bug and b.matches(names, prop, message, ir)]
    assert not also, f"{bug}'s finding also matches {also}"
    assert_shipped(bug, subject.name, prop, example, subject.ir)


def engine_recognises(subject: str, prop: str, example: Any, bug: str) -> str:
    """Run ``example`` through the real engine (a worker process: the repro may crash it); the
    finding of ``prop`` must be recognised as the kept repro ``bug``. Returns its message."""
    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    p = plan(RunConfig(subject=subject, ir="tir", properties=(prop,), timeout=300))
    with Evaluator(p) as evaluate:
        res = evaluate(example)
    outcome = res.outcomes[prop]
    assert outcome.verdict.finding, outcome
    assert_only(bug, p.subject, prop, example, outcome.message, res.input_script, res.output_script)
    return outcome.message


def rca(block: str, loop: int, target: str) -> Step:
    return Step("reverse_compute_at", block, (loop,), (("target", target), ("preserve_unit_loops", False), ("index", -1)))


def tensorize_steps(row_factor: int, k: int = 4, keep: bool = True) -> tuple[Step, ...]:
    return (Step("split", "matmul", (0,), (("factors", (None, row_factor)), ("preserve_unit_iters", True))),
            Step("split", "matmul", (3,), (("factors", (None, k)), ("preserve_unit_iters", True))),
            Step("decompose_reduction", "matmul", (0,)),
            Step("tensorize", "matmul", (4,), (("k", k), ("preserve_unit_iters", keep))))
