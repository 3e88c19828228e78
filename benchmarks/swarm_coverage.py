"""What swarm testing changes in what the headline passes draw: the forms (relax/forms.py: each
op's attribute forms, the dtypes ops read, input value forms, structures; the ops themselves) of
``--examples`` drawn examples at each seed, with each pass's declared swarm and with it off
(``Swarm()``, which draws exactly what the generator drew before swarms existed). Nothing is
compiled: these are the draws a campaign at that seed starts from (``passcheck list --forms``).

Per pass and category it prints the forms reached (mean over the seeds), those reached by at
least 5 examples of a run (a form drawn once or twice tests little), and the forms no run of one
mode reached while the other reached them (over every seed).

    .venv/bin/python benchmarks/swarm_coverage.py [--examples 2000] [--seeds 0,1] [--passes A,B]
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from dataclasses import replace

PASSES = ("FuseOps", "FoldConstant", "AlterOpLayout", "SimplifyInference")
CATEGORIES = ("ops", "attribute forms", "op dtypes", "value forms", "structures")


def coverage(name: str, examples: int, seed: int, swarm: bool) -> dict[str, Counter[str]]:
    from passcheck.core.subject import resolve
    from passcheck.integrations.commands.forms import drawn_coverage
    from passcheck.relax.swarm import Swarm

    subject = resolve(name)
    declared = subject.bias
    if not swarm:
        subject.bias = replace(declared, swarm=Swarm())
    try:
        return drawn_coverage(name, examples, seed)[1]
    finally:
        subject.bias = declared


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--passes", default=",".join(PASSES))
    args = ap.parse_args()
    import passcheck.relax.passes  # noqa: F401  (registers the passes)

    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"forms of {args.examples} drawn examples at seeds {seeds}: swarm off -> on "
          f"(reached; reached by >= 5 examples; reached only by this mode)")
    for name in args.passes.split(","):
        runs = {mode: [coverage(name, args.examples, s, mode) for s in seeds] for mode in (False, True)}
        for cat in CATEGORIES:
            reached = {m: statistics.mean(len(r.get(cat, ())) for r in rs) for m, rs in runs.items()}
            dense = {m: statistics.mean(sum(v >= 5 for v in r.get(cat, Counter()).values()) for r in rs)
                     for m, rs in runs.items()}
            union = {m: set().union(*(r.get(cat, Counter()).keys() for r in rs)) for m, rs in runs.items()}
            only = {m: len(union[m] - union[not m]) for m in union}
            print(f"{name:18s} {cat:16s} reached {reached[False]:6.1f} -> {reached[True]:6.1f}   "
                  f">=5: {dense[False]:6.1f} -> {dense[True]:6.1f}   only: {only[False]:4d} | {only[True]:4d}")


if __name__ == "__main__":
    main()
