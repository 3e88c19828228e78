"""Plain-data results that cross the worker pipe."""

from __future__ import annotations

from dataclasses import dataclass, field

HELD, VIOLATED, DISCARDED = "held", "violated", "discarded"
KINDS = ("violation", "raised", "crash", "timeout", "ill-formed")
TRANSFORM = "<transform>"  # pseudo-property: the crash/hang happened while building or transforming


@dataclass(frozen=True)
class Outcome:
    status: str  # HELD | VIOLATED | DISCARDED
    kind: str = ""  # one of KINDS when violated
    message: str = ""


@dataclass
class ExampleResult:
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    rejected: str | None = None  # the example could not be built: not counted as an example
    discarded: str | None = None  # the transformation refused it by design (e.g. ScheduleError)
    input_script: str = ""  # TVMScript of the input, filled when some property failed
    output_script: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> dict[str, Outcome]:
        return {k: v for k, v in self.outcomes.items() if v.status == VIOLATED}
