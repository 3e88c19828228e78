"""Examples per second: passcheck (every property on) vs the naive loop, on the same graphs.

The naive loop is what one would write by hand: build the graph, run the pass (with its
prerequisites), compile before and after with default LLVM, run both, ``np.allclose``.
passcheck runs through its engine's own apply-and-check stage (``Evaluator``: the worker
process the CLI uses), with every shipped property.

    python benchmarks/throughput.py [--graphs 60] [--passes FuseOps,FoldConstant,...]
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

    collect()
    return out[:n]


def naive_loop(subject: Any, specs: list[Any]) -> tuple[float, int]:
    import tvm
    from tvm import relax

    from passcheck.relax.build import build_module
    from passcheck.relax.execution import flatten_outputs
    from passcheck.relax.spec import input_arrays

    t0 = time.perf_counter()
    agree = 0
    for spec in specs:
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
    return time.perf_counter() - t0, agree


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--passes", default="FuseOps,FoldConstant,AlterOpLayout,SimplifyInference")
    args = ap.parse_args()

    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    print(f"{'pass':<18} {'graphs':>6} {'passcheck ex/s':>15} {'naive ex/s':>11} {'ratio':>6} "
          f"{'findings':>8} {'props':>5}")
    for name in args.passes.split(","):
        p = plan(RunConfig(subject=name, timeout=120))
        subject, props = p.subject, p.properties
        specs = draw_graphs(subject, args.graphs, args.seed)
        with Evaluator(p) as evaluate:
            evaluate(specs[0])  # warm-up: first compile in a process pays one-off costs
            t0 = time.perf_counter()
            failing = 0
            for spec in specs:
                failing += bool(evaluate(spec).failed)
            t_pc = time.perf_counter() - t0
        naive_loop(subject, specs[:1])  # same warm-up for the naive loop
        t_naive, _ = naive_loop(subject, specs)
        n = len(specs)
        print(f"{name:<18} {n:>6} {n / t_pc:>15.2f} {n / t_naive:>11.2f} {t_naive / t_pc:>6.2f} "
              f"{failing:>8} {len(props):>5}", flush=True)


if __name__ == "__main__":
    main()
