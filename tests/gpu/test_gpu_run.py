"""A GPU run is one command there (``bash gpurun/run.sh``) between two here
(``benchmarks/gpu_run.py prepare`` and ``collect``). Without a GPU, everything but the GPU is
run for real: the bundles are built for cuda:sm_90, the runtime-only TVM is packed and
installed, the runner runs the bundles two at a time with it, the results come back in one
archive and are checked. The cuda entries report "no CUDA device" (not judged); an llvm bundle
beside them runs through the same runtime-only TVM and is judged. The GPU run itself is owed
to a GPU machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from types import SimpleNamespace

from passcheck.core.subject import Options, resolve
from passcheck.gpu.bundle import entries
from passcheck.tir import execution as tir_exec
from passcheck.tir.gpu.execute import entry_for
from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step

REPO = Path(__file__).parent.parent.parent


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=REPO, capture_output=True, text=True, timeout=1200,
                          env={**os.environ, **(env or {})})


def test_prepare_run_there_collect(tmp_path: Path) -> None:
    out = tmp_path / "gpurun"
    here = f"{sys.version_info.major}.{sys.version_info.minor}"  # run.sh runs with this Python below
    r = _run(sys.executable, "benchmarks/gpu_run.py", "prepare", str(out), "--subjects", "bind_threads",
             "--examples", "3", "--jobs", "1", "--device-jobs", "2", "--python", here)
    assert r.returncode == 0, r.stdout + r.stderr
    cuda = entries(out / "bundles" / "bind_threads")
    assert cuda and all(e.meta["target"] == "cuda:sm_90" for e in cuda)
    assert (out / "static" / "bind_threads.json").is_file()
    with tarfile.open(out / "rt" / "tvm-runtime.tgz") as t:
        names = t.getnames()
    assert "tvm/lib/libtvm_runtime.so" in names and not any("libtvm_compiler" in n for n in names)
    assert any(p.name.startswith("apache_tvm_ffi") for p in (out / "rt").glob("*.whl"))
    # An llvm bundle beside them: it runs on this machine's CPU through the runtime-only TVM.
    spec = PrimFuncSpec("reduce", (6, 5), (("axes", (1,)), ("op", "sum")), "int32", seed=2)
    case = resolve("bind_threads@cuda:sm_90", "tir").make_case(
        ScheduleExample(spec, (Step("bind_threads", "red", (0,), (("threads", 4), ("axis", "x"))),
                               Step("bind_rest", "", (), (("threads", 32),)))), None, Options())
    lib = SimpleNamespace(lib=tir_exec.compile_module(case.original))
    for _ in range(3):
        entry_for(case, lib, str(out / "bundles" / "llvm"), "gpu_matches_cpu", target="llvm")
    back = tmp_path / "back"  # what stays here while the folder is away
    shutil.copytree(out, back)
    # There: one command, the runtime-only TVM, two entries at once, one archive.
    r = _run("bash", str(out / "run.sh"), env={"PYTHON": sys.executable, "PASSCHECK_NO_GPU": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(cuda) + 3} entries: 3 ok, {len(cuda)} error" in r.stdout, r.stdout
    assert "(2 at once)" in r.stdout and (out / "results.tgz").is_file()
    # Here: the archive's results go back into the bundles, and they are checked.
    r = _run(sys.executable, "benchmarks/gpu_run.py", "collect", str(back), str(out / "results.tgz"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "bundle " in r.stdout and "3 held" in r.stdout and f"{len(cuda)} discarded" in r.stdout, r.stdout
    summary = tarfile.open(out / "results.tgz").extractfile("summary.json").read().decode()
    assert '"tvm": "runtime only"' in summary


def test_an_archive_with_anything_but_results_is_refused(tmp_path: Path) -> None:
    from passcheck.gpu.runner import unpack_archive

    (tmp_path / "bundle").mkdir()
    evil = tmp_path / "evil.tgz"
    (tmp_path / "x.py").write_text("print('hi')\n")
    with tarfile.open(evil, "w:gz") as t:
        t.add(tmp_path / "x.py", arcname="../x.py")
    try:
        unpack_archive(evil, tmp_path / "bundle")
    except ValueError as e:
        assert "is not a result of an entry" in str(e)
    else:
        raise AssertionError("the archive was accepted")
