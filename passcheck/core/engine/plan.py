"""Stage 1, resolve: what is under test, with which properties, and what the worker must load.

Resolving happens once, in the runner, where a bad input becomes a one-line usage error before
any example is drawn; the worker gets the result as plain data (``WorkerConfig``) and loads the
same things by module name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from passcheck.core import property as props
from passcheck.core.engine.results import RunConfig
from passcheck.core.errors import UsageError
from passcheck.core.loading import load_impl
from passcheck.core.subject import Options, Subject, resolve
from passcheck.core.tvm_build import require_supported


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker needs to rebuild the plan: names and paths only (it crosses a pipe)."""

    subject: str
    ir: str
    impl: str | None
    properties: tuple[str, ...]  # names of the properties to check, in order
    property_modules: tuple[str, ...]  # modules that declare them (imported by name)
    property_files: tuple[str, ...]  # user files that declare them (loaded by path)
    options: Options
    subject_module: str = ""  # the module that declares the subject (its family is imported with it)
    run_dir: str = ""  # the run's own directory (core.workdir; "" when the run keeps none)

    @property
    def preload(self) -> tuple[str, ...]:
        """What a worker imports before its first example (its fork server does it once)."""
        return tuple(m for m in (self.subject_module, *self.property_modules) if m)


@dataclass(frozen=True)
class Plan:
    config: RunConfig
    subject: Subject
    properties: tuple[str, ...]
    impl: str | None  # the implementation spec under test, if any

    def worker_config(self, run_dir: str = "") -> WorkerConfig:
        chosen = [props.get(n) for n in self.properties]
        modules = tuple(dict.fromkeys(p.module for p in chosen if p.origin == "module"))
        files = tuple(dict.fromkeys(str(Path(p.origin).resolve()) for p in chosen if p.origin != "module"))
        return WorkerConfig(self.subject.name, self.config.ir, self.impl, self.properties, modules, files,
                            self.config.options, type(self.subject).__module__, run_dir)

    def strategy(self) -> Any:
        return self.subject.strategy(self.config.options)


def select_properties(config: RunConfig, subject: Subject) -> tuple[str, ...]:
    """The properties that apply to ``subject``: generic ones first, then the subject's own,
    each in declaration order (or those the config names)."""
    packages = props.load_builtin()
    files = {str(Path(f).resolve()) for f in config.property_files}
    for f in config.property_files:
        props.load_file(f)

    def loadable(p: props.Property) -> bool:
        # Only what the worker can load too: a property declared some other way in this
        # process (a test module, __main__) does not exist there.
        if p.origin == "module":
            return props.importable(p, packages)
        return str(Path(p.origin).resolve()) in files

    applicable = [p for p in props.all_properties() if p.applies_to(subject.names + subject.groups, subject.ir) and loadable(p)]
    applicable.sort(key=lambda p: not p.generic)
    if config.properties:
        names = []
        for n in config.properties:
            p = props.get(n)
            if p not in applicable and not loadable(p):
                raise UsageError(f"property {n!r} comes from {p.origin} {p.module}; put it in a file and pass "
                                 "it with --properties (property_files=...) so the worker can load it")
            if p not in applicable:
                raise UsageError(f"property {n!r} does not apply to {subject.name} "
                                 f"(it is for {', '.join(p.passes)}, ir={p.ir})")
            names.append(p.name)
    else:
        extra = dict(config.options.extra)
        names = [p.name for p in applicable if all(extra.get(k) for k in p.requires)]
    if not names:
        raise UsageError(f"no property applies to {subject.name}; add one with --properties FILE")
    return tuple(names)


def plan(config: RunConfig) -> Plan:
    """Resolve ``config``: the subject, its properties, and the implementation under test
    (loaded and checked here, so a broken one fails fast with a one-line error). A TVM outside
    the supported line is refused here, before anything is drawn."""
    require_supported()
    subject = resolve(config.subject, config.ir)
    names = select_properties(config, subject)
    explicit, draw = subject.explicit_examples(config.options)
    if explicit:
        config.explicit_examples = tuple(config.explicit_examples) + tuple(
            e for e in explicit if e not in config.explicit_examples)
        if not draw:
            config.examples = 0
    impl = config.impl
    if impl is None and subject.needs_impl:
        impl = config.subject  # PASS given as an import spec: it is the implementation
    if impl is not None:
        subject.check_impl(load_impl(impl), impl)
    return Plan(config, subject, names, impl)
