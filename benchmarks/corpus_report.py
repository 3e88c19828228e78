"""How TVM's own pass-test modules fare under passcheck: per pass, how many Before modules
load, run (are built and transformed) and hold (every property held or did not apply), and
every finding, one line each.

    python benchmarks/corpus_report.py [tests/fixtures/tvm_corpus]

Each folder ``relax/<PASS>`` is checked with ``passcheck <PASS>``; each ``s_tir/<PASS>`` with
``tvm.s_tir.transform:<PASS>`` as a TIR pass (``--ir tir``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from passcheck.core.corpus import corpus_for
from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import plan
from passcheck.core.engine.results import RunConfig
from passcheck.core.outcome import Verdict


def check_folder(folder: Path) -> tuple[str, int, int, int, int, list[str]]:
    family, name = folder.parent.name, folder.name
    subject, ir = (name, "relax") if family == "relax" else (f"tvm.s_tir.transform:{name}", "tir")
    files = len(list(folder.glob("*.py")))
    corpus = corpus_for([str(folder)], subject, ir)
    config = RunConfig(subject=subject, ir=ir, examples=0, explicit_examples=tuple(corpus.examples), timeout=120)
    p = plan(config)
    ran = held = 0
    notes = [f"  did not load: {Path(path).name}: {why[:150]}" for path, why in corpus.skipped]
    with Evaluator(p) as evaluate:
        for ex in corpus.examples:
            res = evaluate(ex)
            if res.rejected is not None:
                notes.append(f"  not run: {Path(ex.origin.split(':')[0]).name}: {res.rejected[:150]}")
                continue
            ran += 1
            failed = {k: o for k, o in res.outcomes.items() if o.verdict.finding}
            if not failed:
                held += 1
            for k, o in failed.items():
                first = o.message.strip().splitlines()[0][:220] if o.message.strip() else ""
                notes.append(f"  FINDING {Path(ex.origin.split(':')[0]).name}: {k} ({o.verdict}): {first}")
            unknown = [k for k, o in res.outcomes.items() if o.verdict == Verdict.UNKNOWN]
            if unknown:
                notes.append(f"  unknown: {Path(ex.origin.split(':')[0]).name}: {', '.join(unknown)}")
    return f"{family}/{name}", files, len(corpus.examples), ran, held, notes


def main(root: str = "tests/fixtures/tvm_corpus") -> None:
    rows = []
    for folder in sorted(p for p in Path(root).glob("*/*") if p.is_dir()):
        row = check_folder(folder)
        rows.append(row)
        print(f"{row[0]}: {row[1]} modules, {row[2]} load, {row[3]} run, {row[4]} hold", flush=True)
        for line in row[5]:
            print(line, flush=True)
    tot = [sum(r[i] for r in rows) for i in (1, 2, 3, 4)]
    print(f"total: {tot[0]} modules, {tot[1]} load, {tot[2]} run, {tot[3]} hold")


if __name__ == "__main__":
    main(*sys.argv[1:])
