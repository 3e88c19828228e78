"""A pass that hangs on one input in ten: how long a run takes with the adapted time limit.

The pass (tests/buggy_passes.py:fold_constant_hangs_one_in_ten) spins forever on the modules whose
structural hash ends in 0. With the old fixed 60 s limit each hanging example cost at least two
limits (its batch, then alone): the run below would have waited ``2 x 60 s x hangs / jobs`` on the
hangs alone, printed beside the time the run took. Every property on, default settings.

    python benchmarks/hangs.py [--examples 200] [--jobs 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import passcheck  # noqa: E402

OLD_LIMIT_S = 60.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ns = ap.parse_args()
    impl = f"{ROOT / 'tests' / 'buggy_passes.py'}:fold_constant_hangs_one_in_ten"
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        result = passcheck.check("FoldConstant", impl=impl, examples=ns.examples, seed=ns.seed, jobs=ns.jobs,
                                 findings_dir=out)
        took = time.perf_counter() - t0
    stats = result.stats["pass_does_not_raise"]
    hangs = sum(n for k, n in stats.kinds.items() if k.startswith("no result after"))
    shrunk = [f for f in result.findings if f.kind == "timeout" and f.shrunk]
    old = 2 * OLD_LIMIT_S * hangs / ns.jobs
    print(f"FoldConstant, a pass hanging on one input in ten: {result.examples} examples, {hangs} hung, "
          f"--jobs {ns.jobs}, load average {os.getloadavg()[0]:.1f}")
    print(f"  run: {took:.0f} s (shrinking {result.shrink_s:.0f} s; the hang shrunk: {bool(shrunk)}); "
          f"limit at the end {result.timeout_s:.1f} s ({result.timeout_rule})")
    print(f"  the hangs alone under the old fixed {OLD_LIMIT_S:g} s limit: >= {old:.0f} s "
          f"({old / took:.1f}x this run's whole time)")


if __name__ == "__main__":
    main()
