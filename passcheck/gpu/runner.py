"""Run bundles where the GPU is: ``python -m passcheck.bundle run DIR``.

Needs only TVM's runtime and NumPy (the tvm package without its compiler library works: see
``device``). DIR is a bundle, or a folder of bundles (a GPU run's). Entries run in child
processes, ``--jobs`` of them at once, each child taking its share one entry after another
(NVRTC compiles each entry's CUDA source when it loads, about a second). An entry that kills
its child (a crash) or outlives ``--timeout`` is recorded as such and a fresh child goes on
after it; so does one whose CUDA error leaves the context unusable (an illegal address).
Each entry gets ``result.json`` and, when it ran, ``gpu.npz`` (see ``bundle``);
``--archive OUT.tgz`` then packs every result into one archive to bring back, which ``python
-m passcheck.bundle unpack OUT.tgz DIR`` (or ``passcheck bundle unpack``) puts back into a
copy of the bundles.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path
from typing import Any

from passcheck.gpu.bundle import STATUSES, Entry, entries, is_entry, write_result

USAGE_EXIT = 2
CONTEXT_LOST = 75  # a child's exit code: its CUDA context is unusable after an error
RESULT_FILES = ("result.json", "gpu.npz")


def _device(target: str) -> tuple[Any, str]:
    import tvm

    if target in ("", "llvm"):
        return tvm.cpu(0), "cpu (llvm)"
    from passcheck.gpu.device import describe_device, ensure_cuda

    arch = target.partition(":")[2] or "sm_90"
    dev = ensure_cuda(arch)
    if dev is None:
        raise RuntimeError(f"this entry was built for {target}, and there is no CUDA device here")
    return dev, describe_device()


def run_entry(entry: Entry) -> tuple[list[Any], str]:
    """Load and call one entry on its device; (outputs as NumPy arrays, the device's name)."""
    import tvm

    dev, name = _device(str(entry.meta.get("target", "llvm")))
    lib = tvm.runtime.load_module(str(entry.path / "kernel.so"))
    args = [tvm.runtime.tensor(a, dev) for a in entry.inputs()]
    if entry.meta.get("call") == "vm":
        from tvm.runtime.vm import VirtualMachine

        vm = VirtualMachine(lib, dev)
        ret = vm[str(entry.meta.get("function", "main"))](*args)
        dev.sync()
        outs = list(ret) if isinstance(ret, (tuple, list)) or type(ret).__name__ == "Array" else [ret]
        return [o.numpy() for o in outs], name
    lib[str(entry.meta.get("function", "main"))](*args)
    dev.sync()
    return [args[int(i)].numpy() for i in entry.meta["outputs"]], name


def _serve(paths: list[str]) -> int:
    """The child: run the entries at ``paths`` in order; ``started`` marks the one in progress.
    After a CUDA error it stops (the context is lost for every later call)."""
    for p in paths:
        e = entries(p, [])[0]
        (e.path / "started").write_text(str(time.time()))
        t0 = time.perf_counter()
        try:
            outs, name = run_entry(e)
        except Exception as exc:  # noqa: BLE001 - recorded: a failing call is the entry's result
            message = f"{type(exc).__name__}: {str(exc).strip()[-1500:]}"
            write_result(e, "error", message, seconds=time.perf_counter() - t0)
            (e.path / "started").unlink(missing_ok=True)
            if "CUDA" in message or "cuda" in message:
                return CONTEXT_LOST
            continue
        write_result(e, "ok", outputs=outs, seconds=time.perf_counter() - t0, device=name)
        (e.path / "started").unlink(missing_ok=True)
    return 0


def describe_exit(code: int | None) -> str:
    import signal

    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def _drive(todo: list[Entry], timeout: float) -> None:
    """Run ``todo`` in a child, and in fresh children after each crash, hang or lost context."""
    while todo:
        child = subprocess.Popen([sys.executable, "-m", "passcheck.bundle", "_serve", *[str(e.path) for e in todo]],
                                 env=os.environ.copy())
        while child.poll() is None:
            time.sleep(0.05)
            current = next((e for e in todo if (e.path / "started").is_file()), None)
            if current is not None and time.time() - (current.path / "started").stat().st_mtime > timeout:
                child.kill()
                child.wait()
                write_result(current, "timeout", f"no result after {timeout:g} s")
                (current.path / "started").unlink(missing_ok=True)
        for e in todo:
            if not e.has_result() and (e.path / "started").is_file():
                write_result(e, "crash", f"the runner process died ({describe_exit(child.returncode)})")
                (e.path / "started").unlink(missing_ok=True)
        left = [e for e in todo if not e.has_result()]
        if len(left) == len(todo):
            # Died before its first entry (e.g. at import): another child would do the same.
            for e in left:
                write_result(e, "crash", f"the runner process died before the entry ({describe_exit(child.returncode)})")
            left = []
        todo = left


def bundle_dirs(root: str | Path) -> list[Path]:
    """``root`` when it is a bundle (or an entry), else the bundles directly under it."""
    root = Path(root)
    if is_entry(root) or any(is_entry(p) for p in root.iterdir() if p.is_dir()):
        return [root]
    return sorted(p for p in root.iterdir() if p.is_dir() and any(is_entry(q) for q in p.iterdir() if q.is_dir()))


def all_entries(root: str | Path, refused: list[str] | None = None) -> list[Entry]:
    """The entries under ``root``; with ``refused``, an entry whose meta.json is not an entry's is
    left out with one line there (else ValueError)."""
    return [e for d in bundle_dirs(root) for e in entries(d, refused)]


def run_bundle(root: str | Path, timeout: float = 120.0, force: bool = False, log: Any = None,
               jobs: int = 1) -> dict[str, int]:
    """Run every entry under ``root`` without a result (all with ``force``), ``jobs`` children
    at once; counts by status."""
    todo = [e for e in all_entries(root, []) if force or not e.has_result()]
    for e in todo:
        for name in (*RESULT_FILES, "started"):
            (e.path / name).unlink(missing_ok=True)
    shards = [todo[i::max(jobs, 1)] for i in range(max(jobs, 1))]
    threads = [threading.Thread(target=_drive, args=(s, timeout)) for s in shards if s]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts = {s: 0 for s in STATUSES}
    for e in all_entries(root, []):
        r = e.result() if e.has_result() else None
        if r is not None:
            counts[r["status"]] += 1
    return counts


def write_archive(root: str | Path, out: str | Path, summary: dict[str, Any]) -> int:
    """Every entry's result files under ``root`` (paths relative to it) and ``summary.json``,
    in one gzipped tar; the number of entries with a result."""
    root = Path(root)
    n = 0
    with tarfile.open(out, "w:gz") as tar:
        for e in all_entries(root, []):
            rel = e.path.relative_to(root)
            for name in RESULT_FILES:
                if (e.path / name).is_file():
                    tar.add(e.path / name, arcname=str(rel / name))
            n += (e.path / "result.json").is_file()
        data = json.dumps(summary, indent=1).encode()
        info = tarfile.TarInfo("summary.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return n


def unpack_archive(archive: str | Path, root: str | Path) -> dict[str, Any]:
    """Put an archive's results into the bundles under ``root`` (plain files only, each into an
    entry that exists there); its summary."""
    root = Path(root).resolve()
    summary: dict[str, Any] = {}
    with tarfile.open(archive, "r:gz") as tar:
        for m in tar.getmembers():
            if not m.isfile():
                continue
            f = tar.extractfile(m)
            if f is None:
                continue
            if m.name == "summary.json":
                summary = json.loads(f.read())
                continue
            dest = (root / m.name).resolve()
            if dest.name not in RESULT_FILES or root not in dest.parents or not is_entry(dest.parent):
                raise ValueError(f"{archive}: {m.name} is not a result of an entry under {root}")
            dest.write_bytes(f.read())
    return summary


def tvm_kind() -> str:
    """Which TVM the children import: "runtime only" (no compiler library) or "full"."""
    import importlib.util

    spec = importlib.util.find_spec("tvm")
    if spec is None or not spec.origin:
        return "no tvm"
    return "full" if (Path(spec.origin).parent / "lib" / "libtvm_compiler.so").exists() else "runtime only"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_serve"]:
        return _serve(argv[1:])
    p = argparse.ArgumentParser(prog="python -m passcheck.bundle",
                                description="Run passcheck bundles on this machine's device (GPU or CPU).")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run every entry that has no result yet")
    r.add_argument("dir", help="a bundle folder (passcheck ... --bundle DIR wrote it), or a folder of bundles")
    r.add_argument("--timeout", type=float, default=120.0, help="seconds per entry before it counts as a hang")
    r.add_argument("--force", action="store_true", help="run entries that have a result again")
    r.add_argument("--jobs", type=int, default=1, help="entries run at once, each in its own child process")
    r.add_argument("--archive", help="then write every result into this .tgz (to bring back)")
    u = sub.add_parser("unpack", help="put an archive's results back into a copy of the bundles")
    u.add_argument("archive")
    u.add_argument("dir")
    ns = p.parse_args(argv)
    if not Path(ns.dir).is_dir():
        print(f"passcheck.bundle: error: {ns.dir} is not a folder; give the folder --bundle wrote", file=sys.stderr)
        return USAGE_EXIT
    if ns.cmd == "unpack":
        try:
            summary = unpack_archive(ns.archive, ns.dir)
        except (OSError, ValueError, tarfile.TarError) as e:
            print(f"passcheck.bundle: error: {e}", file=sys.stderr)
            return USAGE_EXIT
        print(f"results unpacked into {ns.dir}: {summary.get('counts', {})}; then `passcheck bundle check {ns.dir}`")
        return 0
    refused: list[str] = []
    try:
        found = all_entries(ns.dir, refused)
    except OSError as e:
        print(f"passcheck.bundle: error: {e}", file=sys.stderr)
        return USAGE_EXIT
    for line in refused:  # an entry whose meta.json is not a bundle entry's: left as it is
        print(f"refused: {line}")
    if not found:
        print(f"passcheck.bundle: error: {ns.dir} holds no bundle entries", file=sys.stderr)
        return USAGE_EXIT
    if ns.jobs < 1:
        print("passcheck.bundle: error: --jobs takes a number of children, 1 or more", file=sys.stderr)
        return USAGE_EXIT
    t0 = time.perf_counter()
    counts = run_bundle(ns.dir, ns.timeout, ns.force, jobs=ns.jobs)
    took = time.perf_counter() - t0
    ran = sum(counts.values())
    print(f"{ran} entries: " + ", ".join(f"{n} {s}" for s, n in counts.items())
          + f" in {took:.1f} s ({ns.jobs} at once); then `passcheck bundle check {ns.dir}` compares them")
    if ns.archive:
        devices = sorted({str(e.result().get("device", "")) for e in found if e.has_result()} - {""})
        n = write_archive(ns.dir, ns.archive, {"counts": counts, "seconds": round(took, 1), "jobs": ns.jobs,
                                               "devices": devices, "python": sys.version.split()[0],
                                               "tvm": tvm_kind()})
        print(f"{n} results archived in {ns.archive}")
    return 0
