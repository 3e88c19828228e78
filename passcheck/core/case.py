"""The part of a case every IR kind shares."""

from __future__ import annotations

from typing import Any


class Case:
    """One generated example, transformed. Subclasses add the IR-specific views.

    Attributes every property may rely on:
      ``subject``  the name of the pass/primitive under test (canonical name)
      ``example``  the plain-data description Hypothesis drew (picklable, printable)
      ``before``   the input IRModule as handed to the transformation
      ``after``    the IRModule the transformation returned (None if it raised)
      ``raised``   the exception the transformation raised, or None
    """

    ir = "?"

    def __init__(self, subject: str, example: Any) -> None:
        self.subject = subject
        self.example = example
        self.before: Any = None
        self.after: Any = None
        self.raised: BaseException | None = None
        self.raised_traceback: str = ""
        self._memo: dict[Any, Any] = {}

    def memo(self, key: Any, compute: Any) -> Any:
        """Cache an expensive derived value (a compile, a reference run) across properties."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def executed(self) -> set[str]:
        """The modules the properties compiled and ran on this case (e.g. "after"), so that a
        batch of later cases can have them compiled together ahead (``Subject.prefetch``)."""
        return set()

    def input_script(self) -> str:
        """The input IR as TVMScript (constants included when they round-trip)."""
        return _script(self.before)

    def output_script(self) -> str:
        return _script(self.after) if self.after is not None else ""


def module_script(mod: Any) -> str:
    """``mod`` as TVMScript (constants included when they round-trip; never raises)."""
    return _script(mod)


def _script(mod: Any) -> str:
    if mod is None:
        return ""
    try:
        return mod.script(show_meta=True)
    except Exception:  # noqa: BLE001 - printing must never fail a report
        try:
            return mod.script()
        except Exception as e:  # noqa: BLE001
            return f"# (could not print IR: {type(e).__name__}: {e})"
