"""``passcheck bundle check DIR``: turn a bundle's GPU results into findings with repros
(``passcheck bundle run DIR`` runs it on this machine, as ``python -m passcheck.bundle run``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from passcheck.core.errors import UsageError
from passcheck.integrations.commands import EXIT_FINDINGS, EXIT_OK, command, console

USAGE = "usage: passcheck bundle check DIR [--findings-dir DIR] | passcheck bundle run DIR [--timeout S] [--force]"


@command("bundle")
def bundle_command(args: list[str]) -> int:
    """passcheck bundle check DIR | run DIR: compare a bundle's GPU outputs with the CPU's."""
    if len(args) < 2 or args[0] not in ("check", "run"):
        raise UsageError(USAGE)
    if args[0] == "run":
        from passcheck.gpu.runner import main

        return main(["run", *args[1:]])
    root = Path(args[1])
    findings_dir = "passcheck-findings"
    if "--findings-dir" in args:
        i = args.index("--findings-dir")
        if i + 1 >= len(args):
            raise UsageError(USAGE)
        findings_dir = args[i + 1]
    return _check(root, findings_dir)


def _entries(root: Path, refused: list[str]) -> list[Any]:
    """The entries whose meta.json and example read as data; the others are refused, one line each."""
    from passcheck.core.data import NotPlainData
    from passcheck.core.loading import looks_like_spec
    from passcheck.gpu.bundle import entries

    if not root.is_dir():
        raise UsageError(f"{root} is not a folder; give the folder that --bundle wrote")
    try:
        found = entries(root, refused)
    except OSError as e:
        raise UsageError(f"{root}: {e}") from None
    if not found and not refused:
        raise UsageError(f"{root} holds no bundle entries (--bundle DIR writes them)")
    readable = []
    for e in found:
        subject = str(e.meta.get("subject", ""))
        try:
            if not subject or looks_like_spec(subject.split("@")[0]):
                raise NotPlainData(f"its subject {subject[:80]!r} is not a passcheck pass or primitive (bundle "
                                   "check runs no code a bundle names)")
            e.example()
        except NotPlainData as err:
            refused.append(f"{e.id}: meta.json: {err}; skipped")
            continue
        try:
            e.result()
        except ValueError as err:
            refused.append(f"{e.id}: {err}; skipped")
            continue
        readable.append(e)
    return readable


def _check(root: Path, findings_dir: str) -> int:
    from rich.markup import escape

    from passcheck.core.outcome import Verdict
    from passcheck.core.subject import resolve

    out = console()
    counts: dict[str, int] = {}
    first: dict[tuple[str, Verdict], tuple[Any, Any, str]] = {}
    refused: list[str] = []
    found = _entries(root, refused)
    for e in found:
        try:
            subject = resolve(str(e.meta["subject"]), str(e.meta.get("family", "tir")))
        except UsageError as err:
            refused.append(f"{e.id}: {err}; skipped")
            continue
        judge = getattr(subject, "check_bundle_entry", None)
        if judge is None:
            raise UsageError(f"{e.id}: {subject.name} cannot check bundle entries")
        try:
            verdict, message = judge(e)
        except (AttributeError, TypeError, KeyError, ValueError) as err:  # an example of another kind
            refused.append(f"{e.id}: its example does not fit {subject.name} ({type(err).__name__}: "
                           f"{str(err)[:120]}); skipped")
            continue
        counts[str(verdict)] = counts.get(str(verdict), 0) + 1
        if verdict.finding:
            first.setdefault((subject.name, verdict), (e, subject, message))
    for line in refused:
        out.print(f"refused: {escape(line)}", highlight=False, soft_wrap=True)
    if refused:
        counts["refused"] = len(refused)
    if not found:
        raise UsageError(f"{root}: none of its bundle entries could be read as data (see the lines above)")
    devices = sorted({str((e.result() or {}).get("device", "")) for e in found} - {""})
    out.print(f"bundle {escape(str(root))}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
              + (f"; ran on {escape(', '.join(devices))}" if devices else ""), highlight=False)
    for (_, verdict), (e, subject, message) in first.items():
        repro = _write_finding(findings_dir, e, subject, verdict, message)
        out.print(f"[red]FINDING[/red] {escape(str(e.meta.get('property')))} ({verdict}): {escape(message)}",
                  highlight=False)
        out.print(f"  repro: python {escape(repro)}  (entry copied beside it: python -m passcheck.bundle run "
                  f"{escape(str(Path(repro).parent / 'entry'))} --force)", highlight=False)
    return EXIT_FINDINGS if first else EXIT_OK


def _write_finding(findings_dir: str, entry: Any, subject: Any, verdict: Any, message: str) -> str:
    """A repro folder as a run writes it (repro.py rebuilds the example and reruns the property,
    on a GPU machine), with the bundle entry itself copied into ``entry/``."""
    from passcheck.core.engine.repro import write_repros
    from passcheck.core.engine.results import Finding, RunConfig, RunResult

    prop = str(entry.meta.get("property", "gpu_matches_cpu"))
    config = RunConfig(subject=subject.name, ir=subject.ir, findings_dir=findings_dir, timeout=600.0)
    finding = Finding(prop, verdict, message, entry.example())
    result = RunResult(config, subject.name, [prop], {}, [finding], subject_ir=subject.ir)
    write_repros(result, None, subject)
    dest = Path(finding.repro).parent / "entry"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(entry.path, dest)
    return finding.repro
