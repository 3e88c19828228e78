"""Shared by the kept repros of TVM's neural-network op lowerings: build one op on parameters,
compile it for the CPU and run it (the bugs are in LegalizeOps' kernels, before any pass)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def compile_and_run(make: Callable[..., Any], arrays: list[np.ndarray]) -> np.ndarray:
    """``make(*vars)`` is the op's Relax expression; raises what TVM raises while compiling."""
    import tvm
    from tvm import relax

    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{i}", relax.TensorType(a.shape, str(a.dtype))) for i, a in enumerate(arrays)]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(make(*params))
        bb.emit_func_output(out)
    mod = bb.get()
    assert relax.analysis.check_well_formed(mod)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    return vm["main"](*arrays).numpy()
