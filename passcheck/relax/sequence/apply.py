"""A pass sequence as plain data, and running it: each drawn pass after whatever it requires
that the sequence has not run yet, every intermediate module kept, the first step that raises
blamed."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

from passcheck.core.data import plain_data
from passcheck.relax.sequence.steps import Args, kind, lowering_order, make_pass


@plain_data("relax.sequence.Step")
@dataclass(frozen=True)
class Step:
    name: str  # a relax.transform pass
    args: Args = ()


@plain_data("relax.PassSequence")
@dataclass(frozen=True)
class PassSequence:
    """``steps`` (the drawn passes; prerequisites are added when it runs) applied to ``graph``
    (a drawn graph, a mutant, a seed model)."""

    graph: Any
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Applied:
    name: str
    args: Args
    role: str  # "drawn" or "prerequisite of X"

    def label(self, i: int, n: int) -> str:
        what = self.name + (f"{dict(self.args)}" if self.args else "")
        return f"step {i + 1}/{n} {what}" + ("" if self.role == "drawn" else f" ({self.role})")


def expand(steps: tuple[Step, ...]) -> list[Applied]:
    """The passes as they run: each drawn one preceded by its missing prerequisites."""
    done: list[str] = []
    out: list[Applied] = []
    for s in steps:
        for r in kind(s.name).requires:
            if r not in done:
                out.append(Applied(r, (), f"prerequisite of {s.name}"))
                done.append(r)
        out.append(Applied(s.name, s.args, "drawn"))
        done.append(s.name)
    return out


def remaining_lowering(applied: list[Applied]) -> tuple[str, ...]:
    """The lowering passes of tvm.compile a module still needs after ``applied``: all of them,
    or those after the last lowering pass the sequence ran."""
    last = max((kind(a.name).lowering for a in applied), default=0)
    return lowering_order() if last == 0 else lowering_order()[last:]


@dataclass
class Ran:
    """What running a sequence gave: each step's output module, and the step that raised."""

    applied: list[Applied]
    modules: list[Any]  # output of applied[i], for the steps that ran
    error: BaseException | None = None
    error_text: str = ""

    @property
    def final(self) -> Any:
        return None if self.error is not None else (self.modules[-1] if self.modules else None)


def run_sequence(mod: Any, applied: list[Applied]) -> Ran:
    import tvm

    ran = Ran(applied, [])
    n = len(applied)
    for i, a in enumerate(applied):
        try:
            with tvm.transform.PassContext(opt_level=3):
                mod = make_pass(a.name, a.args)(mod)
        except Exception as e:  # noqa: BLE001 - a step raising is a finding, blamed on it
            ran.error = e
            ran.error_text = f"{a.label(i, n)} raised " + \
                "".join(traceback.format_exception_only(type(e), e)).strip()
            break
        ran.modules.append(mod)
    return ran
