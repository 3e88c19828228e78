"""Mutation throughput: how fast mutants are made, and what checking them costs, against the
unmutated graphs and the naive mutate-compile-compare loop in the same run.

* **making**: mutants (IR and float64 reference with its bound) built per second, K rounds each,
  no compilation;
* **checking**: examples/s of passcheck's engine (the CLI's worker, every property of the pass,
  ``mutant_agrees`` included) on the same graphs, unmutated and with ``--mutate K``;
* **naive**: build m and T(m), run the pass on both, compile both with default LLVM, run,
  ``np.allclose`` -- what one would write by hand.

    python benchmarks/mutation_throughput.py [--graphs 40] [--rounds 1,3] [--pass FuseOps]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, seed, settings


def draw(strategy: Any, n: int, seed_value: int) -> list[Any]:
    out: list[Any] = []

    @seed(seed_value)
    @settings(max_examples=n, phases=[Phase.generate], deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example: Any) -> None:
        out.append(example)

    from passcheck.core.draws import seed_only

    with seed_only():  # the same graphs whatever the process imported before
        collect()
    return out[:n]


def making(mutants: list[Any]) -> float:
    from passcheck.relax.mutate.graph import MutantCase

    t0 = time.perf_counter()
    for m in mutants:
        MutantCase("bench", m)
    return len(mutants) / (time.perf_counter() - t0)


def checking(subject_name: str, examples: list[Any]) -> float:
    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    p = plan(RunConfig(subject=subject_name, timeout=300))
    with Evaluator(p) as evaluate:
        evaluate(examples[0])  # start the worker outside the timing
        t0 = time.perf_counter()
        for ex in examples:
            evaluate(ex)
    return len(examples) / (time.perf_counter() - t0)


def naive(subject: Any, mutants: list[Any]) -> float:
    import tvm
    from tvm import relax

    from passcheck.relax.build import build_module
    from passcheck.relax.execution import flatten_outputs
    from passcheck.relax.mutate.graph import MutantCase

    t0 = time.perf_counter()
    for m in mutants:
        case = MutantCase("naive", m)
        outs = []
        for mod in (build_module(m.base), case.built):
            mod = subject.prepare(mod)
            after = subject.make_pass(m.base.extras)(mod)
            for name in subject.follow_ups:
                after = getattr(relax.transform, name)()(after)
            vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
            outs.append(flatten_outputs(vm["main"](*case.params())))
        all(np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True) for a, b in zip(*outs))
    return len(mutants) / (time.perf_counter() - t0)


def main() -> None:
    from passcheck.core.subject import MUTATE, Options, resolve

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=40)
    ap.add_argument("--rounds", default="1,3")
    ap.add_argument("--pass", dest="subject", default="FuseOps")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    subject = resolve(args.subject)
    graphs = draw(subject.strategy(Options()), args.graphs, args.seed)
    base = checking(args.subject, graphs)
    print(f"{args.subject}, {len(graphs)} graphs: unmutated {base:.2f} examples/s (every property)")
    for k in (int(r) for r in args.rounds.split(",")):
        mutants = draw(subject.strategy(Options(extra=((MUTATE, k),))), args.graphs, args.seed)
        made = making(mutants)
        checked = checking(args.subject, mutants)
        by_hand = naive(subject, mutants)
        print(f"--mutate {k}: {made:.1f} mutants made/s (IR + float64 reference); checked {checked:.2f} examples/s "
              f"= {checked / base:.2f}x the unmutated rate; naive mutate-compile-allclose loop {by_hand:.2f}/s "
              f"(passcheck {checked / by_hand:.2f}x it)")


if __name__ == "__main__":
    main()
