"""Compile a Relax module for the CPU and run it (in the worker process).

Opt-level 0 LLVM: pass-level checking needs correct code, not fast code, and LLVM's optimizer
is most of the compile time on small modules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_TARGET: Any = None


def target() -> Any:
    global _TARGET
    if _TARGET is None:
        import tvm

        _TARGET = tvm.target.Target({"kind": "llvm", "opt-level": 0})
    return _TARGET


def compile_relax(mod: Any) -> Any:
    import tvm
    from tvm import relax

    return relax.VirtualMachine(tvm.compile(mod, target=target()), tvm.cpu())


def run_relax(mod: Any, params: list[np.ndarray], func: str = "main") -> list[np.ndarray]:
    """Outputs of ``mod[func]`` on ``params``, flattened to a list of arrays."""
    vm = compile_relax(mod)
    return flatten_outputs(vm[func](*params))


def flatten_outputs(out: Any) -> list[np.ndarray]:
    if hasattr(out, "numpy"):
        return [out.numpy()]
    flat: list[np.ndarray] = []
    for o in out:
        flat.extend(flatten_outputs(o))
    return flat


def bitwise_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape, dtype and bits (NaNs with the same payload compare equal)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(np.array_equal(np.ascontiguousarray(a).reshape(-1).view(np.uint8),
                                np.ascontiguousarray(b).reshape(-1).view(np.uint8)))
