"""Bundles: what was built here for a GPU elsewhere, and what the GPU made of it.

A bundle is a folder with one sub-folder per example (``ENTRY``)::

    ENTRY/meta.json     who wrote it (subject, property, target, the example as passcheck-data JSON),
                        how to call it
    ENTRY/kernel.so     the exported library (host code for LLVM, device code as CUDA source)
    ENTRY/inputs.npz    the call's arguments in order (arg0, arg1, ...); outputs pre-filled
    ENTRY/cpu.npz       the CPU's outputs for the same call (out0, ...)
    ENTRY/result.json   written by the runner: status (ok | error | crash | timeout), message, device
    ENTRY/gpu.npz       written by the runner: the outputs it got (out0, ...)

Two kinds of call: ``kernel`` (a PrimFunc ``main(*args)`` writing its output arguments, the
indices in ``meta["outputs"]``) and ``vm`` (a Relax VM function ``main(*args)`` returning a
tensor or a tuple of them). Only NumPy and JSON here: the runner reads this on a GPU machine.

What comes back is read as data: meta.json and result.json are JSON, the arrays ``.npz`` files
NumPy loads without pickle, and the example is plain data (``core/data.py``) that builds only
passcheck's declared classes; anything else is refused with one line. (``kernel.so`` is code:
the runner loads it, so run bundles you built.)
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "passcheck-bundle/2"
READABLE = ("passcheck-bundle/1", FORMAT)  # /1 held the example as a pickle: never loaded
STATUSES = ("ok", "error", "crash", "timeout")


@dataclass
class Entry:
    path: Path
    meta: dict[str, Any]

    @property
    def id(self) -> str:
        return self.path.name

    def inputs(self) -> list[np.ndarray]:
        with np.load(self.path / "inputs.npz") as z:
            return [z[f"arg{i}"] for i in range(len(z.files))]

    def cpu_outputs(self) -> list[np.ndarray]:
        return _arrays(self.path / "cpu.npz")

    def result(self) -> dict[str, Any] | None:
        """The runner's record (None: not run yet); ValueError when result.json is not one."""
        p = self.path / "result.json"
        if not p.is_file():
            return None
        try:
            r = json.loads(p.read_text())
        except (ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"result.json is not JSON ({str(e).splitlines()[0][:100]})") from None
        if not isinstance(r, dict) or r.get("status") not in STATUSES or not isinstance(r.get("message", ""), str):
            raise ValueError("result.json is not the runner's record (a status of ok, error, crash or timeout)")
        return r

    def has_result(self) -> bool:
        """Whether the runner recorded a result (a malformed record counts as none: run it again)."""
        try:
            return self.result() is not None
        except ValueError:
            return False

    def gpu_outputs(self) -> list[np.ndarray]:
        return _arrays(self.path / "gpu.npz")

    def example(self) -> Any:
        """The plain-data example the entry was built from (needs passcheck's families);
        ``NotPlainData`` (one line) when meta.json holds none this passcheck reads."""
        from passcheck.core.data import NotPlainData, load_document

        doc = self.meta.get("example")
        if isinstance(doc, str):
            raise NotPlainData("its example is a pickle (written by an older passcheck): never loaded")
        return load_document(doc)


def _arrays(path: Path) -> list[np.ndarray]:
    if not path.is_file():
        return []
    with np.load(path) as z:
        return [z[f"out{i}"] for i in range(len(z.files))]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:60]


def new_entry(root: str | Path, meta: dict[str, Any], lib: Any, args: list[np.ndarray],
              cpu_outputs: list[np.ndarray]) -> Entry:
    """Write one entry under ``root``: ``lib`` (a TVM runtime module) exported, ``args`` and the
    CPU outputs saved; ``meta`` must say ``subject``, ``target``, ``call`` and (for ``kernel``)
    ``outputs``."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    stem = f"{int(time.time() * 1000):013d}-{_slug(meta.get('subject', 'example'))}"
    path = root / stem
    n = 0
    while True:
        try:
            path.mkdir()
            break
        except FileExistsError:
            n += 1
            path = root / f"{stem}-{n}"
    lib.export_library(str(path / "kernel.so"))
    np.savez(path / "inputs.npz", **{f"arg{i}": a for i, a in enumerate(args)})
    np.savez(path / "cpu.npz", **{f"out{i}": a for i, a in enumerate(cpu_outputs)})
    meta = {"format": FORMAT, **meta}
    (path / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True))
    return Entry(path, meta)


def is_entry(path: Path) -> bool:
    return (path / "meta.json").is_file() and (path / "kernel.so").is_file()


def entries(root: str | Path, refused: list[str] | None = None) -> list[Entry]:
    """The entries of a bundle (or the one entry ``root`` is), oldest first. An entry whose
    meta.json is not a bundle entry's raises ValueError, or, given ``refused``, is left out with
    one line there."""
    root = Path(root)
    dirs = [root] if is_entry(root) else sorted(p for p in root.iterdir() if p.is_dir() and is_entry(p))
    out = []
    for d in dirs:
        try:
            meta = json.loads((d / "meta.json").read_text())
            if not isinstance(meta, dict) or meta.get("format") not in READABLE:
                got = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
                raise ValueError(f"not a {FORMAT} entry (format {str(got)[:40]!r})")
        except (ValueError, UnicodeDecodeError) as e:
            if refused is None:
                raise ValueError(f"{d}: {str(e).splitlines()[0][:200]}") from None
            refused.append(f"{d.name}: meta.json: {str(e).splitlines()[0][:200]}; skipped")
            continue
        out.append(Entry(d, meta))
    return out


def write_result(entry: Entry, status: str, message: str = "", outputs: list[np.ndarray] | None = None,
                 seconds: float = 0.0, device: str = "") -> None:
    assert status in STATUSES, status
    if outputs is not None:
        np.savez(entry.path / "gpu.npz", **{f"out{i}": a for i, a in enumerate(outputs)})
    record = {"status": status, "message": message[:2000], "seconds": round(seconds, 4), "device": device}
    tmp = entry.path / "result.json.tmp"
    tmp.write_text(json.dumps(record, indent=1))
    tmp.replace(entry.path / "result.json")
