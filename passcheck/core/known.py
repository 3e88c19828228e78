"""Known TVM bugs: how a campaign tells a finding it has seen before from a new one.

Every TVM bug passcheck found is kept as a repro under ``tests/`` (an expected finding: the
test fails on purpose once TVM fixes it). Each kept repro is also declared here, by its
family (``passcheck/relax/known_bugs/``, ``passcheck/tir/known_bugs/``), with how to
recognise its finding: the subjects and properties it shows up under and a pattern of the
message or of the IR. A finding that matches is reported as "known TVM bug (kept repro:
NAME)"; it still counts, unless the run is asked to ``--ignore-known``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from passcheck.core.registry import Registry


@dataclass(frozen=True)
class KnownBug:
    name: str  # the kept repro's test function
    repro: str  # where it is kept: "tests/....py::test_name"
    note: str  # one line: what goes wrong, and why it is TVM's
    subjects: tuple[str, ...] = ()  # subject names or groups it shows up under; () = any subject
    properties: tuple[str, ...] = ()  # properties it fails; () = any property
    message: str = ""  # regex searched in the finding's message
    ir: str = ""  # regex searched in the finding's TVMScript and example (input, then output)

    def __post_init__(self) -> None:
        if not (self.message or self.ir):
            raise ValueError(f"known bug {self.name}: give a message or an IR pattern to recognise it by")
        for pattern in (self.message, self.ir):
            re.compile(pattern)
        if re.match(r"(?:\(\?\w+\))?\(\?=", self.ir):
            # re.search retries a leading lookahead at every position of a module's text, which
            # is quadratic: minutes on a module with large constants
            raise ValueError(f"known bug {self.name}: the IR pattern starts with a lookahead; anchor it "
                             f"with \\A, e.g. r'(?s)\\A(?=.*a)(?=.*b)'")

    def matches(self, subject_names: tuple[str, ...], prop: str, message: str, ir: str | None = None) -> bool:
        """Does a finding of ``prop`` under a subject known by ``subject_names`` (names and
        groups) look like this bug? With ``ir=None`` (only the message is known, as for a kind
        of violation) a bug that needs an IR pattern does not match."""
        if self.subjects and not set(self.subjects) & set(subject_names):
            return False
        if self.properties and prop not in self.properties:
            return False
        if self.message and not re.search(self.message, message, re.S):
            return False
        if self.ir:
            return ir is not None and re.search(self.ir, ir, re.S) is not None
        return True


KNOWN_BUGS: Registry[KnownBug] = Registry("known TVM bug", hint="`passcheck list --known` shows them")


def register_known_bug(bug: KnownBug) -> KnownBug:
    return KNOWN_BUGS.add(bug.name, bug)


def recognise(subject: Any, prop: str, message: str, ir: str | None = None) -> KnownBug | None:
    """The first known bug the finding matches (declaration order), or None: a new finding."""
    names = (*subject.names, *subject.groups)
    return next((b for b in KNOWN_BUGS.values() if b.matches(names, prop, message, ir)), None)


def recognise_example(subject: Any, prop: str, example: Any, message: str, input_script: str = "",
                      output_script: str = "") -> KnownBug | None:
    """``recognise`` for a failing example: its IR is the input and output TVMScript and the
    subject's description of the example."""
    ir = "\n".join((input_script, output_script, subject.describe_example(example)))
    return recognise(subject, prop, message, ir)
