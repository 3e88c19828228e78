"""Run `passcheck PRIM --examples N` for every TIR primitive (or those named) and print one row
per primitive: examples/s, how many examples each property held on, findings and how many of
them the known-bug registry recognises (a finding is one shrunk example per property), and the
kinds of violation messages (what else failed). ``--triage`` re-runs the examples and puts every
violation, not only each property's first, to the registry.

Each campaign is the real CLI in its own process (a crashing primitive only ends its own run),
``--jobs`` at a time; reports land in ``--out`` as JSON, and ``--summarize`` re-prints the table
from reports already there.

    .venv/bin/python benchmarks/primitive_campaigns.py --examples 2000 --jobs 2 --out campaigns/
    .venv/bin/python benchmarks/primitive_campaigns.py split fuse --examples 300
    .venv/bin/python benchmarks/primitive_campaigns.py --summarize --out campaigns/
    .venv/bin/python benchmarks/primitive_campaigns.py compute_at --examples 500 --triage
    nice .venv/bin/python benchmarks/primitive_campaigns.py --examples 500 --jobs 1 --cli-jobs 2 --out c500/

The table is also written to ``OUT/summary.txt``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def all_primitives() -> list[str]:
    from passcheck.tir.subjects import tir_subjects

    return list(tir_subjects())


def run_one(name: str, args: argparse.Namespace) -> tuple[str, int, float]:
    out = Path(args.out)
    cmd = [sys.executable, "-m", "passcheck", name, "--examples", str(args.examples), "--seed", str(args.seed),
           "--no-progress", "--shrink-time", str(args.shrink_time), "--findings-dir", str(out / "findings"),
           "--report", f"json:{out / (name + '.json')}"]
    if args.cli_jobs:
        cmd += ["--jobs", str(args.cli_jobs)]
    t0 = time.perf_counter()
    with open(out / f"{name}.txt", "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    return name, rc, time.perf_counter() - t0


def known_bug_of(name: str, finding: dict[str, Any]) -> str | None:
    """The kept repro the current known-bug registry recognises a reported finding as (the
    registry may have grown since the report was written): read back from its repro folder."""
    from passcheck.core.known import recognise_example
    from passcheck.tir.subjects import tir_subject

    repro = Path(finding["repro"])
    if not repro.exists():
        return finding.get("known_bug")
    ns: dict[str, Any] = {}
    exec(repro.read_text().split('if __name__ == "__main__":')[0], ns)  # noqa: S102 - passcheck's own repro

    def text(f: str) -> str:
        return (repro.parent / f).read_text() if (repro.parent / f).exists() else ""

    bug = recognise_example(tir_subject(name), finding["property"], ns["EXAMPLE"], finding["message"],
                            text("input_ir.py"), text("output_ir.py"))
    return bug.name if bug else None


def summarize(names: list[str], out: Path) -> None:
    """Print the table, and keep it as ``summary.txt`` beside the reports."""
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        _summarize(names, out)
    (out / "summary.txt").write_text(buf.getvalue())
    print(buf.getvalue(), end="")


def _summarize(names: list[str], out: Path) -> None:
    head = (f"{'primitive':26s} {'examples':>8s} {'ex/s':>6s} {'checked':>7s} {'findings':>8s} {'known':>5s}  "
            "violation kinds")
    print(head)
    print("-" * len(head))
    for name in names:
        path = out / f"{name}.json"
        if not path.exists():
            print(f"{name:26s} (no report)")
            continue
        d = json.loads(path.read_text())
        props = d["properties"]
        # examples on which the strongest check ran (execution, or bounds where nothing runs)
        checked = max((p["held"] + p["violated"] for n, p in props.items()
                       if n in ("equivalent_by_execution", "bounds_safe_z3")), default=0)
        kinds = sum(len(p.get("violation_kinds", [])) for p in props.values())
        known = [known_bug_of(name, f) for f in d["findings"]]
        print(f"{name:26s} {d['examples']:8d} {d['examples_per_s'] or 0:6.1f} {checked:7d} {len(d['findings']):8d} "
              f"{sum(k is not None for k in known):5d}  {kinds}")
        for f, k in zip(d["findings"], known):
            if k is None:
                print(f"{'':28s}NEW {f['property']}: {f['message'].splitlines()[0][:150]}")


def triage(name: str, args: argparse.Namespace) -> None:
    """The campaign's examples again (same seed, same draws), each violation put to the
    known-bug registry: per kept repro, how many violating examples it explains; every
    violation it does not, with its example."""
    from collections import Counter

    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.explore import explore
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig, message_kind
    from passcheck.core.known import recognise_example

    p = plan(RunConfig(subject=name, ir="tir", examples=args.examples, seed=args.seed))
    known: Counter[str] = Counter()
    new: Counter[tuple[str, str]] = Counter()  # (property, kind of message)
    first: dict[tuple[str, str], str] = {}
    violating = 0
    with Evaluator(p) as evaluate:
        def check(example: Any) -> Any:
            nonlocal violating
            res = evaluate(example)
            failed = [(n, o) for n, o in res.outcomes.items() if o.verdict.finding]
            violating += bool(failed)
            for n, o in failed:
                bug = recognise_example(p.subject, n, example, o.message, res.input_script, res.output_script)
                if bug is not None:
                    known[bug.name] += 1
                else:
                    k = (n, message_kind(o.message))
                    new[k] += 1
                    first.setdefault(k, f"{p.subject.describe_example(example)}\n{o.message[:900]}")
            return res

        record = explore(p, check)
    print(f"== {name}: {record.examples} examples, {violating} violating, {sum(known.values())} violations "
          f"recognised, {sum(new.values())} not", flush=True)
    for bug, count in known.most_common():
        print(f"   {count:5d}  {bug}")
    for (prop, _), count in new.most_common():
        print(f"   {count:5d}  NEW {prop}: " + first[prop, _].replace("\n", "\n             "))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="primitives (default: every TIR subject, `schedule` included)")
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--jobs", type=int, default=2, help="campaigns run at once")
    ap.add_argument("--cli-jobs", type=int, default=0,
                    help="worker processes of each campaign (passcheck --jobs; default one per core)")
    ap.add_argument("--shrink-time", type=float, default=30.0)
    ap.add_argument("--out", default="campaigns")
    ap.add_argument("--summarize", action="store_true", help="only print the table from existing reports")
    ap.add_argument("--triage", action="store_true",
                    help="re-run the campaigns' examples (no shrinking, no reports) and put every violation to the "
                         "known-bug registry; print what it does not recognise")
    args = ap.parse_args()
    names = args.names or all_primitives()
    if args.triage:
        for name in names:
            triage(name, args)
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.summarize:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for name, rc, secs in pool.map(lambda n: run_one(n, args), names):
                print(f"{name}: exit {rc} in {secs:.0f} s", flush=True)
    summarize(names, out)


if __name__ == "__main__":
    main()
