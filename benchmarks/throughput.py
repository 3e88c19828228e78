"""Examples per second: passcheck (every property on) vs the naive loop, on the same graphs.

The naive loop is what one would write by hand: build the graph, run the pass (with its
prerequisites), compile before and after with default LLVM, run both, ``np.allclose``.
passcheck runs the engine the CLI runs (``run``: worker processes, batches, every shipped
property) on the same graphs, with each ``--jobs`` count, and once more with the kernel cache
off (``RunConfig.kernel_cache``: every module compiled from scratch, as before the cache); the
ratio is to the naive loop's examples/s in the same run. Under each pass: the CPU per example by
stage without and with the cache, the cache's hit rate, and how close the run came to the limit
the pass under test itself sets.

    python benchmarks/throughput.py [--graphs 60] [--passes FuseOps,FoldConstant,...] [--jobs 1,2]
                                    [--readme README.md]

``--readme`` rewrites the table between the README's ``<!-- throughput -->`` markers with this
run's figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, seed, settings


def draw_graphs(subject: Any, n: int, seed_value: int) -> list[Any]:
    from passcheck.core.subject import Options

    out: list[Any] = []

    @seed(seed_value)
    @settings(max_examples=n, phases=[Phase.generate], deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(subject.strategy(Options()))
    def collect(spec: Any) -> None:
        out.append(spec)

    from passcheck.core.draws import seed_only

    with seed_only():  # the same graphs whatever the process imported before
        collect()
    return out[:n]


def naive_loop(subject: Any, specs: list[Any]) -> tuple[float, int]:
    import tvm
    from tvm import relax

    from passcheck.relax.build import build_module
    from passcheck.relax.execution import flatten_outputs
    from passcheck.relax.spec import input_arrays

    t0 = time.perf_counter()
    c0 = time.process_time()
    agree = 0
    for spec in specs:
        try:  # TVM raising on a drawn graph (kept bugs: zero-size NumPy inputs, ...) ends that example only
            mod = build_module(spec)
            for name in subject.prerequisites:
                mod = getattr(relax.transform, name)()(mod)
            after = subject.make_pass(spec.extras)(mod)
            for name in subject.follow_ups:
                after = getattr(relax.transform, name)()(after)
            ins = input_arrays(spec)
            outs = []
            for m in (mod, after):
                vm = relax.VirtualMachine(tvm.compile(m, target="llvm"), tvm.cpu())
                outs.append(flatten_outputs(vm["main"](*ins)))
            agree += all(np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True) for a, b in zip(*outs))
        except Exception:  # noqa: BLE001, S112 - the naive loop's whole error handling (shapes that differ too)
            continue
    naive_loop.cpu = time.process_time() - c0  # type: ignore[attr-defined]
    return time.perf_counter() - t0, agree


def passcheck_run(name: str, specs: list[Any], jobs: int, batch: int, cache: bool = True) -> tuple[float, Any]:
    """The engine the CLI runs (``run``), on exactly these graphs (as explicit examples)."""
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.engine.run import run

    config = RunConfig(subject=name, examples=0, explicit_examples=tuple(specs), jobs=jobs, batch=batch,
                       timeout=120, findings_dir="/tmp/passcheck-throughput-findings", kernel_cache=cache)
    t0 = time.perf_counter()
    result = run(config)
    return time.perf_counter() - t0, result


def hit_line(counts: dict[str, int]) -> str:
    from passcheck.relax import kernels

    reused, shared, compiled = (counts.get(k, 0) for k in (kernels.HIT, kernels.SHARED, kernels.COMPILED))
    looked = reused + shared + compiled
    if not looked:
        return "kernel cache: no kernel looked up"
    return (f"kernel cache: {100 * (reused + shared) / looked:.0f}% of the kernels reused ({reused} from this worker, "
            f"{shared} from another worker, {compiled} compiled; {counts.get(kernels.WHOLE, 0)} modules compiled whole)")


def stage_line(label: str, result: Any, n: int) -> tuple[str, float]:
    from passcheck.integrations.reports.breakdown import stages

    spent = stages(result)
    total = sum(v for _, v in spent)
    return (f"    CPU per example by stage, {label}: " + ", ".join(f"{k} {1000 * v / n:.1f} ms" for k, v in spent)
            + f" (sum {1000 * total / n:.1f} ms)"), total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--passes", default="FuseOps,FoldConstant,AlterOpLayout,SimplifyInference")
    ap.add_argument("--jobs", default="1,2", help="worker counts to measure (comma-separated)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--readme", metavar="FILE", help="rewrite the table between its <!-- throughput --> markers")
    args = ap.parse_args()

    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    jobs_list = [int(j) for j in args.jobs.split(",")]
    top = max(jobs_list)
    print(f"{'pass':<18} {'graphs':>6} {'naive ex/s':>10} " + " ".join(f"{'jobs ' + str(j) + ' ex/s':>12} {'ratio':>6}"
                                                             for j in jobs_list)
          + f" {'no cache ex/s':>13} {'ratio':>6} {'findings':>8}")
    rows = []
    for name in args.passes.split(","):
        subject = plan(RunConfig(subject=name)).subject
        specs = draw_graphs(subject, args.graphs, args.seed)
        naive_loop(subject, specs[:1])  # warm-up: first compile in a process pays one-off costs
        t_naive, _ = naive_loop(subject, specs)
        n = len(specs)
        row, results = [], []
        passcheck_run(name, specs[:2], 1, args.batch)  # warm-up: starts the fork server (imports TVM once)
        for jobs in jobs_list:
            wall, result = passcheck_run(name, specs, jobs, args.batch)  # wall includes forking the workers
            results.append(result)
            row.append(f"{n / wall:>12.2f} {t_naive / wall:>6.2f}")
        wall_off, off = passcheck_run(name, specs, top, args.batch, cache=False)  # as before the cache
        last = results[-1]
        same = "" if [f.message for f in off.findings] == [f.message for f in last.findings] else "  FINDINGS DIFFER"
        print(f"{name:<18} {n:>6} {n / t_naive:>10.2f} " + " ".join(row)
              + f" {n / wall_off:>13.2f} {t_naive / wall_off:>6.2f} {len(last.findings):>8}{same}", flush=True)
        line_off, _ = stage_line("kernel cache off", off, n)
        line_on, total = stage_line("kernel cache on", last, n)
        print(line_off)
        print(line_on)
        print("    " + hit_line(last.counts))
        naive_cpu = naive_loop.cpu / n  # type: ignore[attr-defined]
        print(f"    CPU per example: naive loop {1000 * naive_cpu:.1f} ms, passcheck {1000 * total / n:.1f} ms "
              f"({naive_cpu / (total / n):.2f}x less); on {last.config.workers} idle cores passcheck would do "
              f"{naive_cpu / (total / n) * last.config.workers:.1f}x the naive loop's examples/s")
        own = last.timings.get("pass", 0.0)
        if own:
            # The limit the pass under test sets: no run of it can cost less than the pass itself.
            print(f"    the pass under test alone: {1000 * own / n:.1f} ms of CPU per example; passcheck's whole "
                  f"example costs {total / own:.2f}x that ({100 * (total - own) / total:.0f}% of it is passcheck's)")
        _, total_off = stage_line("", off, n)
        reused = hit_line(last.counts).split(": ", 1)[1].split("% ")[0]
        rows.append({"pass": name, "naive": n / t_naive, "ex/s": n / wall, "ratio": t_naive / wall,
                     "ratio off": t_naive / wall_off, "cpu off": 1000 * total_off / n, "cpu on": 1000 * total / n,
                     "reused": f"{reused}%" if reused.isdigit() else "–",
                     "share": f"{100 * (total - own) / total:.0f}%" if own else "–"})
    if args.readme:
        write_table(Path(args.readme), rows, top, args.graphs)


def write_table(readme: Path, rows: list[dict[str, Any]], jobs: int, graphs: int) -> None:
    """The README's table, between its ``<!-- throughput -->`` and ``<!-- /throughput -->`` markers."""
    lines = ["| pass | naive loop ex/s | passcheck ex/s | ratio | ratio without the kernel cache | CPU per example "
             "without → with the cache | kernels reused | passcheck's share of the CPU |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['pass']} | {r['naive']:.1f} | {r['ex/s']:.1f} | {r['ratio']:.1f}× | {r['ratio off']:.1f}× | "
                     f"{r['cpu off']:.0f} → {r['cpu on']:.0f} ms | {r['reused']} | {r['share']} |")
    lines.append(f"\n({graphs} graphs per pass, `--jobs {jobs}`, {platform.machine()} with {os.cpu_count()} cores; "
                 f"`python benchmarks/throughput.py --jobs {jobs} --readme README.md` wrote this table.)")
    text = readme.read_text()
    pattern = re.compile(r"(<!-- throughput -->\n).*?(\n<!-- /throughput -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{readme}: no <!-- throughput --> ... <!-- /throughput --> markers")
    readme.write_text(pattern.sub(lambda m: m.group(1) + "\n".join(lines) + m.group(2), text))
    print(f"wrote the table in {readme}")


if __name__ == "__main__":
    main()
