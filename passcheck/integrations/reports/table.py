"""The closing table of a run (rich), printed by the CLI."""

from __future__ import annotations

from typing import Any

from passcheck.integrations.reports.breakdown import coverage_line, time_line


def render_table(result: Any, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=f"passcheck {result.subject_name}: {result.examples} examples, seed {result.config.seed}, "
                    f"{result.duration_s:.1f} s")
    t.add_column("property")
    t.add_column("held", justify="right")
    t.add_column("violated", justify="right")
    t.add_column("discarded", justify="right")
    # Drift (numbers apart within the rounding bound) is no finding: its column only shows up
    # when some property saw it.
    drift = any(getattr(s, "drift", 0) for s in result.stats.values())
    if drift:
        t.add_column("drift", justify="right")
    for n, s in result.stats.items():
        style = "red" if s.violated else ""
        t.add_row(escape(n), str(s.held), str(s.violated), str(s.discarded), *([str(s.drift)] if drift else []),
                  style=style)
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
    for line in (time_line(result), coverage_line(result)):
        if line:
            console.print(escape(line), highlight=False)
    # Messages quote IR (`X[i0]`, `shape [n]`): escaped, or rich would eat them as markup tags.
    for f in result.findings:
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
    if result.findings and result.config.ignore_known:
        console.print(f"{len(result.new_findings)} new finding(s); known TVM bugs are ignored for the exit code "
                      "(--ignore-known)", highlight=False)


def render_drift(result: Any, console: Any) -> None:
    """One line per property with drift: how often, and its first message (error and bound)."""
    from rich.markup import escape

    for n, s in result.stats.items():
        if s.drift:
            first = next(iter(s.first_drift.values()), "")
            console.print(f"drift (not a finding) {escape(n)}: {s.drift} example(s), {len(s.drift_kinds)} kind(s); "
                          f"e.g. {escape(first[:300])}", highlight=False)
