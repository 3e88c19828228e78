"""What a primitive's draw sees and what a drawn example is.

A draw sees a ``View`` of the blocks (names and iterator kinds, derived from the PrimFunc spec
and updated by earlier steps of a sequence), never TVM. An example is a ``ScheduleExample``:
the spec, the steps, and how many of them are preparation (applied before the steps under
test; the case's ``before`` is the module after them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from passcheck.core.data import plain_data
from passcheck.tir.kernels import PrimFuncSpec, StageInfo
from passcheck.tir.schedule.step import Step


@dataclass(frozen=True)
class View:
    """The blocks a later step may target, best known without running TVM."""

    stages: tuple[StageInfo, ...]

    def where(self, pred: Callable[[int, StageInfo], bool]) -> list[StageInfo]:
        return [s for i, s in enumerate(self.stages) if pred(i, s)]

    def index(self, name: str) -> int:
        for i, s in enumerate(self.stages):
            if s.name == name:
                return i
        return -1


@plain_data("tir.ScheduleExample")
@dataclass(frozen=True)
class ScheduleExample:
    spec: PrimFuncSpec
    steps: tuple[Step, ...]
    prefix: int = 0  # steps[:prefix] prepare; steps[prefix:] are under test

    def describe(self) -> str:
        steps = "; ".join(s.describe() for s in self.steps)
        prep = f" (first {self.prefix} preparatory)" if self.prefix else ""
        return f"{self.spec.short()} | {steps}{prep}"
