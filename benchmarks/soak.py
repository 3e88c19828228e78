"""Soak: 10,000 examples per pass through the engine the CLI runs, with the resident memory of
the runner and of every worker process sampled as the run goes; memory must stay flat.

For each pass it prints the examples/s, the findings (on TVM's own passes each is a known TVM
bug or a false alarm of passcheck: it is listed), the runner's and the workers' peak RSS, and the
slope of each (MiB per 1,000 examples, least squares over the samples after the first 10% of
the run, so start-up allocation is not counted as growth).

    python benchmarks/soak.py [--examples 10000] [--passes FuseOps,FoldConstant,...] [--jobs 2]
                              [--no-kernel-cache]

``--no-kernel-cache`` runs without the kernel cache, which grows with the distinct kernels a run
meets (a worker keeps the IR of the last 1,000 it used, and every library it loaded): the two
slopes together say how much of a worker's growth is the cache. A worker is replaced by a fresh
fork every 1,000 examples (``Worker.RECYCLE_AFTER``), so its RSS is a saw: the slope over a saw
says little, and the peaks of the run's halves (after the first 10%) say whether it is bounded.
``--no-recycle`` keeps each worker for the whole run: its slope is the growth recycling bounds.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path

import numpy as np


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the fork server and the workers it forked)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


class Sampler(threading.Thread):
    """Samples (examples done, runner RSS, largest worker RSS) every ``every`` seconds."""

    def __init__(self, every: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.every, self.done, self.samples = every, 0, []
        self.stop = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self.stop.wait(self.every):
            workers = [_rss_mib(p) for p in _descendants(me)]
            self.samples.append((self.done, _rss_mib(me), max(workers, default=0.0)))


def slope(samples: list[tuple[int, float, float]], column: int) -> float:
    """MiB per 1,000 examples after the first 10% of the run."""
    pts = [(s[0], s[column]) for s in samples if s[0] >= 0.1 * samples[-1][0] and s[column] > 0]
    if len(pts) < 3:
        return float("nan")
    x, y = np.array(pts, dtype=float).T
    return float(np.polyfit(x, y, 1)[0] * 1000)


def halves(samples: list[tuple[int, float, float]]) -> str:
    """The largest worker RSS in each half of the run after its first 10% ("peak/peak")."""
    end = samples[-1][0] if samples else 0
    first = [w for d, _, w in samples if 0.1 * end <= d < 0.55 * end]
    second = [w for d, _, w in samples if d >= 0.55 * end]
    return f"{max(first, default=0):.0f}/{max(second, default=0):.0f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=10_000)
    ap.add_argument("--passes", default="FuseOps,FoldConstant,AlterOpLayout,SimplifyInference")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-kernel-cache", action="store_true")
    ap.add_argument("--no-recycle", action="store_true")
    args = ap.parse_args()
    if args.no_recycle:
        from passcheck.core.engine.worker import Worker

        Worker.RECYCLE_AFTER = 10**12

    from passcheck.core.engine.results import RunConfig
    from passcheck.core.engine.run import run

    print(f"{'pass':<18} {'examples':>8} {'ex/s':>6} {'findings':>8} {'runner peak':>11} {'runner slope':>12} "
          f"{'worker peak':>11} {'worker slope':>12} {'halves':>9}  (MiB; slope in MiB per 1,000 examples; "
          "halves: the worker peak of each half of the run after its first 10%)")
    for name in args.passes.split(","):
        sampler = Sampler()

        def progress(phase: str, done: int, total: int, findings: int, sampler: Sampler = sampler) -> None:
            if phase == "explore":
                sampler.done = done

        sampler.start()
        t0 = time.perf_counter()
        result = run(RunConfig(subject=name, examples=args.examples, seed=args.seed, jobs=args.jobs,
                               findings_dir="/tmp/passcheck-soak-findings", kernel_cache=not args.no_kernel_cache),
                     progress)
        wall = time.perf_counter() - t0
        sampler.stop.set()
        sampler.join()
        s = sampler.samples
        print(f"{name:<18} {result.examples:>8} {result.examples / wall:>6.1f} {len(result.findings):>8} "
              f"{max(x[1] for x in s):>11.0f} {slope(s, 1):>12.2f} {max(x[2] for x in s):>11.0f} "
              f"{slope(s, 2):>12.2f} {halves(s)}", flush=True)
        for f in result.findings:
            label = f"known TVM bug {f.known_bug}" if f.known_bug else "NOT A KNOWN BUG: a TVM bug to keep, or a false alarm"
            print(f"    {f.property} ({f.kind}): {label}: {f.message[:200]}")


if __name__ == "__main__":
    main()
