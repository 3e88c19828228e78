"""The closing table of a run (rich), printed by the CLI."""

from __future__ import annotations

from typing import Any

from passcheck.core.engine.explore import BESIDE_ITS_BATCH
from passcheck.integrations.reports.breakdown import (
    coverage_line,
    tested_line,
    time_line,
    tvm_line,
    unknown_line,
)


def render_table(result: Any, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=f"passcheck {result.subject_name}: {result.examples} examples, seed {result.config.seed}, "
                    f"{result.duration_s:.1f} s\non {tvm_line(result)}")
    t.add_column("property")
    t.add_column("held", justify="right")
    t.add_column("violated", justify="right")
    # Known TVM bugs, as pytest's xfail: violating examples a kept repro explains, apart from
    # the new ones (``violated``) and no failure of the run unless --strict-known.
    t.add_column("known", justify="right")
    t.add_column("discarded", justify="right")
    # Drift (numbers apart within the rounding bound) is no finding: its column only shows up
    # when some property saw it.
    drift = any(getattr(s, "drift", 0) for s in result.stats.values())
    if drift:
        t.add_column("drift", justify="right")
    for n, s in result.stats.items():
        known = s.known_violations
        style = "red" if s.violated > known else "yellow" if known else ""
        t.add_row(escape(n), str(s.held), str(s.violated - known), str(known), str(s.discarded),
                  *([str(s.drift)] if drift else []), style=style)
    console.print(t)
    if drift:
        render_drift(result, console)
    activity = result.activity_line() if hasattr(result, "activity_line") else ""
    if activity:
        console.print(escape(activity), highlight=False)
        warning = result.activity_warning()
        if warning:
            console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)
    if result.rejected:
        console.print(f"{result.rejected} drawn example(s) could not be built and were not counted.")
    if getattr(result, "replayed", 0):
        console.print(f"{result.replayed} saved failure(s) from the example database were replayed first.")
    for line in getattr(result, "refused", ()):
        console.print(f"refused: {escape(line)}", highlight=False, soft_wrap=True)
    for line in (tested_line(result), unknown_line(result), time_line(result), coverage_line(result)):
        if line:
            console.print(escape(line), highlight=False)
    # Messages quote IR (`X[i0]`, `shape [n]`): escaped, or rich would eat them as markup tags.
    for f in result.findings:
        if f.known_bug and not result.config.strict_known:
            continue  # listed once below, with the other known bugs
        head = (f"[yellow]KNOWN TVM BUG[/yellow] (kept repro: {escape(f.known_bug)})" if f.known_bug
                else "[red]FINDING[/red]")
        console.print(f"{head} {escape(f.property)} ({f.kind}): {escape(f.message)}", highlight=False)
        if f.also_failing:
            console.print(f"  also failing on this example: {escape(', '.join(f.also_failing))}", highlight=False)
        console.print(f"  repro: python {escape(str(f.repro))}" + ("" if f.shrunk else "  (not shrunk)"),
                      highlight=False)
        stats = result.stats.get(f.property)
        kinds = getattr(stats, "kinds", {})
        if len(kinds) > 1:
            known = sum(1 for k in kinds if k in stats.known)
            console.print(f"  {sum(kinds.values())} violating examples, {len(kinds)} kinds of message, {known} of "
                          "them known TVM bugs (the JSON report lists them: only the first was shrunk)",
                          highlight=False)
    beside = getattr(result, "counts", {}).get(BESIDE_ITS_BATCH, 0)
    if beside:
        console.print(f"[yellow]{beside} new failure(s) went away when the example ran alone[/yellow] in a fresh "
                      "worker (an example checked beside it changed what it ran on): not findings; the JSON "
                      "report's example notes give their messages", highlight=False)
    render_known(result, console)
    console.print(escape(summary_line(result)), highlight=False, soft_wrap=True)  # one line, for grep and CI logs


def render_known(result: Any, console: Any) -> None:
    """The known TVM bugs the run met, once each: name, where, a one-line note, how to see it."""
    from rich.markup import escape

    from passcheck.core.known import KNOWN_BUGS

    hits = result.known_bugs_hit()
    if not hits:
        return
    fails = "they fail the run (--strict-known)" if result.config.strict_known else \
        "expected failures, not counted (--strict-known counts them)"
    console.print(f"[yellow]known TVM bugs hit[/yellow] ({fails}):", highlight=False)
    for name, props in hits.items():
        where = ", ".join(f"{p} ({n} example{'s' if n != 1 else ''})" for p, n in props.items()) or "a replayed example"
        bug = KNOWN_BUGS.find(name)
        note = bug.note if bug is not None else ""
        console.print(f"  [bold]{escape(name)}[/bold]: {escape(where)}", highlight=False)
        console.print(f"      {escape(_clip(note, 120))}", highlight=False)
    console.print("  `passcheck known show NAME` prints a bug's kept repro; `passcheck known --check` says which "
                  "still reproduce on this TVM", highlight=False)


def summary_line(result: Any) -> str:
    """What the run checked and what it means for the exit code, in one line."""
    hits = result.known_bugs_hit()
    known_examples = sum(n for props in hits.values() for n in props.values())
    new = len(result.new_findings)
    parts = [f"{result.subject_name}: {result.examples} examples checked in {result.duration_s:.1f} s "
             f"(shrinking {result.shrink_s:.1f} s)",
             f"{new} new finding{'s' if new != 1 else ''}",
             f"{len(hits)} known TVM bug{'s' if len(hits) != 1 else ''} hit"
             + (f" on {known_examples} example{'s' if known_examples != 1 else ''}" if known_examples else "")]
    share = getattr(result, "activity", None)
    if share is not None:  # a green line over examples the pass never acted on tested little
        parts.insert(1, f"the pass changed {result.changed} of them ({100 * share:.0f}%)")
    verdict = "fail" if not result.ok else "pass"
    return "; ".join(parts) + f": {verdict}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1].rstrip() + "…"


def render_drift(result: Any, console: Any) -> None:
    """One line per property with drift: how often, and its first message (error and bound)."""
    from rich.markup import escape

    for n, s in result.stats.items():
        if s.drift:
            first = next(iter(s.first_drift.values()), "")
            console.print(f"drift (not a finding) {escape(n)}: {s.drift} example(s), {len(s.drift_kinds)} kind(s); "
                          f"e.g. {escape(first[:300])}", highlight=False)
