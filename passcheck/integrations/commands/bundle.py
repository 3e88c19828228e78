"""``passcheck bundle check DIR``: turn a bundle's GPU results into findings with repros, each
recognised as a known TVM bug or not (``--static``: the static checks rerun on the examples
the GPU disagreed with, and their agreement); ``passcheck bundle run DIR`` runs it on this
machine, as ``python -m passcheck.bundle run``. DIR may hold several bundles (a GPU run's
folder): each is checked."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from passcheck.core.errors import UsageError
from passcheck.integrations.commands import EXIT_FINDINGS, EXIT_OK, command, console

USAGE = ("usage: passcheck bundle check DIR [--findings-dir DIR] [--static] [--ignore-known] | "
         "passcheck bundle run DIR [--timeout S] [--force] [--jobs N] [--archive OUT.tgz] | "
         "passcheck bundle unpack ARCHIVE DIR")


@command("bundle")
def bundle_command(args: list[str]) -> int:
    """passcheck bundle check DIR | run DIR | unpack ARCHIVE DIR: run bundles, bring their
    results back, and compare their GPU outputs with the CPU's."""
    if len(args) < 2 or args[0] not in ("check", "run", "unpack"):
        raise UsageError(USAGE)
    if args[0] in ("run", "unpack"):
        from passcheck.gpu.runner import main

        return main(args)
    flags = {"--static", "--ignore-known"}
    rest = [a for a in args[2:] if a not in flags]
    findings_dir = "passcheck-findings"
    if rest[:1] == ["--findings-dir"] and len(rest) == 2:
        findings_dir = rest[1]
    elif rest:
        raise UsageError(USAGE)
    return _check(Path(args[1]), findings_dir, "--static" in args, "--ignore-known" in args)


def bundles_under(root: Path) -> list[Path]:
    """``root`` if it is a bundle (or one entry), else the bundles directly under it."""
    from passcheck.gpu.bundle import is_entry

    if not root.is_dir():
        raise UsageError(f"{root} is not a folder; give the folder that --bundle wrote")
    if is_entry(root) or any(is_entry(p) for p in root.iterdir() if p.is_dir()):
        return [root]
    found = sorted(p for p in root.iterdir() if p.is_dir() and any(is_entry(q) for q in p.iterdir() if q.is_dir()))
    if not found:
        raise UsageError(f"{root} holds no bundle entries (--bundle DIR writes them)")
    return found


def _entries(root: Path) -> list[Any]:
    from passcheck.gpu.bundle import entries

    try:
        return entries(root)
    except (ValueError, OSError) as e:
        raise UsageError(f"{root}: {e}") from None


def _judge(entry: Any) -> tuple[Any, Any, str]:
    from passcheck.core.subject import resolve

    subject = resolve(str(entry.meta["subject"]), str(entry.meta.get("family", "tir")))
    judge = getattr(subject, "check_bundle_entry", None)
    if judge is None:
        raise UsageError(f"{entry.id}: {subject.name} cannot check bundle entries")
    verdict, message = judge(entry)
    return subject, verdict, message


def _check(root: Path, findings_dir: str, static: bool, ignore_known: bool) -> int:
    from rich.markup import escape

    from passcheck.integrations.commands import bundle_static as bs

    out = console()
    anomalies: list[bs.Anomaly] = []
    for bundle in bundles_under(root):
        counts: dict[str, int] = {}
        found = _entries(bundle)
        for e in found:
            subject, verdict, message = _judge(e)
            counts[str(verdict)] = counts.get(str(verdict), 0) + 1
            if verdict.finding:
                anomalies.append(bs.Anomaly(e, subject, verdict, message, bs.recognise_entry(subject, e, message)))
        devices = sorted({str((e.result() or {}).get("device", "")) for e in found} - {""})
        out.print(f"bundle {escape(str(bundle))}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
                  + (f"; ran on {escape(', '.join(devices))}" if devices else ""), highlight=False)
    if static and anomalies:
        bs.recheck(anomalies)  # recognises again with the rebuilt IR (the patterns that read it)
    first: dict[tuple[str, Any, str], bs.Anomaly] = {}
    for a in anomalies:
        first.setdefault((a.subject.name, a.verdict, a.known or ""), a)
    for a in first.values():
        repro = _write_finding(findings_dir, a.entry, a.subject, a.verdict, a.message, a.known)
        tag = f"known TVM bug (kept repro: {a.known})" if a.known else "[red]new[/red]"
        out.print(f"[red]FINDING[/red] {escape(str(a.entry.meta.get('property')))} ({a.verdict}, {tag}): "
                  f"{escape(a.message[:600])}", highlight=False)
        out.print(f"  repro: python {escape(repro)}  (entry copied beside it: python -m passcheck.bundle run "
                  f"{escape(str(Path(repro).parent / 'entry'))} --force)", highlight=False)
    failing = sum(not (a.known and ignore_known) for a in anomalies)
    if anomalies:
        new = sum(a.known is None for a in anomalies)
        out.print(f"{len(anomalies)} GPU anomalies: {len(anomalies) - new} known TVM bugs, {new} new", highlight=False)
    if static and anomalies:
        bs.report_agreement(out, anomalies)
    return EXIT_FINDINGS if failing else EXIT_OK


def _write_finding(findings_dir: str, entry: Any, subject: Any, verdict: Any, message: str,
                   known: str | None) -> str:
    """A repro folder as a run writes it (repro.py rebuilds the example and reruns the property,
    on a GPU machine), with the bundle entry itself copied into ``entry/``."""
    from passcheck.core.engine.repro import write_repros
    from passcheck.core.engine.results import Finding, RunConfig, RunResult

    prop = str(entry.meta.get("property", "gpu_matches_cpu"))
    config = RunConfig(subject=subject.name, ir=subject.ir, findings_dir=findings_dir, timeout=600.0)
    finding = Finding(prop, verdict, message, entry.example(), known_bug=known)
    result = RunResult(config, subject.name, [prop], {}, [finding], subject_ir=subject.ir)
    write_repros(result, None, subject)
    dest = Path(finding.repro).parent / "entry"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(entry.path, dest)
    return finding.repro
