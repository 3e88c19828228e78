"""A GPU run in three steps, one command each: build here, run there, check here.

    python benchmarks/gpu_run.py prepare gpurun            # here: bundles of every GPU subject + the runtime
    bash gpurun/run.sh                                     # on the GPU machine, from the repository root
    python benchmarks/gpu_run.py collect gpurun            # here: results back, checked, agreement

``prepare`` builds a bundle for every GPU subject (``passcheck SUBJECT --target cuda:ARCH
--bundle``: the TIR GPU primitives, ``bind``, ``schedule``, ``dlight`` and Relax ``FuseOps``),
keeping each campaign's JSON report (what the static checks found while building), then packs
TVM's runtime without its compiler library (about 7 MB) with the wheels a GPU machine without
network needs (apache-tvm-ffi, typing_extensions, ml_dtypes for its Python), and writes
``run.sh``. The folder travels with the checkout (``gpurun/`` is git-ignored; the device tool's
``carry``), and ``run.sh`` there installs the runtime in a temporary folder and runs every
bundle, 16 entries at once (NVRTC compiles each entry's CUDA source when it loads), into one
archive, ``results.tgz``. ``collect`` puts the archive's results into the bundles and runs
``passcheck bundle check --static``: entries run, anomalies (known TVM bugs or new), and the
share of anomalies the static checks flagged before the GPU ran.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
from importlib import metadata
from pathlib import Path

# What a GPU run builds by default: every subject with a GPU variant worth running, by name
# (TIR primitives that bind GPU threads, random sequences, TVM's own GPU schedules, a Relax pass
# through TVM's CUDA pipeline).
SUBJECTS = ("bind", "bind_threads", "cache_shared", "cache_local", "cross_thread_reduction",
            "decompose_reduction_bound", "schedule", "dlight", "FuseOps")
# The wheels the GPU machine lacks (it has numpy and cuda-bindings): the FFI TVM's runtime
# needs, and what that and bfloat16 inputs import.
WHEELS = ("typing_extensions", "ml_dtypes")

RUN_SH = """#!/usr/bin/env bash
# The GPU run: on the GPU machine, from the repository root, `bash {dir}/run.sh`.
# Installs the runtime-only TVM in a temporary folder, runs every bundle ({jobs} entries at
# once) and writes every result into {dir}/results.tgz.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${{PYTHON:-python3}}
rt=$(mktemp -d)
"$py" -m pip install -q --no-index --no-deps --target "$rt" "$here"/rt/*.whl
tar -C "$rt" -xzf "$here/rt/tvm-runtime.tgz"
PYTHONPATH="$rt:$(pwd)" "$py" -m passcheck.bundle run "$here/bundles" --jobs "${{JOBS:-{jobs}}}" \\
    --timeout "${{TIMEOUT:-120}}" --archive "$here/results.tgz"
"""


def build_bundles(out: Path, subjects: tuple[str, ...], examples: int, seed: int, arch: str, jobs: int) -> None:
    for name in subjects:
        t0 = time.perf_counter()
        cmd = [sys.executable, "-m", "passcheck", name, "--target", f"cuda:{arch}", "--examples", str(examples),
               "--seed", str(seed), "--bundle", str(out / "bundles" / name), "--no-db", "--ignore-known",
               "--jobs", str(jobs), "--no-progress", "--findings-dir", str(out / "findings" / name),
               "--report", f"json:{out / 'static' / (name + '.json')}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode not in (0, 1):
            raise SystemExit(f"gpu_run: {name} failed (exit {r.returncode}): {r.stderr.strip()[-500:]}")
        built = len(list((out / "bundles" / name).glob("*/meta.json")))
        print(f"{name}: {built} entries in {time.perf_counter() - t0:.0f} s", flush=True)


