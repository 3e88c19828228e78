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

USAGE = ("usage: passcheck bundle check DIR [--findings-dir DIR] [--static] [--strict-known] | "
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
    flags = {"--static", "--strict-known", "--ignore-known"}  # --ignore-known: the default now, kept for old calls
    rest = [a for a in args[2:] if a not in flags]
    findings_dir = "passcheck-findings"
    if rest[:1] == ["--findings-dir"] and len(rest) == 2:
        findings_dir = rest[1]
    elif rest:
        raise UsageError(USAGE)
    # As a run: known TVM bugs are listed, and fail the check only with --strict-known.
    return _check(Path(args[1]), findings_dir, "--static" in args, "--strict-known" in args)


def bundles_under(root: Path) -> list[Path]:
    """``root`` if it is a bundle (or one entry), else the bundles directly under it."""
    from passcheck.gpu.runner import bundle_dirs

    if not root.is_dir():
        raise UsageError(f"{root} is not a folder; give the folder that --bundle wrote")
    found = bundle_dirs(root)
    if not found:
        raise UsageError(f"{root} holds no bundle entries (--bundle DIR writes them)")
    return found


def _entries(root: Path, refused: list[str]) -> list[Any]:
    """The entries of one bundle whose meta.json and example read as data; the others are
    refused, one line each."""
    from passcheck.core.data import NotPlainData
    from passcheck.core.loading import looks_like_spec
    from passcheck.gpu.bundle import entries

    try:
        found = entries(root, refused)
    except OSError as e:
        raise UsageError(f"{root}: {e}") from None
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


def _judge(entry: Any, refused: list[str]) -> tuple[Any, Any, str] | None:
    """The entry's subject and its verdict; None (with a line in ``refused``) when the entry
    names no subject here or its example is not one of that subject's."""
    from passcheck.core.subject import resolve

    try:
        subject = resolve(str(entry.meta["subject"]), str(entry.meta.get("family", "tir")))
    except UsageError as err:
        refused.append(f"{entry.id}: {err}; skipped")
        return None
    judge = getattr(subject, "check_bundle_entry", None)
    if judge is None:
        raise UsageError(f"{entry.id}: {subject.name} cannot check bundle entries")
    try:
        verdict, message = judge(entry)
    except (AttributeError, TypeError, KeyError, ValueError) as err:  # an example of another kind
        refused.append(f"{entry.id}: its example does not fit {subject.name} ({type(err).__name__}: "
                       f"{str(err)[:120]}); skipped")
        return None
    return subject, verdict, message


def _check(root: Path, findings_dir: str, static: bool, strict_known: bool) -> int:
    from rich.markup import escape

    from passcheck.integrations.commands import bundle_static as bs

    out = console()
    anomalies: list[bs.Anomaly] = []
    refused: list[str] = []
    checked = 0
    for bundle in bundles_under(root):
        counts: dict[str, int] = {}
        before = len(refused)
        found = _entries(bundle, refused)
        for e in found:
            judged = _judge(e, refused)
            if judged is None:
                continue
            checked += 1
            subject, verdict, message = judged
            counts[str(verdict)] = counts.get(str(verdict), 0) + 1
            if verdict.finding:
                anomalies.append(bs.Anomaly(e, subject, verdict, message, bs.recognise_entry(subject, e, message)))
        if len(refused) > before:
            counts["refused"] = len(refused) - before
        devices = sorted({str((e.result() or {}).get("device", "")) for e in found} - {""})
        out.print(f"bundle {escape(str(bundle))}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
                  + (f"; ran on {escape(', '.join(devices))}" if devices else ""), highlight=False)
    for line in refused:
        out.print(f"refused: {escape(line)}", highlight=False, soft_wrap=True)
    if not checked and refused:
        raise UsageError(f"{root}: none of its bundle entries could be read as data (see the lines above)")
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
    failing = sum(not a.known or strict_known for a in anomalies)
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
