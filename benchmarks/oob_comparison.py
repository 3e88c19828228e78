"""Which out-of-bounds cases do passcheck's Z3 checker, TVM's OOBChecker and a
``tvm.sym.Analyzer`` interval checker catch, on the same PrimFuncs?

Each case is a small kernel whose truth is known by construction: "OOB" (some execution reads
or writes outside a buffer) or "safe". Columns:

* passcheck   -- ``z3_bounds.check_bounds`` on the lowered (block-free) function;
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tvm  # noqa: E402
import tvm_ffi  # noqa: E402
from tvm import s_tir, sym, tirx  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

from passcheck.oracles.tir_lowering import has_blocks, lower_to_loops  # noqa: E402
from passcheck.oracles.z3_bounds import check_bounds  # noqa: E402

# --- kernels -------------------------------------------------------------------------------------


@T.prim_func(s_tir=True)
def block_oob(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi + 1]


@T.prim_func(s_tir=True)
def vec_add(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i in range(10):
        with T.sblock("B"):
            vi = T.axis.spatial(10, i)
            B[vi] = A[vi] + T.float32(1)


def split(disable_predication: bool) -> Any:
    sch = s_tir.Schedule(vec_add)
    sch.split(sch.get_loops(sch.get_sblock("B"))[0], [None, 4], disable_predication=disable_predication)
    return sch.mod["main"]


@T.prim_func
def guarded_compound(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for io, ii in T.grid(4, 5):
        if io * 5 + ii < 15:
            B[io * 5 + ii] = A[io * 5 + ii + 1]


@T.prim_func
def int8_wrap_safe(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[T.Cast("int32", T.Cast("int8", i * 16)) // 16 + 8]


@T.prim_func
def int8_wrap_oob(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[T.Cast("int32", T.Cast("int8", i * 16)) // 16]


@T.prim_func
def int32_mul_wraps_safe(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        B[i] = A[i * 65536 * 65536 + i]


@T.prim_func
def int64_mul_oob(A: T.Buffer((T.int64(16),), "float32"), B: T.Buffer((T.int64(16),), "float32")):
    for i in range(T.int64(4)):
        B[i] = A[i * T.int64(65536) * T.int64(65536) + i]


@T.prim_func
def floordiv_oob(A: T.Buffer((4,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[(i - 3) // 4]


@T.prim_func
def truncmod_oob(A: T.Buffer((4,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[T.truncmod(i - 3, 4)]


@T.prim_func
def select_oob(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = T.Select(i < 15, A[i + 1], T.float32(0))


@T.prim_func
def if_then_else_safe(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = T.if_then_else(i < 15, A[i + 1], T.float32(0))


@T.prim_func
def bind_oob(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        j = T.Bind(16 - i)
        if j >= 4:
            B[i] = A[j]


@T.prim_func
def sym_oob(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = A[i + 1]


@T.prim_func
def sym_guarded(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        if i + 1 < n:
            B[i] = A[i + 1]


@T.prim_func
def sym_fused_safe(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n, T.int64(48)), "float32")
    B = T.match_buffer(b, (n, T.int64(48)), "float32")
    for f in range(n * T.int64(48)):
        B[f // T.int64(48), f % T.int64(48)] = A[f // T.int64(48), f % T.int64(48)]


def tvm_bug_cache_read() -> Any:
    """TVM 0.27 bug passcheck found: cache_read after compute_at drops the producer predicate."""
    from passcheck.generators.primfuncs import PrimFuncSpec, build_primfunc

    spec = PrimFuncSpec("conv2d", (1, 3, 6, 10), (("out_channels", 3), ("kernel", (2, 3)), ("stride", (1, 3)),
                                                  ("dilation", (2, 2)), ("padding", (2, 0))), "int64", prologue=True)
    sch = s_tir.Schedule(build_primfunc(spec))
    sch.compute_at(sch.get_sblock("pre"), sch.get_loops("pad")[2], preserve_unit_loops=True)
    sch.cache_read(sch.get_sblock("pad"), 0, "global")
    return sch.mod["main"]


def split_wraps_int32() -> Any:
    """A real split of a symbolic int32 extent: near n = 2**31 the tail index wraps (and so
    does its guard); exact machine integers are needed to see it."""
    from passcheck.generators.primfuncs import PrimFuncSpec, build_primfunc

    sch = s_tir.Schedule(build_primfunc(PrimFuncSpec("pad", (1,), (("pads", ((0, 1),)),), "int32", symbolic=True)))
    sch.split(sch.get_loops("pad")[0], [None, 3], preserve_unit_iters=False)
    return sch.mod["main"]


@dataclass
class Case:
    name: str
    func: Any
    oob: bool


CASES = [
    Case("block-level OOB write/read (A[vi + 1])", block_oob, True),
    Case("split, disable_predication=True", split(True), True),
    Case("split with its tail guard", split(False), False),
    Case("compound guard io*5+ii < 15", guarded_compound, False),
    Case("int8 cast wraps, stays in bounds", int8_wrap_safe, False),
    Case("int8 cast wraps to a negative index", int8_wrap_oob, True),
    Case("int32 multiply wraps to i", int32_mul_wraps_safe, False),
    Case("int64 multiply does not wrap", int64_mul_oob, True),
    Case("floordiv of a negative", floordiv_oob, True),
    Case("truncmod of a negative", truncmod_oob, True),
    Case("Select loads both operands", select_oob, True),
    Case("if_then_else guard", if_then_else_safe, False),
    Case("Bind j = 16 - i", bind_oob, True),
    Case("symbolic A[i + 1], i < n", sym_oob, True),
    Case("symbolic guarded i + 1 < n", sym_guarded, False),
    Case("symbolic fused loop f < 48n", sym_fused_safe, False),
    Case("TVM bug: cache_read after compute_at", tvm_bug_cache_read(), True),
    Case("TVM bug: symbolic int32 split tail wraps", split_wraps_int32(), True),
]

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
