"""Reports of a run: the closing table (rich) and the JSON report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from passcheck.core.errors import UsageError


def to_json(result: Any) -> dict[str, Any]:
    cfg = result.config
    return {
        "pass": result.subject_name,
        "impl": cfg.impl,
        "ir": cfg.ir,
        "seed": cfg.seed,
        "examples": result.examples,
        "examples_requested": cfg.examples,
        "rejected_examples": result.rejected,
        "discarded_examples": result.discarded_examples,
        "duration_s": round(result.duration_s, 3),
        "shrink_s": round(result.shrink_s, 3),
        "examples_per_s": round(result.examples / result.duration_s, 3) if result.duration_s else None,
        "worker_restarts": result.worker_restarts,
        "findings": [
            {"property": f.property, "kind": f.kind, "message": f.message, "repro": f.repro,
             "shrunk": f.shrunk, "also_failing": list(f.also_failing)}
            for f in result.findings
        ],
        "properties": {n: {"held": s.held, "violated": s.violated, "discarded": s.discarded,
                           "violation_kinds": [{"message": k, "examples": c} for k, c in
                                               sorted(s.kinds.items(), key=lambda kc: -kc[1])]}
                       for n, s in result.stats.items()},
    }


def parse_report_spec(spec: str) -> tuple[str, Path]:
    fmt, sep, path = spec.partition(":")
    if not sep or fmt != "json" or not path:
        raise UsageError(f"--report {spec}: expected json:PATH (e.g. --report json:report.json)")
    return fmt, Path(path)


def write_report(result: Any, spec: str) -> Path:
    _, path = parse_report_spec(spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(result), indent=2))
    return path


def render_table(result: Any, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=f"passcheck {result.subject_name}: {result.examples} examples, seed {result.config.seed}, "
                    f"{result.duration_s:.1f} s")
    t.add_column("property")
    t.add_column("held", justify="right")
    t.add_column("violated", justify="right")
    t.add_column("discarded", justify="right")
    for n, s in result.stats.items():
        style = "red" if s.violated else ""
        t.add_row(escape(n), str(s.held), str(s.violated), str(s.discarded), style=style)
    console.print(t)
    if result.rejected:
        console.print(f"{result.rejected} drawn example(s) could not be built and were not counted.")
    # Messages quote IR (`X[i0]`, `shape [n]`): escaped, or rich would eat them as markup tags.
    for f in result.findings:
        console.print(f"[red]FINDING[/red] {escape(f.property)} ({f.kind}): {escape(f.message)}", highlight=False)
        if f.also_failing:
            console.print(f"  also failing on this example: {escape(', '.join(f.also_failing))}", highlight=False)
        console.print(f"  repro: python {escape(str(f.repro))}" + ("" if f.shrunk else "  (not shrunk)"),
                      highlight=False)
        kinds = getattr(result.stats.get(f.property), "kinds", {})
        if len(kinds) > 1:
            console.print(f"  {sum(kinds.values())} violating examples, {len(kinds)} kinds of message (the JSON "
                          "report lists them: only the first was shrunk)", highlight=False)
