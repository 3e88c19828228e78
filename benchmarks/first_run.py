"""The README's first command, timed as a new user meets it: `passcheck FuseOps --examples 500`,
each run in a fresh folder (no example database, no findings from an earlier run), on every
core. Prints each run's wall time, the engine's own duration and its shrinking apart, the exit
code, and the median over the runs; with the load average before and after each, since a shared
machine makes wall times noise (the target is stated for an idle 2-core machine).

    python benchmarks/first_run.py [--runs 3] [--examples 500] [--seed 0] [--pass FuseOps]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one_run(exe: Path, name: str, examples: int, seed: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="passcheck-first-run-") as d:
        report = Path(d) / "report.json"
        load_before = os.getloadavg()[0]
        t0 = time.perf_counter()
        proc = subprocess.run([str(exe), name, "--examples", str(examples), "--seed", str(seed), "--no-progress",
                               "--report", f"json:{report}"], cwd=d, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        data = json.loads(report.read_text()) if report.is_file() else {}
        return {"wall": wall, "duration": data.get("duration_s", float("nan")), "shrink": data.get("shrink_s", 0.0),
                "exit": proc.returncode, "new": data.get("new_findings", -1),
                "known": len(data.get("known_bugs_hit", {})), "load_before": load_before,
                "load_after": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--examples", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pass", dest="name", default="FuseOps")
    args = ap.parse_args()
    exe = Path(sys.executable).with_name("passcheck")
    print(f"passcheck {args.name} --examples {args.examples} --seed {args.seed}, {os.cpu_count()} CPUs, "
          f"{args.runs} runs, each in a fresh folder")
    runs = []
    for i in range(args.runs):
        r = one_run(exe, args.name, args.examples, args.seed)
        runs.append(r)
        print(f"run {i + 1}: {r['wall']:.1f} s wall (engine {r['duration']:.1f} s, of which shrinking "
              f"{r['shrink']:.1f} s), exit {r['exit']}, {r['new']} new findings, {r['known']} known bugs hit; "
              f"load average {r['load_before']:.1f} -> {r['load_after']:.1f}")
    walls = [r["wall"] for r in runs]
    print(f"median wall {statistics.median(walls):.1f} s (shrinking: median {statistics.median(r['shrink'] for r in runs):.1f} s)")


if __name__ == "__main__":
    main()
