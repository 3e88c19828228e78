"""Link compiled kernels into a shared object and load it (in the worker process).

The module is emitted as an object file and linked with ``ld`` instead of being JIT-compiled:
TVM's LLVM JIT generates machine code at the most aggressive codegen level whatever the target
says, which made the JIT 70% of an example's time; object emission honours opt-level 0
(measured: 80 ms -> 22 ms on a five-kernel module). Without a linker we fall back to the JIT.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from typing import Any


@functools.cache
def link_command() -> list[str] | None:
    ld = shutil.which("ld")
    if ld is None:
        return None
    cmd = [ld, "-shared"]
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc:
        # libgcc provides float16 conversions (__truncsfhf2, ...) that kernels may call.
        try:
            libgcc = subprocess.run([gcc, "-print-libgcc-file-name"], capture_output=True, text=True,
                                    timeout=30).stdout.strip()
            if libgcc and os.path.exists(libgcc):
                return cmd + ["{objects}", libgcc]
        except (OSError, subprocess.SubprocessError):
            pass
    return cmd + ["{objects}"]


def fast_link(output: str, objects: list[str], options: Any = None, cc: Any = None, cwd: Any = None,
               ccache_env: Any = None) -> None:
    base = link_command()
    assert base is not None
    if any(not o.endswith(".o") for o in objects):
        # export_library emits the executable's constant blob as C source: compile it (cheap)
        cc_path = shutil.which("gcc") or shutil.which("cc")
        if cc_path is None:
            raise RuntimeError("linking a module with constants needs gcc or cc on PATH")
        subprocess.run([cc_path, "-shared", "-fPIC", "-O0", "-o", output, *objects], check=True,
                       capture_output=True)
        return
    cmd: list[str] = []
    for part in base:
        cmd.extend(objects if part == "{objects}" else [part])
    subprocess.run(cmd[:2] + ["-o", output] + cmd[2:], check=True, capture_output=True)


fast_link.output_format = "so"  # type: ignore[attr-defined]


def load_executable(ex: Any) -> Any:
    """A runnable module for a compiled executable, linked as a shared object when possible."""
    if link_command() is None:
        return ex
    with tempfile.TemporaryDirectory(prefix="passcheck-") as d:
        path = os.path.join(d, "kernels.so")
        ex.export_library(path, fcompile=fast_link)
        return load(path)


def reload_executable(ex: Any, path: str) -> Any:
    """A VM executable (bytecode and constants, no kernels) written to ``path`` and read back:
    the same save and load of its constants that exporting a whole executable goes through
    (``load_executable``), so what fails there fails here, in the same words."""
    ex.mod.write_to_file(path)
    try:
        return load(path, executable=True)
    finally:
        os.unlink(path)


def load(path: str, executable: bool = False) -> Any:
    """Load a shared library (``executable``: a VM executable file) that this process wrote."""
    import tvm
    import tvm_ffi

    loader = tvm_ffi.get_global_func("ffi.Module.load_from_file.relax.VMExecutable") if executable else None
    with quiet_stderr():
        # every linked executable registers the same blob symbol; TVM warns about the (harmless)
        # override on each load. (One line loads either kind: a failure quotes the same place.)
        return loader(path) if loader is not None else tvm.runtime.load_module(path)


class quiet_stderr:
    def __enter__(self) -> None:
        self.saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)

    def __exit__(self, *_exc: object) -> None:
        os.dup2(self.saved, 2)
        os.close(self.saved)