def pack_runtime(out: Path, python_version: str) -> None:
    """TVM's runtime-only package from this environment, and the wheels for ``python_version``."""
    out.mkdir(parents=True, exist_ok=True)
    site = Path(sysconfig.get_paths()["purelib"])
    skip = ("tvm/lib/libtvm_compiler.so", "tvm/include", "tvm/3rdparty", "tvm/src")

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if info.name.startswith(skip) or "__pycache__" in info.name:
            return None
        return info

    with tarfile.open(out / "tvm-runtime.tgz", "w:gz") as tar:
        tar.add(site / "tvm", arcname="tvm", filter=keep)
    ffi = metadata.version("apache-tvm-ffi")
    r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", python_version, "-d", str(out), f"apache-tvm-ffi=={ffi}", *WHEELS],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"gpu_run: could not download the wheels for Python {python_version}: "
                         f"{r.stderr.strip().splitlines()[-1:]}")


def prepare(ns: argparse.Namespace) -> int:
    out = Path(ns.dir)
    if ns.subjects:
        subjects = tuple(s for s in ns.subjects.split(",") if s)
    else:
        subjects = SUBJECTS
    if not ns.pack_only:
        build_bundles(out, subjects, ns.examples, ns.seed, ns.arch, ns.jobs)
    pack_runtime(out / "rt", ns.python)
    (out / "run.sh").write_text(RUN_SH.format(dir=out, jobs=ns.device_jobs))
    (out / "run.sh").chmod(0o755)
    (out / "prepared.json").write_text(json.dumps({"subjects": subjects, "examples": ns.examples, "seed": ns.seed,
                                                   "arch": ns.arch, "python": ns.python}, indent=1))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file() and "findings" not in f.parts)
    print(f"prepared {out} ({size / 2**20:.1f} MiB to send): on the GPU machine, from the repository root, "
          f"`bash {out}/run.sh`; then `python benchmarks/gpu_run.py collect {out}`")
    return 0


def collect(ns: argparse.Namespace) -> int:
    out = Path(ns.dir)
    archive = Path(ns.archive or out / "results.tgz")
    from passcheck.gpu.runner import all_entries, unpack_archive

    if not archive.is_file():
        print(f"gpu_run: {archive} is not there: run `bash {out}/run.sh` on the GPU machine and bring it back",
              file=sys.stderr)
        return 2
    summary = unpack_archive(archive, out / "bundles")
    ran = sum(1 for e in all_entries(out / "bundles") if e.result() is not None)
    print(f"{ran} entries ran on {', '.join(summary.get('devices', [])) or 'no GPU'} in "
          f"{summary.get('seconds', '?')} s ({summary.get('jobs', '?')} at once): {summary.get('counts', {})}")
    findings = str(out / "gpu-findings")
    shutil.rmtree(findings, ignore_errors=True)
    return subprocess.run([sys.executable, "-m", "passcheck", "bundle", "check", str(out / "bundles"), "--static",
                           "--findings-dir", findings]).returncode


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/gpu_run.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pre = sub.add_parser("prepare", help="build every GPU subject's bundle here and pack the runtime")
    pre.add_argument("dir", help="the run's folder, inside the checkout and ignored by git (e.g. gpurun)")
    pre.add_argument("--subjects", default="", help=f"comma-separated (default: {','.join(SUBJECTS)})")
    pre.add_argument("--examples", type=int, default=100)
    pre.add_argument("--seed", type=int, default=2027)
    pre.add_argument("--arch", default="sm_90")
    pre.add_argument("--jobs", type=int, default=2, help="worker processes here, for building")
    pre.add_argument("--device-jobs", type=int, default=16, help="entries run at once there")
    pre.add_argument("--python", default="3.12", help="the GPU machine's Python version (for the wheels)")
    pre.add_argument("--pack-only", action="store_true", help="bundles are there already: pack and write run.sh")
    col = sub.add_parser("collect", help="put the results back, check them and report the agreement")
    col.add_argument("dir")
    col.add_argument("archive", nargs="?", help="default: DIR/results.tgz")
    ns = p.parse_args(argv)
    return prepare(ns) if ns.cmd == "prepare" else collect(ns)


if __name__ == "__main__":
    sys.exit(main())
