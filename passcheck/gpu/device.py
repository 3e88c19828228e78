"""The local CUDA device, and TVM's runtime-only mode on a GPU machine.

A GPU machine may have only TVM's runtime (no ``libtvm_compiler.so``): there the CUDA runtime
library must be loaded by hand before ``tvm.cuda(0)`` exists, and the compile callback that
turns a loaded library's CUDA source into a cubin must be told the arch (``Target.current``
does not exist in runtime-only mode). ``ensure_cuda`` does both, once per process.
"""

from __future__ import annotations

import ctypes
import os
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _runtime_loaded() -> bool:
    import tvm

    lib = os.path.join(os.path.dirname(tvm.__file__), "lib", "libtvm_runtime_cuda.so")
    if not os.path.isfile(lib):
        return False
    try:
        ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
    except OSError:  # no libcuda.so.1: no driver, so no GPU
        return False
    return True


def cuda_device() -> Any:
    """``tvm.cuda(0)`` when a CUDA device is present, else None."""
    if os.environ.get("PASSCHECK_NO_GPU"):
        return None
    try:
        import tvm
    except ImportError:
        return None
    if not _runtime_loaded():
        return None
    dev = tvm.cuda(0)
    return dev if dev.exist else None


def local_arch() -> str | None:
    """``sm_XY`` of the local GPU, or None without one."""
    dev = cuda_device()
    if dev is None:
        return None
    return "sm_" + str(dev.compute_version).replace(".", "")


def describe_device() -> str:
    dev = cuda_device()
    if dev is None:
        return "no CUDA device"
    return f"{dev.device_name} ({local_arch()})"


_CALLBACK_ARCH: list[str] = []


def ensure_cuda(arch: str) -> Any:
    """The CUDA device, ready to load libraries built for ``arch`` (their CUDA source compiled
    by NVRTC when loaded); None without a device."""
    dev = cuda_device()
    if dev is None:
        return None
    if _CALLBACK_ARCH != [arch]:
        import tvm_ffi

        from passcheck.gpu.toolchain import compile_options, include_dir

        def compile_cuda(code: str, *_args: Any) -> Any:
            from tvm.support import nvcc

            if include_dir() is not None:
                os.environ["CUDA_PATH"] = os.path.dirname(include_dir() or "")
                return nvcc.compile_cuda(code, target_format="cubin", arch=arch, compiler="nvrtc",
                                         options=compile_options())
            # The machine's own CUDA install (TVM finds it through nvcc or /usr/local/cuda).
            return nvcc.compile_cuda(code, target_format="cubin", arch=arch, compiler="nvrtc")

        tvm_ffi.register_global_func("tvm_callback_cuda_compile", compile_cuda, override=True)
        _CALLBACK_ARCH[:] = [arch]
    return dev
