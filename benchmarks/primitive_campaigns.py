"""Run `passcheck PRIM --examples N` for every TIR primitive (or those named) and print one row
per primitive: examples/s, how many examples each property held on, findings, and the kinds of
violation messages (a finding is one shrunk example; the kinds say what else failed).

Each campaign is the real CLI in its own process (a crashing primitive only ends its own run),
``--jobs`` at a time; reports land in ``--out`` as JSON, and ``--summarize`` re-prints the table
from reports already there.

    .venv/bin/python benchmarks/primitive_campaigns.py --examples 2000 --jobs 2 --out campaigns/
    .venv/bin/python benchmarks/primitive_campaigns.py split fuse --examples 300
    .venv/bin/python benchmarks/primitive_campaigns.py --summarize --out campaigns/
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def all_primitives() -> list[str]:
    from passcheck.tir.subjects import tir_subjects

    return list(tir_subjects())


def run_one(name: str, args: argparse.Namespace) -> tuple[str, int, float]:
    out = Path(args.out)
    cmd = [sys.executable, "-m", "passcheck", name, "--examples", str(args.examples), "--seed", str(args.seed),
           "--no-progress", "--shrink-time", str(args.shrink_time), "--findings-dir", str(out / "findings"),
           "--report", f"json:{out / (name + '.json')}"]
    t0 = time.perf_counter()
    with open(out / f"{name}.txt", "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    return name, rc, time.perf_counter() - t0


def summarize(names: list[str], out: Path) -> None:
    head = f"{'primitive':26s} {'examples':>8s} {'ex/s':>6s} {'checked':>7s} {'findings':>8s}  violation kinds"
    print(head)
    print("-" * len(head))
    for name in names:
        path = out / f"{name}.json"
        if not path.exists():
            print(f"{name:26s} (no report)")
            continue
        d = json.loads(path.read_text())
        props = d["properties"]
        # examples on which the strongest check ran (execution, or bounds where nothing runs)
        checked = max((p["held"] + p["violated"] for n, p in props.items()
                       if n in ("equivalent_by_execution", "bounds_safe_z3")), default=0)
        kinds = sum(len(p.get("violation_kinds", [])) for p in props.values())
        print(f"{name:26s} {d['examples']:8d} {d['examples_per_s'] or 0:6.1f} {checked:7d} {len(d['findings']):8d}  "
              f"{kinds}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="primitives (default: every TIR subject, `schedule` included)")
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shrink-time", type=float, default=30.0)
    ap.add_argument("--out", default="campaigns")
    ap.add_argument("--summarize", action="store_true", help="only print the table from existing reports")
    args = ap.parse_args()
    names = args.names or all_primitives()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.summarize:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for name, rc, secs in pool.map(lambda n: run_one(n, args), names):
                print(f"{name}: exit {rc} in {secs:.0f} s", flush=True)
    summarize(names, out)


if __name__ == "__main__":
    main()
