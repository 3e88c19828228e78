"""Exceptions that carry meaning across the engine.

Three families, kept apart because they end differently:
* ``UsageError``: the user's input is wrong (exit code 2, one line, no traceback).
* ``Violation`` / ``IllFormed`` / ``Discard`` / ``Unknown``: raised by properties about one example.
* anything else inside passcheck is an internal error (exit code 3).
"""

from __future__ import annotations

import re


class UsageError(Exception):
    """Bad input from the user: the message says what to do instead."""


class Violation(AssertionError):
    """A property does not hold on this example."""

    kind = "violation"


class IllFormed(Violation):
    """The pass produced IR that is not well-formed (or changed its types)."""

    kind = "ill-formed"


class PrerequisiteRaised(Violation):
    """A pass the subject runs before the one under test raised on this example."""

    kind = "prerequisite-raised"


class Discard(Exception):
    """The property does not apply to this example (counted as discarded, not as held)."""


class Unknown(Discard):
    """The property applies but its check could not decide (a solver timeout, a model it cannot
    confirm): counted with the discarded examples and reported apart, never a finding."""


class Drift(Discard):
    """Two computations of the same function differ, but each within the accumulated rounding
    bound of the computation: numeric drift, not a logic error. Counted and reported apart,
    never a finding (unless the run treats drift as findings)."""


class GeneratorRejected(Exception):
    """The IR builder could not build this drawn description; the example is discarded.
    ``notes`` (plain strings) say why, for reports that tabulate examples (a seed model the
    frontend cannot import)."""

    def __init__(self, message: str = "", notes: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.notes = dict(notes or {})


def discard(reason: str = "not applicable") -> None:
    """Mark the current example as not applicable to the running property."""
    raise Discard(reason)


def drift(reason: str) -> None:
    """Report numeric drift on the current example (see ``Drift``)."""
    raise Drift(reason)


def unknown(reason: str) -> None:
    """Mark the current example as undecided by the running property (see ``Unknown``)."""
    raise Unknown(reason)


def require(condition: object, message: str) -> None:
    """Raise ``Violation(message)`` unless ``condition`` holds."""
    if not condition:
        raise Violation(message)


def error_line(e: BaseException, limit: int = 400) -> str:
    """The line of an exception's message that says what went wrong: the last one, skipping
    TVM's trailing "# Metadata omitted ..." note (printed after the IR of some errors, it hid the
    failed check above it), and before the IR TVM prints after an error raised inside a pass (its
    "Error in pass: NAME" and "Location (TVMScript):" block, whose last line is the module's
    ``return``), with the pass's name."""
    text, _, where = str(e).strip().partition("\nError in pass: ")
    text = text.partition("\nLocation (TVMScript):")[0]
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("# Metadata omitted")]
    if where and lines:
        lines[-1] += f" (in {where.splitlines()[0].strip()})"
    # TVM's type checks start with the op's full repr (its argument docs: hundreds of characters),
    # which left the limit no room for what failed: the op's name says the same
    return without_op_reprs(lines[-1])[:limit] if lines else ""


def without_op_reprs(text: str) -> str:
    """``text`` with each of TVM's full ``ir.Op(...)`` reprs (its argument docs: hundreds of
    characters) shortened to the op's name."""
    return _OP_REPR.sub(r"\1", text)


_OP_REPR = re.compile(r'ir\.Op\(span=.*?name="([^"]+)".*?support_level=\d+\)')
