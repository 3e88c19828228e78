"""What the runner needs from anything under test (a Relax pass, a TIR primitive, ...).

A *subject* knows how to draw plain-data examples (in the runner process, with Hypothesis)
and how to turn one example into a ``Case`` by building the IR and applying the
transformation (in the worker process, where TVM runs). Properties are matched to a subject
by its ``ir`` and its names.

Subjects are declared by their IR family (``register_subject``) and found by name. A family also
registers a ``Family``: how it turns a name it understands but did not declare (any
``relax.transform`` pass by name), or a user's implementation given as an import spec, into a
subject.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from passcheck.core.data import plain_data
from passcheck.core.errors import UsageError
from passcheck.core.loading import looks_like_spec
from passcheck.core.registry import Registry

# ``Options.extra`` keys every entry point spells the same way (a family reads them)
MUTATE = "mutate"  # rounds of metamorphic mutation of each example (0: none)
SEED_MODELS = "seed_models"  # models to check as they are and to draw from (paths, corpus names)


@plain_data("engine.Options")
@dataclass(frozen=True)
class Options:
    """Run options a subject may read (all plain data: they travel to the worker)."""

    allow_special_values: bool = False  # NaN/Inf inputs
    impl: str | None = None  # the --impl spec, if any
    drift_findings: bool = False  # numeric drift (Verdict.DRIFT) counts as a violation
    extra: tuple[tuple[str, Any], ...] = field(default=())


class Subject(ABC):
    name: str = ""
    aliases: tuple[str, ...] = ()
    # Groups it belongs to: a property declared for a group (``@prop("schedule-primitives")``)
    # applies to every member, including ones declared later.
    groups: tuple[str, ...] = ()
    ir: str = "relax"
    summary: str = ""
    # What the transformation acts on, named in the warning of a run where it changed almost no
    # example ("" : nothing declared)
    needs: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def needs_impl(self) -> bool:
        """True when the subject is only a name for the user's implementation (PASS given as
        an import spec): the runner then hands that spec to ``make_case`` as ``impl``."""
        return False

    def check_impl(self, impl: Any, spec: str) -> None:
        """Fail fast with a UsageError when ``impl`` (loaded from ``spec``) cannot serve as this
        subject's implementation; the default accepts what ``load_impl`` accepted."""
        return None

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

    def simplifications(self, example: Any) -> Iterable[Any]:
        """Smaller variants of a failing example that Hypothesis's shrinking cannot reach (a
        graph without an op in the middle), tried after it; none by default."""
        return ()

    def prefetch(self, cases: list[Any], modules: list[str]) -> None:
        """Compile and run ``modules`` (names ``case.executed()`` gave) of several cases at once
        and leave the outputs on each case, so its properties find them computed. It must give
        exactly what each case would compute alone, and leave a case as it was where it cannot
        (its property then computes it and meets the same failure); nothing by default."""
        return None

    def changed(self, case: Any) -> bool | None:
        """Whether the transformation changed the example's IR structurally (its output differs
        from its input); None when the subject cannot say (not counted in the activity)."""
        return None

    def coverage(self, example: Any, case: Any | None) -> dict[str, tuple[str, ...]]:
        """What this example exercised, by category (ops, op pairs, dtypes, primitives, ...),
        for the coverage report; ``case`` is None when the transformation refused it."""
        return {}

    def save_inputs(self, example: Any, directory: Path) -> None:
        """Write the example's concrete inputs beside its repro (a convenience: the repro
        rebuilds them); nothing by default."""
        return None

    def describe_example(self, example: Any) -> str:
        """A short one-line description for reports."""
        return repr(example)[:200]

    def explicit_examples(self, options: Options) -> tuple[tuple[Any, ...], bool]:
        """Examples to check first, each as it is (seed models), and whether to draw others
        after them; none by default. Runs in the runner: a bad option is a UsageError."""
        return (), True


@dataclass(frozen=True)
class Family:
    """What an IR family adds to name resolution beyond the subjects it declares."""

    ir: str
    custom: Callable[[str], Subject]  # PASS given as an import spec: the user's transformation
    by_name: Callable[[str], Subject | None] = lambda name: None  # names it understands undeclared
    candidates: Callable[[], list[str]] = list  # more names for "did you mean"


_SUBJECTS: Registry[Subject] = Registry("pass", hint="`passcheck list` shows the passes and primitives")
_FAMILIES: Registry[Family] = Registry("IR family")


def register_subject(subject: Subject) -> Subject:
    _SUBJECTS.add(subject.name, subject)
    return subject


def unregister_subject(name: str) -> None:
    _SUBJECTS.remove(name)


def register_family(family: Family) -> Family:
    return _FAMILIES.add(family.ir, family, replace=True)


def family_irs() -> tuple[str, ...]:
    from passcheck.core.plugins import load_families

    load_families()
    return _FAMILIES.names()


def known_subjects() -> dict[str, Subject]:
    """Every declared subject, by canonical name, in declaration order."""
    from passcheck.core.plugins import load_families

    load_families()
    return dict(_SUBJECTS.items())


def resolve(name: str, ir: str = "relax") -> Subject:
    """The subject for ``name`` (a declared name or alias, a name a family understands, or an
    import spec for the family ``ir``); a UsageError with a suggestion when unknown."""
    low = name.lower()
    # A worker has imported its subject's family already: it need not import the others.
    for subjects in (dict(_SUBJECTS.items()), known_subjects()):
        for s in subjects.values():
            if low in (n.lower() for n in s.names):
                return s
    if "@" in name:
        # NAME@TARGET (e.g. bind@cuda:sm_90): a family's variant of NAME for a target, which
        # may itself be an import spec; the family asked for (``ir``) answers first.
        for family in sorted(_FAMILIES.values(), key=lambda f: f.ir != ir):
            found = family.by_name(name)
            if found is not None:
                return found
    if looks_like_spec(name):
        family = _FAMILIES.find(ir)
        if family is None:
            raise UsageError(f"--ir {ir}: no such IR family; use one of {', '.join(_FAMILIES.names())}")
        return family.custom(name)
    for family in _FAMILIES.values():
        found = family.by_name(name)
        if found is not None:
            return found
    import difflib

    names = sorted({n for s in subjects.values() for n in s.names if "." not in n})
    extra = [c for f in _FAMILIES.values() for c in f.candidates()]
    close = difflib.get_close_matches(name, names + extra, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise UsageError(f"unknown pass {name!r}{hint}; `passcheck list` shows the passes and primitives, "
                     "or give an implementation as module:attr")
