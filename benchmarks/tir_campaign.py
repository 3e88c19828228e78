"""Run TIR subjects in-process over Hypothesis-drawn examples and tally the outcomes.

A stand-in for the runner, for benchmarks and long campaigns: it draws examples, builds each
case and runs every applicable TIR property, counting held / violated / discarded per
property, timing the Z3 bounds check, and keeping the findings. Execution only ever happens
after Z3 proved the code in bounds, so running in-process is safe for correct bounds.

    .venv/bin/python benchmarks/tir_campaign.py split fuse --examples 300
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from passcheck.core.errors import Discard, GeneratorRejected, Violation  # noqa: E402
from passcheck.core.property import all_properties  # noqa: E402
from passcheck.core.subject import Options  # noqa: E402


@dataclass
class Tally:
    subject: str
    examples: int = 0
    discarded: collections.Counter = field(default_factory=collections.Counter)
    held: collections.Counter = field(default_factory=collections.Counter)
    prop_discards: collections.Counter = field(default_factory=collections.Counter)
    findings: list[tuple[str, str, str]] = field(default_factory=list)  # (property, example, message)
    z3_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0
    slowest: list[tuple[float, str]] = field(default_factory=list)

    def line(self) -> str:
        rate = self.examples / self.seconds if self.seconds else 0.0
        disc = sum(self.discarded.values())
        return (f"{self.subject:26s} examples {self.examples:5d}  discarded {disc:5d}  findings "
                f"{len(self.findings):3d}  {rate:6.1f} ex/s")


def tir_properties() -> list[Any]:
    import passcheck.properties.tir_generic  # noqa: F401
    try:
        import passcheck.properties.tir_schedule  # noqa: F401
    except ModuleNotFoundError:
        pass
    return [p for p in all_properties() if p.ir == "tir"]


CURRENT: list[str] = []  # path of the file naming the example in flight (for crash reports)


def run_case(subject: Any, example: Any, options: Options, tally: Tally, impl: Any = None) -> None:
    t0 = time.perf_counter()
    try:
        _run_case(subject, example, options, tally, impl)
    finally:
        dt = time.perf_counter() - t0
        tally.slowest = sorted([*tally.slowest, (dt, subject.describe_example(example))], reverse=True)[:5]


def _run_case(subject: Any, example: Any, options: Options, tally: Tally, impl: Any = None) -> None:
    tally.examples += 1
    if CURRENT:
        Path(CURRENT[0]).write_text(subject.describe_example(example))
    try:
        case = subject.make_case(example, impl, options)
    except (Discard, GeneratorRejected) as e:
        tally.discarded[str(e).split(":")[0][:60]] += 1
        return
    except Exception as e:  # noqa: BLE001
        tally.findings.append(("make_case", subject.describe_example(example), traceback.format_exc()))
        _ = e
        return
    for p in tir_properties():
        if not p.applies_to(subject.names, "tir"):
            continue
        try:
            p.func(case)
            tally.held[p.name] += 1
        except Discard as e:
            tally.prop_discards[f"{p.name}: {str(e)[:70]}"] += 1
        except Violation as e:
            tally.findings.append((p.name, subject.describe_example(example), str(e)))
        except Exception:  # noqa: BLE001
            tally.findings.append((p.name + " (crashed)", subject.describe_example(example), traceback.format_exc()))
    b = case._memo.get(("bounds", "after"))
    if b is not None:
        tally.z3_ms.append(b.seconds * 1000)


def campaign(subject: Any, n: int, seed: int = 0, options: Options | None = None, impl: Any = None) -> Tally:
    options = options or Options()
    tally = Tally(subject.name)
    t0 = time.perf_counter()

    @settings(max_examples=n, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(st.data())
    def body(data: Any) -> None:
        run_case(subject, data.draw(subject.strategy(options)), options, tally, impl)

    import random
    random.seed(seed)
    body._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    body()
    tally.seconds = time.perf_counter() - t0
    return tally


def isolated(subject_name: str, n: int, seed: int, options: Options | None = None, chunk: int = 50) -> Tally:
    """``campaign`` in forked children of ``chunk`` examples each: a segfault ends only its
    chunk, reported as a finding naming the example in flight, and the campaign goes on."""
    import multiprocessing as mp
    import tempfile

    ctx = mp.get_context("fork")
    total = Tally(subject_name)
    t0 = time.perf_counter()
    for i in range((n + chunk - 1) // chunk):
        size = min(chunk, n - i * chunk)
        r, w = ctx.Pipe(duplex=False)
        cur = tempfile.NamedTemporaryFile(prefix="passcheck-tir-", suffix=".txt", delete=False).name

        def child(w: Any = w, cur: str = cur, size: int = size, i: int = i) -> None:
            from passcheck.tir.subjects import TIR_SUBJECTS

            CURRENT[:] = [cur]
            w.send(campaign(TIR_SUBJECTS[subject_name], size, seed * 10007 + i, options))

        proc = ctx.Process(target=child)
        proc.start()
        w.close()
        try:
            t = r.recv()
        except EOFError:
            t = Tally(subject_name)
            t.examples = 1
            t.findings.append(("process crashed", Path(cur).read_text() if Path(cur).exists() else "?",
                               "the worker died (signal) while running this example"))
        proc.join()
        Path(cur).unlink(missing_ok=True)
        total.examples += t.examples
        total.discarded.update(t.discarded)
        total.held.update(t.held)
        total.prop_discards.update(t.prop_discards)
        total.findings += t.findings
        total.z3_ms += t.z3_ms
        total.slowest = sorted(total.slowest + t.slowest, reverse=True)[:5]
    total.seconds = time.perf_counter() - t0
    return total


def main() -> int:
    from passcheck.tir.subjects import TIR_SUBJECTS

    ap = argparse.ArgumentParser()
    ap.add_argument("subjects", nargs="*", default=list(TIR_SUBJECTS))
    ap.add_argument("--examples", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--json", help="append one JSON line per subject (counts, timings, findings) to this file")
    args = ap.parse_args()
    total = 0
    for name in args.subjects:
        t = isolated(name, args.examples, args.seed)
        print(t.line(), flush=True)
        if args.json:
            import json
            with open(args.json, "a") as fh:
                fh.write(json.dumps({
                    "subject": name, "examples": t.examples, "discarded": sum(t.discarded.values()),
                    "seconds": t.seconds, "z3_ms": t.z3_ms, "held": dict(t.held),
                    "prop_discards": dict(t.prop_discards),
                    "findings": [(p, ex, msg[:3000]) for p, ex, msg in t.findings]}) + "\n")
        if args.verbose:
            for k, v in t.discarded.most_common(6):
                print(f"    discard {v:4d} {k}")
            for k, v in t.prop_discards.most_common(6):
                print(f"    prop-discard {v:4d} {k}")
            print(f"    held {dict(t.held)}")
            for dt, ex in t.slowest[:3]:
                print(f"    slow {dt:6.2f}s {ex[:200]}")
        for prop_name, ex, msg in t.findings[:5]:
            print(f"  FINDING {prop_name}: {ex}\n    {msg[:1500]}")
        total += len(t.findings)
    return 1 if total else 0


if __name__ == "__main__":
    raise SystemExit(main())
