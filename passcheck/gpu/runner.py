"""Run a bundle where the GPU is: ``python -m passcheck.bundle run DIR``.

Needs only TVM's runtime and NumPy (the tvm package without its compiler library works: see
``device``). Entries run in a child process, one after another; an entry that kills the child
(a crash) or outlives ``--timeout`` is recorded as such and the next child goes on after it.
Each entry gets ``result.json`` and, when it ran, ``gpu.npz`` (see ``bundle``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from passcheck.gpu.bundle import Entry, entries, write_result

USAGE_EXIT = 2


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


def _serve(root: str, ids: list[str]) -> None:
    """The child: run the named entries in order; ``started`` marks the one in progress."""
    by_id = {e.id: e for e in entries(root, [])}
    for i in ids:
        e = by_id[i]
        (e.path / "started").write_text(str(time.time()))
        t0 = time.perf_counter()
        try:
            outs, name = run_entry(e)
        except Exception as exc:  # noqa: BLE001 - recorded: a failing call is the entry's result
            write_result(e, "error", f"{type(exc).__name__}: {str(exc).strip()[-1500:]}",
                         seconds=time.perf_counter() - t0)
        else:
            write_result(e, "ok", outputs=outs, seconds=time.perf_counter() - t0, device=name)
        (e.path / "started").unlink(missing_ok=True)


def run_bundle(root: str | Path, timeout: float = 120.0, force: bool = False, log: Any = None) -> dict[str, int]:
    """Run every entry of ``root`` without a result (all with ``force``); counts by status."""
    todo = [e for e in entries(root, []) if force or not e.has_result()]
    for e in todo:
        (e.path / "result.json").unlink(missing_ok=True)
    while todo:
        child = subprocess.Popen([sys.executable, "-m", "passcheck.bundle", "_serve", str(root),
                                  *[e.id for e in todo]], env=os.environ.copy())
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
                write_result(e, "crash", f"the runner process died (exit code {child.returncode})")
                (e.path / "started").unlink(missing_ok=True)
        left = [e for e in todo if not e.has_result()]
        if len(left) == len(todo):
            # Died before its first entry (e.g. at import): another child would do the same.
            for e in left:
                write_result(e, "crash", f"the runner process died before the entry (exit code {child.returncode})")
            left = []
        todo = left
    counts = {s: 0 for s in ("ok", "error", "crash", "timeout")}
    for e in entries(root, []):
        r = e.result() if e.has_result() else None
        if r is not None:
            counts[r["status"]] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_serve"]:
        _serve(argv[1], argv[2:])
        return 0
    p = argparse.ArgumentParser(prog="python -m passcheck.bundle",
                                description="Run a passcheck bundle on this machine's device (GPU or CPU).")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run every entry that has no result yet")
    r.add_argument("dir", help="the bundle folder (passcheck ... --bundle DIR wrote it)")
    r.add_argument("--timeout", type=float, default=120.0, help="seconds per entry before it counts as a hang")
    r.add_argument("--force", action="store_true", help="run entries that have a result again")
    ns = p.parse_args(argv)
    if not Path(ns.dir).is_dir():
        print(f"passcheck.bundle: error: {ns.dir} is not a folder; give the folder --bundle wrote", file=sys.stderr)
        return USAGE_EXIT
    refused: list[str] = []
    try:
        found = entries(ns.dir, refused)
    except OSError as e:
        print(f"passcheck.bundle: error: {e}", file=sys.stderr)
        return USAGE_EXIT
    for line in refused:  # an entry whose meta.json is not a bundle entry's: left as it is
        print(f"refused: {line}")
    if not found:
        print(f"passcheck.bundle: error: {ns.dir} holds no bundle entries", file=sys.stderr)
        return USAGE_EXIT
    t0 = time.perf_counter()
    counts = run_bundle(ns.dir, ns.timeout, ns.force)
    took = time.perf_counter() - t0
    ran = sum(counts.values())
    print(f"{ran} entries: " + ", ".join(f"{n} {s}" for s, n in counts.items())
          + f" in {took:.1f} s; then `passcheck bundle check {ns.dir}` compares them")
    return 0
