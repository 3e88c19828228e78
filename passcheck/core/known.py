"""Known TVM bugs: how a campaign tells a finding it has seen before from a new one.

Every TVM bug passcheck found is kept as a repro under ``tests/`` (an expected finding: the
test fails on purpose once TVM fixes it). Each kept repro is also declared here, by its
family (``passcheck/relax/known_bugs/``, ``passcheck/tir/known_bugs/``), with how to
recognise its finding: the subjects and properties it shows up under and a pattern of the
message or of the IR, and the TVM it was seen on. A finding that matches is a known TVM bug:
as pytest's xfail, it is listed apart and does not fail the run (``--strict-known`` makes it
fail), and it is not shrunk (its kept repro is the minimal example).

The kept repros themselves ship with passcheck as plain data (``Repro``: a subject, a
property and the example that fails it), in each family's ``known_bugs/repros/`` package,
loaded on demand (``load_repros``): ``passcheck known show NAME`` prints one as a runnable
script, ``passcheck known --check`` runs them all on the installed TVM and says which still
reproduce and which are fixed. The tests under ``tests/`` check the same examples.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass
from typing import Any

from passcheck.core.registry import Registry, import_submodules

# The TVM the registry's bugs were found on: the PyPI wheel, which records no git commit
# (``tvm.support.libinfo()`` has none). A bug found on another build says so in its declaration.
SEEN_ON = "0.27.0.post1"


@dataclass(frozen=True)
class KnownBug:
    name: str  # the kept repro's test function
    repro: str  # where it is kept: "tests/....py::test_name"
    note: str  # one line: what goes wrong, and why it is TVM's
    subjects: tuple[str, ...] = ()  # subject names or groups it shows up under; () = any subject
    properties: tuple[str, ...] = ()  # properties it fails; () = any property
    message: str = ""  # regex searched in the finding's message
    ir: str = ""  # regex searched in the finding's TVMScript and example (input, then output)
    seen_on: str = SEEN_ON  # the TVM version it was found and kept on
    seen_commit: str | None = None  # and its git commit, where the build records one
    # When the bug does not show on every machine or every run (a CPU feature, uninitialised
    # memory): its kept repro holding there is no sign of a fix (``known --check``: not shown).
    shows_on: str = ""
    # Its wrong values are memory the kernel should not read (before a buffer, never written):
    # they differ from run to run, and a run may happen to get them right. A stock pass that holds
    # once is no evidence against it (``--impl``: engine/stock.py runs it again).
    varies: bool = False
    # Where the generator knows the drawn feature that triggers this bug (``relax/budget.py``), it
    # draws that feature with this chance, never zero: a known bug takes a budget of the run, not
    # the share of the vocabulary its feature happens to have (a fifth of AlterOpLayout's).
    drawn_rate: float = 0.01

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


KNOWN_BUGS: Registry[KnownBug] = Registry("known TVM bug", hint="`passcheck known` lists them")


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


@dataclass(frozen=True)
class Repro:
    """A kept repro: ``example`` (plain data: it prints as Python and rebuilds from what it
    prints) fails ``prop`` under ``subject`` (of family ``ir``) with the known bug's finding; or,
    for a bug no example passcheck draws reaches any more, ``script``: a Python program using
    TVM alone that exits 1 while the bug reproduces and 0 once it is fixed."""

    bug: str
    subject: str = ""
    prop: str = ""
    example: Any = None
    ir: str = "relax"
    script: str = ""


REPROS: dict[str, list[Repro]] = {}


def keep_repro(bug: str, subject: str, prop: str, example: Any, ir: str = "relax") -> None:
    """Declare a shipped repro of the known bug ``bug`` (in a ``known_bugs/repros/`` module)."""
    REPROS.setdefault(bug, []).append(Repro(bug, subject, prop, example, ir))


def keep_script(bug: str, script: str) -> None:
    """Declare a shipped repro of ``bug`` as a standalone TVM program (exit 1 while it reproduces)."""
    REPROS.setdefault(bug, []).append(Repro(bug, script=script))


_LOADED: set[str] = set()  # the repros packages whose modules are imported


def load_repros() -> dict[str, list[Repro]]:
    """Import the modules of the ``repros`` package beside every loaded ``known_bugs`` package
    (passcheck's families and any third party's) once; the shipped repros, by bug. (Once per
    package here, not "once it is in sys.modules": an ``import ...known_bugs.repros`` elsewhere
    loads the package without its modules, and every repro was then missing.)"""
    for name in [m for m in list(sys.modules) if m.endswith(".known_bugs")]:
        package = f"{name}.repros"
        if package not in _LOADED and hasattr(sys.modules[name], "__path__") and \
                importlib.util.find_spec(package) is not None:
            import_submodules(package)
            _LOADED.add(package)
    return REPROS
