"""Z3 bounds-check time per PrimFunc.

Part 1 draws scheduled PrimFuncs from the ``schedule`` subject (random sequences of 1-8 steps
over every PrimFunc kind, symbolic shapes included; ``--subject`` names another TIR subject, a
TIR pass), lowers each, and times ``check_bounds`` alone: median, p95, max, how many accesses
the interval pass proved, how many functions needed Z3, unknowns and violations. The unknown
rate is printed twice, for the same functions: with Z3 alone (``retry=False``: what
``bounds_safe_z3`` answered before unknowns became a budget) and with the boundary points and
bit-blasting that now follow a Z3 "unknown".

Examples/s per primitive, through the real engine: ``benchmarks/primitive_campaigns.py``.

    .venv/bin/python benchmarks/z3_bounds.py --examples 300
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from passcheck.core.errors import Discard, GeneratorRejected  # noqa: E402
from passcheck.core.subject import Options  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


@dataclass
class Row:
    ms: float
    spec: str
    accesses: int
    by_intervals: int
    queries: int
    violations: int
    unknown: int
    summary: str
    unknown_z3_alone: int = 0


def _chunk(n: int, seed: int, out: list[Row], subject_name: str = "schedule") -> int:
    """Draw ``n`` schedule examples and time the bounds check of each; returns how many did
    not apply. Rows are appended as they come (a crash keeps what was measured)."""
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.engine.session import Session
    from passcheck.tir.analysis import check_bounds
    from passcheck.tir.lowering import lower_to_loops

    run_plan = plan(RunConfig(subject=subject_name, ir="tir"))
    session = Session(run_plan.worker_config(""))  # the subject and its pass, as a worker has them
    subject = run_plan.subject
    opts = Options()
    skipped = 0

    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=["generate"])
    @given(st.data())
    def body(data: Any) -> None:
        nonlocal skipped
        ex = data.draw(subject.strategy(opts))
        try:
            case = session.apply(ex)
            if case.after is None:
                skipped += 1
                return
            low = lower_to_loops(case.after)
        except (Discard, GeneratorRejected, Exception):  # noqa: BLE001 - only timing what lowers
            skipped += 1
            return
        t0 = time.perf_counter()
        res = check_bounds(low)
        ms = (time.perf_counter() - t0) * 1000
        alone = check_bounds(low, retry=False)
        spec = getattr(ex, "spec", ex)
        out.append(Row(ms, spec.short() if hasattr(spec, "short") else type(ex).__name__, res.accesses,
                       res.by_intervals, res.queries, len(res.violations), len(res.unknown), res.summary(),
                       len(alone.unknown)))

    hypothesis_seed(seed)(body)()
    return skipped


def time_bounds(n: int, seed: int, chunk: int = 25, subject_name: str = "schedule") -> None:
    """Chunks run in forked children: a primitive that segfaults TVM costs only its chunk."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    rows: list[Row] = []
    skipped = crashed = 0
    for i in range((n + chunk - 1) // chunk):
        r, w = ctx.Pipe(duplex=False)

        def child(w: Any = w, i: int = i) -> None:
            got: list[Row] = []
            try:
                sk = _chunk(chunk, seed * 1000 + i, got, subject_name)
            finally:
                w.send((got, locals().get("sk", 0)))

        p = ctx.Process(target=child)
        p.start()
        w.close()
        try:
            got, sk = r.recv()
            rows += got
            skipped += sk
        except EOFError:
            crashed += 1
        p.join()
    ms = [r.ms for r in rows]
    sym = [r.ms for r in rows if "+sym" in r.spec]
    print(f"Z3 bounds check on {len(rows)} scheduled+lowered PrimFuncs ({skipped} drawn examples did not "
          f"apply; {crashed} chunks lost to TVM crashes):")
    print(f"  median {statistics.median(ms):.1f} ms   p95 {pct(ms, 0.95):.1f} ms   max {max(ms):.1f} ms   "
          f"mean {statistics.mean(ms):.1f} ms")
    if sym:
        print(f"  symbolic-shape functions ({len(sym)}): median {statistics.median(sym):.1f} ms, p95 {pct(sym, 0.95):.1f} ms")
    acc = sum(r.accesses for r in rows)
    byi = sum(r.by_intervals for r in rows)
    print(f"  accesses {acc}, proved by the interval pass {byi} ({100 * byi / max(acc, 1):.1f}%), functions "
          f"needing Z3 {sum(r.queries > 0 for r in rows)}, Z3 queries {sum(r.queries for r in rows)}")
    print(f"  violations in {sum(r.violations > 0 for r in rows)} functions, unknown in "
          f"{sum(r.unknown > 0 for r in rows)}")
    before = sum(r.unknown_z3_alone > 0 for r in rows)
    after = sum(r.unknown > 0 for r in rows)
    print(f"  unknown rate (functions with an access left undecided): Z3 alone {before} of {len(rows)} "
          f"({100 * before / max(len(rows), 1):.2f}%), with boundary points and bit-blasting {after} "
          f"({100 * after / max(len(rows), 1):.2f}%)")
    for r in sorted(rows, key=lambda r: -r.ms)[:3]:
        print(f"  slowest: {r.ms:.0f} ms  {r.spec}  ({r.summary})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--subject", default="schedule",
                    help="a TIR subject: schedule, a primitive, a TIR pass (e.g. tvm.s_tir.transform:LowerOpaqueBlock)")
    args = ap.parse_args()
    time_bounds(args.examples, args.seed, subject_name=args.subject)


if __name__ == "__main__":
    main()
