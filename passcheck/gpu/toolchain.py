"""The optional CUDA toolchain (``pip install "passcheck[cuda]"``): NVRTC and the CUDA headers,
all from the package index, so kernels are compiled to cubin on a machine without a GPU.

TVM's CUDA codegen needs none of it (it writes CUDA C); NVRTC is what proves that C compiles
for the arch, here, and what the bundle runner compiles it with on the GPU machine.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

from passcheck.core import workdir
from passcheck.core.errors import UsageError

INSTALL = 'pip install "passcheck[cuda]"'


@lru_cache(maxsize=1)
def include_dir() -> str | None:
    """The CUDA include folder (with ``cuda_runtime.h`` and CCCL's ``cuda/std``): ``CUDA_PATH``'s,
    else the one the ``nvidia-cuda-*`` wheels install; None when there is none."""
    candidates = []
    if os.environ.get("CUDA_PATH"):
        candidates.append(Path(os.environ["CUDA_PATH"]) / "include")
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidates += sorted(Path(root).glob("cu*/include"), reverse=True)
    for inc in candidates:
        if (inc / "cuda_runtime.h").is_file() and _cccl(inc) is not None:
            return str(inc)
    return None


def _cccl(inc: Path) -> Path | None:
    for d in (inc / "cccl", inc):
        if (d / "cuda" / "std" / "cstdint").is_file():
            return d
    return None


def missing() -> str | None:
    """What of the toolchain is missing (None when NVRTC and the headers are there)."""
    if importlib.util.find_spec("cuda") is None or importlib.util.find_spec("cuda.bindings") is None:
        return "cuda-bindings (NVRTC's Python bindings)"
    try:
        from cuda.bindings import nvrtc  # noqa: F401
    except Exception as e:  # noqa: BLE001 - an ImportError or the NVRTC library failing to load
        return f"NVRTC ({type(e).__name__}: {str(e)[:80]})"
    if include_dir() is None:
        return "the CUDA headers (nvidia-cuda-runtime, nvidia-cuda-crt, nvidia-cuda-cccl)"
    return None


def require_toolchain(what: str = "--target cuda") -> None:
    """A one-line UsageError (exit 2) saying how to install what is missing."""
    gone = missing()
    if gone is not None:
        raise UsageError(f"{what} needs NVRTC and the CUDA headers, but {gone} is not installed; "
                         f"install them with: {INSTALL}")


def compile_options() -> list[str]:
    """The include options NVRTC needs for TVM's CUDA source (TVM itself looks only under
    ``CUDA_PATH``, and not in the wheels' CCCL folder)."""
    inc = include_dir()
    if inc is None:
        require_toolchain()
    cccl = _cccl(Path(inc))  # type: ignore[arg-type]
    return [f"-I{inc}"] + ([f"-I{cccl}"] if cccl is not None and str(cccl) != inc else [])


# TVM's NVRTC preamble includes these two headers, <cuda/std/limits> alone costing NVRTC ~1.4 s
# per compile. Included first (their guards make the preamble's own includes no-ops), NVRTC's
# automatic precompiled header covers them: it is built by a process's first compile and reused
# by the next (~0.5 s each), the code compiled unchanged.
PRECOMPILED = ["--pre-include=cuda/std/cstdint", "--pre-include=cuda/std/limits", "-pch"]

_PCH_DIRS: dict[int, Path] = {}


def pch_root() -> Path:
    """Where each process keeps its precompiled header (~200 MB), in a folder of its pid."""
    return Path(tempfile.gettempdir()) / f"passcheck-nvrtc-pch-{os.getuid()}"


def pch_dir() -> Path:
    """This process's PCH folder. NVRTC's own (/tmp/__nvrtc_auto_pch_PID_0) is removed only at a
    normal exit, and workers are killed or leave with os._exit: 200 MB stayed behind per worker.
    Ours is removed at exit, and folders of processes no longer alive are removed here. Keyed by
    pid: a forked worker must not write into its parent's folder."""
    pid = os.getpid()
    if pid not in _PCH_DIRS:
        root = pch_root()
        root.mkdir(mode=0o700, exist_ok=True)
        for d in root.iterdir():
            if d.name.isdigit() and int(d.name) != pid and not workdir.alive(int(d.name)):
                shutil.rmtree(d, ignore_errors=True)
        mine = root / str(pid)
        mine.mkdir(exist_ok=True)
        atexit.register(shutil.rmtree, mine, True)
        _PCH_DIRS[pid] = mine
    return _PCH_DIRS[pid]


def nvrtc_compile(source: str, arch: str) -> bytes:
    """CUDA C -> cubin for ``arch`` with TVM's own NVRTC driver (its preamble and flags:
    ``--use_fast_math``); raises RuntimeError with NVRTC's log when it does not compile."""
    from tvm.support import nvcc

    inc = include_dir()
    if inc is not None:
        # TVM's driver looks for cuda_runtime.h under CUDA_PATH/include only (include_dir
        # prefers CUDA_PATH's own folder when that has the headers, so this keeps a good one).
        os.environ["CUDA_PATH"] = str(Path(inc).parent)
    return bytes(nvcc.compile_cuda(source, target_format="cubin", arch=arch, compiler="nvrtc",
                                   options=compile_options() + PRECOMPILED
                                   + [f"--pch-dir={pch_dir()}"]))
