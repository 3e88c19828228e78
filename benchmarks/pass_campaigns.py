"""Campaigns of every Relax pass that acts: ``passcheck NAME --examples N --jobs 2 --ignore-known``
for each, one after the other under ``nice`` (the machine is shared), then one summary row per pass:
examples/s, activity, violations per 1,000 examples, each kind of violation with the kept repro it
matches or NEW. Reports land in ``--out`` as JSON (``--summarize`` re-prints the table from them).

    .venv/bin/python benchmarks/pass_campaigns.py --examples 2000 --out campaigns/relax
    .venv/bin/python benchmarks/pass_campaigns.py LambdaLift StaticPlanBlockMemory --examples 300
    .venv/bin/python benchmarks/pass_campaigns.py --summarize --out campaigns/relax
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def acting_passes() -> list[str]:
    """Every pass the activity benchmark measures, less those declared unable to act."""
    from pass_activity import activity_passes

    from passcheck.relax.needs import needs_of

    return [n for n in activity_passes() if not needs_of(n).cannot_act]


def run_one(name: str, args: argparse.Namespace) -> tuple[int, float]:
    out = Path(args.out)
    cmd = ["nice", str(Path(sys.executable).with_name("passcheck")), name, "--examples", str(args.examples),
           "--seed", str(args.seed), "--jobs", str(args.jobs), "--ignore-known", "--no-progress", "--no-db",
           "--shrink-time", str(args.shrink_time), "--findings-dir", str(out / "findings"),
           "--report", f"json:{out / (name + '.json')}"]
    t0 = time.perf_counter()
    with open(out / f"{name}.txt", "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    return rc, time.perf_counter() - t0


def row(name: str, d: dict[str, Any]) -> tuple[str, list[str]]:
    activity = d.get("activity") or {}
    share = f"{100 * activity['share']:.0f}%" if activity else "-"
    violated = sum(p["violated"] for p in d["properties"].values())
    kinds = [(n, k) for n, p in d["properties"].items() for k in p["violation_kinds"]]
    new = [(n, k) for n, k in kinds if not k["known_bug"]]
    line = (f"{name:34s} {d['examples']:6d} {d['examples_per_s'] or 0:6.2f} {share:>6s} "
            f"{1000 * violated / max(1, d['examples']):8.1f} {len(kinds):5d} {len(new):4d}")
    notes = [f"    NEW {n}: {k['examples']} x {k['message'][:150]}" for n, k in new]
    notes += [f"    known {k['known_bug']}: {k['examples']} x ({n})" for n, k in kinds if k["known_bug"]]
    return line, notes


def summarize(names: list[str], out: Path) -> None:
    head = f"{'pass':34s} {'exampl':>6s} {'ex/s':>6s} {'active':>6s} {'viol/1k':>8s} {'kinds':>5s} {'new':>4s}"
    print(head)
    print("-" * len(head))
    total_new = 0
    for name in names:
        path = out / f"{name}.json"
        if not path.exists():
            print(f"{name:34s} (no report: see {out / (name + '.txt')})")
            continue
        line, notes = row(name, json.loads(path.read_text()))
        print(line)
        for note in notes:
            print(note)
        total_new += sum(note.startswith("    NEW") for note in notes)
    print(f"{total_new} kind(s) of violation no kept repro explains")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="passes (default: every pass that acts)")
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shrink-time", type=float, default=60.0)
    ap.add_argument("--out", default="campaigns/relax")
    ap.add_argument("--summarize", action="store_true", help="only print the table from existing reports")
    args = ap.parse_args()
    names = args.names or acting_passes()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.summarize:
        for name in names:
            rc, secs = run_one(name, args)
            print(f"{name}: exit {rc} in {secs:.0f} s", flush=True)
    summarize(names, out)


if __name__ == "__main__":
    main()
