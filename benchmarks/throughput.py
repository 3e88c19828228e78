"""Examples per second: passcheck (every property on) vs the naive loop, on the same graphs.

The naive loop is what one would write by hand: build the graph, run the pass (with its
prerequisites), compile before and after with default LLVM, run both, ``np.allclose``.
passcheck runs the engine the CLI runs (``run``: worker processes, batches, every shipped
property) on the same graphs, with each ``--jobs`` count; the ratio is to the naive loop's
examples/s in the same run. Under each pass: the time per example by stage, and how close the
run came to the limit the pass under test itself sets.

    python benchmarks/throughput.py [--graphs 60] [--passes FuseOps,FoldConstant,...] [--jobs 1,2]
"""

from __future__ import annotations

import argparse
import time
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


def passcheck_run(name: str, specs: list[Any], jobs: int, batch: int) -> tuple[float, Any]:
    """The engine the CLI runs (``run``), on exactly these graphs (as explicit examples)."""
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.engine.run import run

    config = RunConfig(subject=name, examples=0, explicit_examples=tuple(specs), jobs=jobs, batch=batch,
                       timeout=120, findings_dir="/tmp/passcheck-throughput-findings")
    t0 = time.perf_counter()
    result = run(config)
    return time.perf_counter() - t0, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--passes", default="FuseOps,FoldConstant,AlterOpLayout,SimplifyInference")
    ap.add_argument("--jobs", default="1,2", help="worker counts to measure (comma-separated)")
    ap.add_argument("--batch", type=int, default=16)
    args = ap.parse_args()

    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig
    from passcheck.integrations.reports.breakdown import stages

    jobs_list = [int(j) for j in args.jobs.split(",")]
    print(f"{'pass':<18} {'graphs':>6} {'naive ex/s':>10} " + " ".join(f"{'jobs ' + str(j) + ' ex/s':>12} {'ratio':>6}"
                                                             for j in jobs_list) + f" {'findings':>8}")
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
        print(f"{name:<18} {n:>6} {n / t_naive:>10.2f} " + " ".join(row) + f" {len(results[-1].findings):>8}",
              flush=True)
        last = results[-1]
        spent = stages(last)
        total = sum(v for _, v in spent)
        print("    CPU per example by stage: " + ", ".join(f"{k} {1000 * v / n:.1f} ms" for k, v in spent)
              + f" (sum {1000 * total / n:.1f} ms)")
        naive_cpu = naive_loop.cpu / n  # type: ignore[attr-defined]
        print(f"    CPU per example: naive loop {1000 * naive_cpu:.1f} ms, passcheck {1000 * total / n:.1f} ms "
              f"({naive_cpu / (total / n):.2f}x less); on {last.config.workers} idle cores passcheck would do "
              f"{naive_cpu / (total / n) * last.config.workers:.1f}x the naive loop's examples/s")
        own = last.timings.get("pass", 0.0)
        if own:
            # The limit the pass under test sets: no run of it can cost less than the pass itself.
            print(f"    the pass under test alone: {1000 * own / n:.1f} ms of CPU per example; passcheck's whole "
                  f"example costs {total / own:.2f}x that ({100 * (total - own) / total:.0f}% of it is passcheck's)")


if __name__ == "__main__":
    main()
