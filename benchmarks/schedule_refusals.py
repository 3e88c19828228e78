"""How many drawn schedule steps are refused, per primitive: the share of steps a
``StepNotApplicable`` (the step does not resolve: its block is gone, the nest too short) or
TVM's ``ScheduleError`` turns away -- examples that test nothing.

For each primitive, ``--examples`` examples of its own strategy (the step under test, after
its preparation) and ``--sequences`` examples of ``schedule`` (every step of a sequence counts
for its primitive) are drawn with a fixed seed and applied, without any property: each example
in a forked child (some TVM bugs crash the process), counted as applied, not applicable,
refused by TVM, raised (a finding of its own) or crashed. Writes the counts as JSON, prints a
table; ``--compare OLD.json`` prints the shares of an earlier run beside them (run the script
of that earlier checkout to get it: the draws are the checkout's own).

    .venv/bin/python benchmarks/schedule_refusals.py --out refusals.json
    .venv/bin/python benchmarks/schedule_refusals.py --examples 50 split fuse
    .venv/bin/python benchmarks/schedule_refusals.py --out after.json --compare before.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REFUSED = ("not_applicable", "schedule_error")


def apply_example(example: Any, sequence: bool) -> list[tuple[str, str, str]]:
    """(primitive, role, outcome) of each step applied: role is "test", "prep" or "seq"."""
    import tvm
    from tvm import s_tir

    from passcheck.core.errors import GeneratorRejected
    from passcheck.tir.kernels import build_primfunc
    from passcheck.tir.schedule import StepNotApplicable, apply_step

    try:
        mod = tvm.IRModule({"main": build_primfunc(example.spec)})
    except GeneratorRejected:
        return []
    sch = s_tir.Schedule(mod, seed=example.spec.seed % (2**31 - 1) + 1, error_render_level="fast")
    out = []
    for i, step in enumerate(example.steps):
        role = "seq" if sequence else ("prep" if i < example.prefix else "test")
        trial = sch.copy()
        try:
            apply_step(trial, step)
            sch, outcome = trial, "applied"
        except StepNotApplicable:
            outcome = "not_applicable"
        except s_tir.ScheduleError:
            outcome = "schedule_error"
        except Exception:  # noqa: BLE001 - a finding of its own; what follows would not run
            out.append((step.prim, role, "raised"))
            break
        out.append((step.prim, role, outcome))
        if outcome != "applied" and not sequence:
            break  # the primitive's own subject discards the example here
    return out


def in_child(example: Any, sequence: bool) -> list[tuple[str, str, str]]:
    """``apply_example`` in a forked child: a crash is counted, not fatal."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = apply_example(example, sequence)
        except BaseException:  # noqa: BLE001
            res = []
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    if not data:
        return [(example.steps[-1].prim, "test" if not sequence else "seq", "crashed")]
    return [tuple(x) for x in json.loads(data)]


def measure(names: list[str], examples: int, sequences: int, seed: int) -> dict[str, dict[str, int]]:
    # Imported here, before the first fork: drawing needs no TVM, and a child importing it itself
    # spends ~1 s on that (30x the step it measures).
    import tvm  # noqa: F401
    from tvm import s_tir  # noqa: F401

    from passcheck.core.draws import examples_of
    from passcheck.core.subject import Options
    from passcheck.tir.subjects import tir_subject

    table: dict[str, Counter[str]] = defaultdict(Counter)
    for name in names if examples else ():  # --examples 0: the sequences only
        for ex in examples_of(tir_subject(name).strategy(Options()), examples, seed):
            for _prim, role, outcome in in_child(ex, False):
                table[name][f"{'own' if role == 'test' else 'prep'}:{outcome}"] += 1
        print(f"{name}: {dict(table[name])}", file=sys.stderr, flush=True)
    if sequences:
        for ex in examples_of(tir_subject("schedule").strategy(Options()), sequences, seed):
            for prim, _, outcome in in_child(ex, True):
                table[prim][f"seq:{outcome}"] += 1
    return {k: dict(v) for k, v in table.items()}


def share(counts: dict[str, int], role: str) -> tuple[float | None, int]:
    """(share of drawn steps refused, steps drawn) for ``role`` ("own" or "seq")."""
    drawn = sum(v for k, v in counts.items() if k.startswith(role + ":"))
    refused = sum(counts.get(f"{role}:{o}", 0) for o in REFUSED)
    return (refused / drawn if drawn else None), drawn


def _pct(x: float | None) -> str:
    return "    -" if x is None else f"{100 * x:4.0f}%"


def print_table(now: dict[str, dict[str, int]], before: dict[str, dict[str, int]] | None) -> None:
    head = f"{'primitive':26s} {'own steps':>9s} {'refused':>7s} {'seq steps':>9s} {'refused':>7s}"
    if before is not None:
        head += f"   {'before: own':>11s} {'seq':>5s}"
    print(head)
    print("-" * len(head))
    for name in sorted(set(now) | set(before or {})):
        own, n_own = share(now.get(name, {}), "own")
        seq, n_seq = share(now.get(name, {}), "seq")
        row = f"{name:26s} {n_own:9d} {_pct(own):>7s} {n_seq:9d} {_pct(seq):>7s}"
        if before is not None:
            b_own, _ = share(before.get(name, {}), "own")
            b_seq, _ = share(before.get(name, {}), "seq")
            row += f"   {_pct(b_own):>11s} {_pct(b_seq):>5s}"
        print(row)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="primitives (default: every one that runs on the CPU)")
    ap.add_argument("--examples", type=int, default=200, help="examples of each primitive's own strategy")
    ap.add_argument("--sequences", type=int, default=500, help="examples of `schedule` (random sequences)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out", default="", help="write the counts here (JSON)")
    ap.add_argument("--compare", default="", help="counts of an earlier run (JSON) to print beside")
    args = ap.parse_args()
    from passcheck.tir.schedule import PRIMITIVES

    names = args.names or [n for n, p in PRIMITIVES.items() if not p.gpu_only]
    counts = measure(names, args.examples, args.sequences, args.seed)
    if args.out:
        Path(args.out).write_text(json.dumps(counts, indent=1, sort_keys=True))
    print_table(counts, json.loads(Path(args.compare).read_text()) if args.compare else None)


if __name__ == "__main__":
    main()
