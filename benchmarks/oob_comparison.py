"""Which out-of-bounds cases do passcheck's Z3 checker, TVM's OOBChecker and a
``tvm.sym.Analyzer`` interval checker catch, on the same PrimFuncs?

Each case is a small kernel whose truth is known by construction (the labelled corpus in
tests/tir/oob_corpus.py, which the tests hold passcheck to): "OOB" (some execution reads or
writes outside a buffer) or "safe". Columns:

* passcheck   -- ``passcheck.tir.analysis.check_bounds`` on the lowered (block-free) function;
* OOBChecker  -- ``tvm.s_tir.analysis.OOBChecker()`` on the function as given (block IR when
                 it has blocks) and on the lowered function;
* Analyzer    -- loop ranges + enclosing ``if`` conditions + ``Bind`` values in a
                 ``tvm.sym.Analyzer``, ``can_prove(0 <= index < extent)`` (notes §8.1), lowered.

A cell is "caught" / "missed" for OOB cases and "clean" / "FALSE ALARM" for safe ones;
passcheck may also answer "unknown" (never a violation).

    .venv/bin/python benchmarks/oob_comparison.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tvm  # noqa: E402
import tvm_ffi  # noqa: E402
from tvm import s_tir, sym, tirx  # noqa: E402

from passcheck.tir.analysis import check_bounds  # noqa: E402
from passcheck.tir.lowering import has_blocks, lower_to_loops  # noqa: E402
from tests.tir.oob_corpus import CASES  # noqa: E402

# --- the three checkers ------------------------------------------------------------------------


def lowered(func: Any) -> Any:
    """Block-free form: block IR goes through the build's lowering prefix; plain TIR is used as
    written (StmtSimplify would constant-fold, and TVM's folder rejects int32 overflow)."""
    return lower_to_loops(func)["main"] if has_blocks(func) else func



def passcheck_says(func: Any) -> str:
    res = check_bounds(lowered(func))
    if res.violations:
        return "OOB"
    return "unknown" if res.unknown else "safe"


def oobchecker_says(func: Any) -> str:
    try:
        s_tir.analysis.OOBChecker()(tvm.IRModule({"main": func}))
        return "safe"
    except Exception as e:  # noqa: BLE001
        return "OOB" if "Out of bounds" in str(e) else f"error ({type(e).__name__})"


def analyzer_says(func: Any) -> str:
    """Notes §8.1's scope-aware interval checker, plus Bind tracking."""
    ana, bad = sym.Analyzer(), []

    def check(buf: Any, indices: Any) -> None:
        for idx, ext in zip(indices, buf.shape, strict=False):
            if not ana.can_prove(tirx.all(idx >= 0, idx < ext)):
                bad.append(buf.name)

    def on_for(loop: Any, v: Any) -> None:
        ana.bind(loop.loop_var, tvm.ir.Range.from_min_extent(loop.min, loop.extent))
        v.visit(loop.body)

    def on_if(node: Any, v: Any) -> None:
        v.visit(node.condition)
        with ana.constraint_scope(node.condition):
            v.visit(node.then_case)
        if node.else_case is not None:
            with ana.constraint_scope(tirx.Not(node.condition)):
                v.visit(node.else_case)

    def on_bind(node: Any, v: Any) -> None:
        ana.bind(node.var, node.value)
        v.default_visit(node)

    def on_store(node: Any, v: Any) -> None:
        check(node.buffer, node.indices)
        v.default_visit(node)

    def on_load(node: Any, v: Any) -> None:
        check(node.source, node.indices)
        v.default_visit(node)

    low = lowered(func)
    try:
        tvm_ffi.structural_visit(low.body, [(tirx.For, on_for), (tirx.IfThenElse, on_if), (tirx.Bind, on_bind),
                                            (tirx.BufferStore, on_store), (tvm.ir.TensorLoad, on_load)])
    except Exception as e:  # noqa: BLE001 - e.g. the simplifier rejecting an int32 overflow
        return f"error ({type(e).__name__})"
    return "OOB" if bad else "safe"


def verdict(answer: str, truth_oob: bool) -> str:
    if answer == "unknown" or answer.startswith("error"):
        return answer
    if truth_oob:
        return "caught" if answer == "OOB" else "missed"
    return "clean" if answer == "safe" else "FALSE ALARM"


def main() -> None:
    rows = []
    for c in CASES:
        blocky = has_blocks(c.func)
        oob_given = oobchecker_says(c.func)
        oob_low = oobchecker_says(lowered(c.func))
        rows.append((c.name, "OOB" if c.oob else "safe", verdict(passcheck_says(c.func), c.oob),
                     verdict(oob_given, c.oob) + (" (block IR)" if blocky else ""), verdict(oob_low, c.oob),
                     verdict(analyzer_says(c.func), c.oob)))
    head = ("case", "truth", "passcheck Z3", "OOBChecker (as given)", "OOBChecker (lowered)", "sym.Analyzer")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)) + " |"  # noqa: E731
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    for col, name in ((2, "passcheck Z3"), (3, "OOBChecker (as given)"), (4, "OOBChecker (lowered)"), (5, "sym.Analyzer")):
        caught = sum(r[col].startswith("caught") for r in rows)
        alarms = sum(r[col].startswith("FALSE") for r in rows)
        print(f"{name:22s}: caught {caught}/{sum(c.oob for c in CASES)} OOB cases, "
              f"{alarms} false alarms on {sum(not c.oob for c in CASES)} safe cases")


if __name__ == "__main__":
    main()
