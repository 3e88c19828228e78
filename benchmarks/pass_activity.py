"""How often each Relax pass changes what passcheck draws for it: every zero-argument
``relax.transform`` pass by name, plus AlterOpLayout and SimplifyInference, ``--examples`` drawn examples each, through
the engine ``passcheck NAME`` runs (the same subject, strategy, prerequisites and pass; only the
properties are left out: activity is counted before any property runs).

Prints one row per pass (changed N of M, the share, and for a pass under 50% what it needs or why
passcheck cannot make it act), the summary against the targets, and with ``--write`` rewrites the
checked-in table ``passcheck/relax/pass_activity.json`` (what ``passcheck list`` shows) and the
README's table between its markers.

    .venv/bin/python benchmarks/pass_activity.py [--examples 200] [--jobs 2] [--passes A,B] [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "passcheck" / "relax" / "pass_activity.json"
README = ROOT / "README.md"
START, END = "<!-- pass-activity:start -->", "<!-- pass-activity:end -->"
ACTS, CORE = 0.5, 0.9  # a pass "acts" at 50%; the four Relay-named passes must reach 90%
CORE_PASSES = ("FuseOps", "FoldConstant", "AlterOpLayout", "SimplifyInference")
RELAY_NAMED = ("AlterOpLayout", "SimplifyInference")  # (measured too, not counted among the 57)


def activity_passes() -> list[str]:
    """Every relax.transform pass that builds without arguments, and the Relay-named passes that
    are not one of them (AlterOpLayout; SimplifyInference, DecomposeOpsForInference with its own bias)."""
    from passcheck.relax.sequence.steps import kind, runnable_passes

    return [n for n in runnable_passes() if kind(n).draw_args is None] + list(RELAY_NAMED)


def measure(name: str, examples: int, seed: int, jobs: int) -> tuple[int, int, float]:
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.engine.run import run

    with tempfile.TemporaryDirectory(prefix="passcheck-activity-") as d:
        config = RunConfig(subject=name, examples=examples, seed=seed, properties=("activity_only",),
                           property_files=(str(ROOT / "benchmarks" / "activity_only.py"),), jobs=jobs, findings_dir=d, timeout=120)
        t0 = time.perf_counter()
        result = run(config)
    return result.changed, result.measured, time.perf_counter() - t0


def reason(name: str) -> str:
    from passcheck.relax.activity import what_it_needs

    return what_it_needs(name)


def rows_markdown(table: dict[str, Any]) -> str:
    lines = ["| pass | changed | of | share | what it acts on / why it cannot act |", "|---|---:|---:|---:|---|"]
    for name, row in table["passes"].items():
        share = row["changed"] / row["examples"] if row["examples"] else 0.0
        note = row.get("needs", "") if share < ACTS else ""
        lines.append(f"| {name} | {row['changed']} | {row['examples']} | {100 * share:.0f}% | {note} |")
    return "\n".join(lines)


def write_readme(table: dict[str, Any]) -> None:
    text = README.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"README.md has no {START} ... {END} markers to write the table between")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    body = (f"\n`benchmarks/pass_activity.py`, {table['examples_each']} drawn examples per pass, seed "
            f"{table['seed']}, TVM {table['tvm']}: {table['summary']}\n\n{rows_markdown(table)}\n")
    README.write_text(head + START + body + END + tail)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--passes", default="", help="comma-separated (default: every zero-argument pass)")
    ap.add_argument("--write", action="store_true", help="rewrite the checked-in table and the README's")
    args = ap.parse_args()
    import tvm

    names = args.passes.split(",") if args.passes else activity_passes()
    passes: dict[str, Any] = {}
    print(f"{'pass':<34} {'changed':>8} {'of':>5} {'share':>6} {'s':>6}  what it acts on / why not", flush=True)
    for name in names:
        changed, measured, seconds = measure(name, args.examples, args.seed, args.jobs)
        share = changed / measured if measured else 0.0
        note = reason(name) if share < ACTS else ""
        passes[name] = {"changed": changed, "examples": measured, "needs": reason(name)}
        print(f"{name:<34} {changed:>8} {measured:>5} {100 * share:>5.0f}% {seconds:>6.0f}  {note}", flush=True)
    if args.write and args.passes:  # (the others as the checked-in table has them: the summary is of all)
        old = json.loads(TABLE.read_text()) if TABLE.exists() else {"passes": {}}
        passes = {**old.get("passes", {}), **passes}
    shares = {n: r["changed"] / r["examples"] if r["examples"] else 0.0 for n, r in passes.items()}
    by_name = [n for n in shares if n not in RELAY_NAMED]
    acting = [n for n in by_name if shares[n] >= ACTS]
    core = {n: shares[n] for n in CORE_PASSES if n in shares}
    low_core = [n for n, s in core.items() if s < CORE]
    summary = (f"{len(acting)} of {len(by_name)} zero-argument passes change at least {ACTS:.0%} of the examples; "
               + ", ".join(f"{n} {100 * s:.0f}%" for n, s in core.items()))
    print(summary + (f"; under {CORE:.0%}: {', '.join(low_core)}" if low_core else ""))
    for n in by_name:
        if shares[n] < ACTS:
            print(f"  under {ACTS:.0%}: {n} ({100 * shares[n]:.0f}%): {passes[n]['needs']}")
    if args.write:
        table = {"examples_each": args.examples, "seed": args.seed, "tvm": tvm.__version__, "summary": summary,
                 "passes": passes}
        TABLE.write_text(json.dumps(table, indent=1) + "\n")
        write_readme(table)
        print(f"wrote {TABLE.relative_to(ROOT)} and the README's table")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
