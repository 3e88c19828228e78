"""Regexes over what a TIR finding says: every TIR property's message ends with the schedule
that was applied, one call per line (``sch.split(...)``; a step that raised reads
``split(...)  # raised InternalError``), and a crash's example describes its steps
(``split('ew0', loops=[0], ...); fuse(...)``). Primitive names are matched whole: ``compute_at``
never matches ``reverse_compute_at``. The patterns are searched with ``re.S`` (``.`` crosses lines)."""

from __future__ import annotations

from passcheck.core.known import KnownBug, register_known_bug

SCHEDULE = "schedule"  # the subject of random sequences: every bug can show up there


# A step the schedule refused is in the trace too (``# refused: write_at(...) (ScheduleError...)``)
# but changed nothing: it is never the call a bug needs.
_NOT_REFUSED = r"(?<!# refused: )"


def call(prim: str, args: str = "", first: str = "") -> str:
    """A call of ``prim`` (a regex alternative such as ``read_at|write_at`` allowed) whose first
    argument is the quoted name ``first`` and whose arguments, on the same line, match ``args``
    (a step the schedule refused does not count)."""
    head = rf"{_NOT_REFUSED}\b(?:{prim})\(" + (rf"'(?:{first})'" if first else "")
    return head + rf"[^\n]*{args}" if args else head


_CALL = _NOT_REFUSED + r"\b(?:"  # how every ``call`` starts: a part that does is a call pattern already


def calls(*prims: str) -> str:
    """The schedule calls ``prims`` (names, alternatives of names, or ``call`` patterns, also
    joined with ``|``) in this order, other calls before, between and after."""
    return ".*".join(f"(?:{p if p.startswith(_CALL) else call(p)})" for p in prims)


def violated(what: str, *prims: str) -> str:
    """A message saying ``what`` about a schedule that calls ``prims`` in order."""
    return f"(?:{what}).*" + calls(*prims)


def raised(prim: str, error: str) -> str:
    """``prim`` raised, instead of refusing with a ScheduleError, an error saying ``error``."""
    return rf"raised \w+: .*?{error}.*\b(?:{prim})\([^\n]*# raised \w+"


OUT_OF_BOUNDS = "accesses memory out of bounds"
WRONG_VALUES = "computes different values"
UNINIT = "reads memory no store wrote before"
MISSING = r"\(missing\)"
ILL_FORMED = "verify_well_formed rejects"
NOT_BUILT = r"compiling/running the output of \w+ raised"
CRASHED = "the worker process died"


def bug(file: str, name: str, note: str, subjects: tuple[str, ...], properties: tuple[str, ...],
        message: str = "", ir: str = "") -> None:
    """Declare the kept repro ``tests/tir/<file>.py::<name>``."""
    register_known_bug(KnownBug(name=name, repro=f"tests/tir/{file}.py::{name}", note=note, subjects=subjects,
                                properties=properties, message=message, ir=ir))
