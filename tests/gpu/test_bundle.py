"""Bundles round-trip on the CPU: entries built for ``llvm`` are run by the real runner
(``python -m passcheck.bundle run DIR``, a child process) and judged by ``passcheck bundle
check DIR``; a wrong kernel becomes a finding with a repro and its entry copied beside it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import tvm

from passcheck.core.subject import Options, resolve
from passcheck.gpu.bundle import entries
from passcheck.integrations.cli import main
from passcheck.tir import execution as tir_exec
from passcheck.tir.gpu.execute import entry_for
from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

SPEC = PrimFuncSpec("reduce", (6, 5), (("axes", (1,)), ("op", "sum")), "int32", seed=2)
REST = Step("bind_rest", "", (), (("threads", 32),))


def _case() -> object:
    example = ScheduleExample(SPEC, (Step("cross_thread_reduction", "red", (1,), (("threads", 4), ("rfactor", False))),
                                     REST))
    return resolve("cross_thread_reduction@cuda:sm_90", "tir").make_case(example, None, Options())


def _wrong(func: object) -> object:
    """The unscheduled kernel with its output doubled: a miscompilation stand-in."""
    from tvm import tirx

    def on_store(s: object) -> object:
        return tirx.BufferStore(s.buffer, s.value * tirx.FloatImm("float32", 2.0), s.indices)

    import tvm_ffi

    return tvm_ffi.structural_map(func, [(tirx.BufferStore, on_store)])


def test_llvm_bundle_round_trip(tmp_path: Path) -> None:
    case = _case()
    assert case.raised is None, case.raised
    good = SimpleNamespace(lib=tir_exec.compile_module(case.original))
    bad = SimpleNamespace(lib=tir_exec.compile_module(tvm.IRModule({"main": _wrong(case.original["main"])})))
    bundle = tmp_path / "bundle"
    entry_for(case, good, str(bundle), "gpu_matches_cpu", target="llvm")
    entry_for(case, bad, str(bundle), "gpu_matches_cpu", target="llvm")
    run = subprocess.run([sys.executable, "-m", "passcheck.bundle", "run", str(bundle)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "2 entries: 2 ok" in run.stdout
    first = entries(bundle)[0]
    np.testing.assert_array_equal(first.gpu_outputs()[0], first.cpu_outputs()[0])
    findings = tmp_path / "findings"
    assert main(["bundle", "check", str(bundle), "--findings-dir", str(findings)]) == 1
    repro = next(findings.rglob("repro.py"))
    assert "gpu_matches_cpu" in repro.read_text() and (repro.parent / "entry" / "kernel.so").is_file()
    # the example went through meta.json and the repro as data, and came back the same
    from passcheck.core.corpus import read_example

    assert first.example() == case.example == read_example(repro.read_text())
    assert "pickle" not in (first.path / "meta.json").read_text()
    # Running it again changes nothing: every entry has its result.
    again = subprocess.run([sys.executable, "-m", "passcheck.bundle", "run", str(bundle)], capture_output=True,
                           text=True, timeout=300)
    assert "2 entries: 2 ok" in again.stdout


def test_an_entry_for_a_gpu_is_not_judged_without_one(tmp_path: Path) -> None:
    case = _case()
    good = SimpleNamespace(lib=tir_exec.compile_module(case.original))
    entry_for(case, good, str(tmp_path), "gpu_matches_cpu", target="cuda:sm_90")
    run = subprocess.run([sys.executable, "-m", "passcheck.bundle", "run", str(tmp_path)], capture_output=True,
                         text=True, timeout=300, env={"PASSCHECK_NO_GPU": "1", **__import__("os").environ})
    assert "1 error" in run.stdout
    assert main(["bundle", "check", str(tmp_path), "--findings-dir", str(tmp_path / "f")]) == 0


def test_bad_bundle_folders_exit_2(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "passcheck.bundle", "run", str(tmp_path / "nope")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "is not a folder" in r.stderr
    assert main(["bundle", "check", str(tmp_path)]) == 2
    assert main(["bundle"]) == 2


def test_an_entry_that_kills_the_runner_is_a_crash_and_the_next_still_runs(tmp_path: Path) -> None:
    from tvm.script import tirx as T

    from passcheck.gpu.bundle import new_entry

    @T.prim_func
    def dies(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        T.evaluate(T.call_extern("int32", "abort"))
        for i in range(4):
            B[i] = A[i]

    @T.prim_func
    def copies(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]

    args = [np.arange(4, dtype="float32"), np.zeros(4, dtype="float32")]
    for name, func in (("dies", dies), ("copies", copies)):
        lib = tvm.compile(tvm.IRModule({"main": func}), target="llvm")
        new_entry(tmp_path, {"subject": name, "target": "llvm", "call": "kernel", "outputs": [1], "example": ""},
                  lib, args, [args[0]])
    run = subprocess.run([sys.executable, "-m", "passcheck.bundle", "run", str(tmp_path)], capture_output=True,
                         text=True, timeout=300)
    assert "1 ok" in run.stdout and "1 crash" in run.stdout, run.stdout + run.stderr
    results = {e.meta["subject"]: e.result() for e in entries(tmp_path)}
    assert results["dies"]["status"] == "crash" and results["copies"]["status"] == "ok"
