"""Record, or compare against a recorded one, what passcheck reports for fixed seeds.

A refactoring must not change behaviour: the same seed must draw the same examples and give
the same findings. This runs the real CLI on four fixed campaigns, keeps each JSON report
without what depends on the machine (timings, absolute paths), and either writes the lot
(``--record``) or compares it with a recorded file (``--compare``), printing every difference.
A report field that only the new run has is a new field of the report, listed apart: it is not
a difference in what was drawn or found.

    .venv/bin/python benchmarks/behaviour_snapshot.py --record benchmarks/snapshots/before.json
    .venv/bin/python benchmarks/behaviour_snapshot.py --compare benchmarks/snapshots/before.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CAMPAIGNS = {
    "FuseOps": ["FuseOps", "--examples", "200", "--seed", "0"],
    "FoldConstant": ["FoldConstant"],
    "split": ["split", "--ir", "tir"],
    "schedule": ["schedule"],
}
# Machine-dependent: how long things took, where the repros were written, and the kernel
# cache's counts (how the work was shared out between workers and batches).
VOLATILE = {"duration_s", "shrink_s", "examples_per_s", "repro", "timings", "counts"}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def run_campaign(args: list[str], workdir: Path) -> tuple[dict[str, Any], float]:
    report = workdir / "report.json"
    cmd = [sys.executable, "-m", "passcheck", *args, "--no-progress", "--report", f"json:{report}",
           "--findings-dir", str(workdir / "findings")]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return json.loads(report.read_text()), seconds


def snapshot() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, args in CAMPAIGNS.items():
        with tempfile.TemporaryDirectory() as d:
            report, seconds = run_campaign(args, Path(d))
        ex = report["examples"]
        print(f"{name:<13} {ex:>4} examples  {len(report['findings'])} finding(s)  {seconds:6.1f} s "
              f"({ex / seconds:.1f} ex/s wall)", flush=True)
        out[name] = _strip(report)
    return out


def differences(old: Any, new: Any, path: str = "", added: set[str] | None = None) -> list[str]:
    """Every difference between ``old`` and ``new``; fields only ``new`` has go to ``added``
    (by name) instead."""
    added = set() if added is None else added
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            if k not in new:
                out.append(f"{path}/{k}: only in the recorded snapshot")
            elif k not in old:
                added.add(k)
            else:
                out += differences(old[k], new[k], f"{path}/{k}", added)
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (a, b) in enumerate(zip(old, new)) for d in differences(a, b, f"{path}[{i}]", added)]
    return [] if old == new else [f"{path}: recorded {old!r}, now {new!r}"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--record", metavar="FILE")
    group.add_argument("--compare", metavar="FILE")
    args = ap.parse_args()
    snap = snapshot()
    if args.record:
        Path(args.record).parent.mkdir(parents=True, exist_ok=True)
        Path(args.record).write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
        print(f"recorded {args.record}")
        return 0
    added: set[str] = set()
    diffs = differences(_strip(json.loads(Path(args.compare).read_text())), snap, added=added)
    for d in diffs:
        print(d)
    if added:
        print(f"new report fields (not differences): {', '.join(sorted(added))}")
    print("identical" if not diffs else f"{len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
