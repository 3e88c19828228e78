"""Shared by the test_tvm_bugs_*.py modules: expected findings, real bugs of TVM 0.27's
schedule primitives that passcheck found (the list is in TVM_BUGS.md beside this file). The
case helpers serve the other TIR tests too.

Each test keeps a minimal repro (a PrimFunc spec plus the schedule steps, as the runner prints
them) and asserts that the bug is still there *and* that the right passcheck property reports
it. When a TVM upgrade fixes one, its test fails on purpose: turn it into a regression test.
"""

from __future__ import annotations

from typing import Any

import pytest

from passcheck.core.errors import Violation
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


def rca(block: str, loop: int, target: str) -> Step:
    return Step("reverse_compute_at", block, (loop,), (("target", target), ("preserve_unit_loops", False), ("index", -1)))


def tensorize_steps(row_factor: int, k: int = 4, keep: bool = True) -> tuple[Step, ...]:
    return (Step("split", "matmul", (0,), (("factors", (None, row_factor)), ("preserve_unit_iters", True))),
            Step("split", "matmul", (3,), (("factors", (None, k)), ("preserve_unit_iters", True))),
            Step("decompose_reduction", "matmul", (0,)),
            Step("tensorize", "matmul", (4,), (("k", k), ("preserve_unit_iters", keep))))
