"""What the runner needs from anything under test (a Relax pass, a TIR primitive, ...).

A *subject* knows how to draw plain-data examples (in the runner process, with Hypothesis)
and how to turn one example into a ``Case`` by building the IR and applying the
transformation (in the worker process, where TVM runs). Properties are matched to a subject
by its ``ir`` and its names.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st


@dataclass(frozen=True)
class Options:
    """Run options a subject may read (all plain data: they travel to the worker)."""

    allow_special_values: bool = False  # NaN/Inf inputs
    impl: str | None = None  # the --impl spec, if any
    extra: tuple[tuple[str, Any], ...] = field(default=())


class Subject(ABC):
    name: str = ""
    aliases: tuple[str, ...] = ()
    ir: str = "relax"
    summary: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def needs_impl(self) -> bool:
        """True when the subject is only a name for the user's implementation (PASS given as
        an import spec): the runner then hands that spec to ``make_case`` as ``impl``."""
        return False

    @abstractmethod
    def strategy(self, options: Options) -> st.SearchStrategy[Any]:
        """Hypothesis strategy of plain-data examples (picklable; IR is built later)."""

    @abstractmethod
    def make_case(self, example: Any, impl: Any | None, options: Options) -> Any:
        """Build the IR for ``example``, apply the transformation (``impl`` replaces the
        built-in one when given), and return the ``Case``. An exception from the
        transformation itself is stored on the case (``case.raised``), not raised. Raise
        ``GeneratorRejected`` when the example cannot be built (it is discarded), or
        ``Discard`` when the transformation refuses the example by design (e.g. a schedule
        primitive's ScheduleError: counted as discarded)."""

    def describe_example(self, example: Any) -> str:
        """A short one-line description for reports."""
        return repr(example)[:200]
