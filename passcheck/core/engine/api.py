"""The Python entry point: ``passcheck.check(...)`` for scripts, CI and pytest."""

from __future__ import annotations

from collections.abc import Iterable

from passcheck.core.engine.results import RunConfig, RunResult
from passcheck.core.engine.run import run
from passcheck.core.subject import MUTATE, SEED_MODELS, Options


class FindingsError(AssertionError):
    """Raised by ``check(..., raise_on_findings=True)``; the message lists the findings."""

    def __init__(self, result: RunResult) -> None:
        self.result = result
        failing = result.findings if result.config.strict_known else result.new_findings
        lines = [f"passcheck {result.subject_name}: {len(failing)} finding(s) in {result.examples} examples"]
        for f in failing:
            known = f" [known TVM bug, kept repro: {f.known_bug}]" if f.known_bug else ""
            lines.append(f"  {f.property} ({f.kind}){known}: {f.message}")
            lines.append(f"    repro: python {f.repro}")
        super().__init__("\n".join(lines))


def check(subject: str, *, examples: int = 100, seed: int = 0, impl: str | None = None,
          properties: Iterable[str] = (), property_files: Iterable[str] = (), ir: str = "relax",
          timeout: float | None = None, shrink_seconds: float = 120.0, findings_dir: str = "passcheck-findings",
          allow_special_values: bool = False, raise_on_findings: bool = False,
          strict_known: bool = False, ignore_known: bool = True, corpus: Iterable[str] = (), mutate: int = 0,
          seed_models: Iterable[str] = (), drift_findings: bool = False, tvmscript_only: bool = False,
          jobs: int = 0, batch: int = 16, database: str | None = None) -> RunResult:
    """Run passcheck on ``subject`` (a pass, primitive, or import spec) and return the result.

    With ``raise_on_findings=True`` a run with findings raises ``FindingsError`` (an
    AssertionError, so pytest shows it as a test failure with the repro paths). Findings that
    match a known TVM bug do not count, as pytest's xfail, unless ``strict_known=True``
    (``ignore_known``, the default since, is accepted for old callers). ``corpus``:
    files or directories of given modules, checked first (``--corpus``; a ``.py`` file runs as Python
    unless ``tvmscript_only``, ``--tvmscript-only``). ``mutate``,
    ``seed_models`` and ``drift_findings`` are ``--mutate``, ``--seed-model``, ``--drift-findings``.
    ``jobs`` worker processes (0: one per core) check ``batch`` examples at a time; ``database`` keeps
    failures to replay first next time (``""`` the default directory ``.passcheck/examples``, a
    directory, or ``redis://HOST:PORT``; None, the default here, keeps none). ``timeout``: seconds
    per example before it is a hang; None adapts it to the run's own example times."""
    extra = ((MUTATE, mutate),) if mutate else ()
    extra += ((SEED_MODELS, tuple(seed_models)),) if seed_models else ()
    config = RunConfig(subject=subject, ir=ir, impl=impl, examples=examples, seed=seed,
                       properties=tuple(properties), property_files=tuple(property_files), timeout=timeout,
                       shrink_seconds=shrink_seconds, findings_dir=findings_dir,
                       strict_known=strict_known, ignore_known=ignore_known,
                       options=Options(allow_special_values=allow_special_values, impl=impl,
                                       drift_findings=drift_findings, extra=extra),
                       jobs=jobs, batch=batch, database=database)
    if corpus:
        from passcheck.core.corpus import corpus_for

        config.explicit_examples = tuple(corpus_for(list(corpus), subject, ir, tvmscript_only).examples)
    result = run(config)
    if raise_on_findings and not result.ok:
        raise FindingsError(result)
    return result
