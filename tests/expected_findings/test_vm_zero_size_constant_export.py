"""TVM 0.27 bug: a compiled module with a zero-size constant cannot be loaded back once exported.

``Executable.export_library`` saves the constant; ``tvm.runtime.load_module`` then fails in
``Tensor::Load`` with ``Invalid DLTensor file format``. Reading the constant's (zero) data bytes
returns false, and ``Tensor::Load`` skips that check only when the *first* dimension is 0 ("Only
check non-empty data"): a constant of shape (0, 2) loads, one of shape (2, 0) does not. The same
executable run in memory, without the export, works and gives the expected empty result. A
zero-size constant is valid Relax (typed, legalized and built without complaint). passcheck links
its kernels as a shared object and loads it (``passcheck/relax/execution.py``), so every subject's
``semantics_preserved`` meets it on a drawn zero-size constant.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# x (2, 1) broadcast against a constant (2, 0): the argument is not empty, only the constant is
EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (2, 1), "float32", False), TensorDecl("c1", (2, 0), "float32", True)),
    nodes=(Node("add", (0, 1), (), (2, 0), "float32"),),
    outputs=(2,),
)


def _run(const_shape: tuple[int, int], exported: bool) -> tuple[int, ...]:
    """Shape of ``x + constant`` (x broadcasts against the zero-size constant)."""
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    x_shape = (const_shape[0], 1) if const_shape[0] else (1, const_shape[1])
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(x_shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.add(x, relax.const(np.zeros(const_shape, "float32"))))
        bb.emit_func_output(out)
    ex = tvm.compile(bb.get(), target="llvm")
    arg = tvm.runtime.tensor(np.ones(x_shape, "float32"))
    if not exported:
        return tuple(relax.VirtualMachine(ex, tvm.cpu())["main"](arg).numpy().shape)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "lib.so")
        ex.export_library(path)
        lib = tvm.runtime.load_module(path)
        return tuple(relax.VirtualMachine(lib, tvm.cpu())["main"](arg).numpy().shape)


def test_in_memory_runs() -> None:
    assert _run((2, 0), exported=False) == (2, 0)


def test_leading_zero_dim_loads() -> None:
    assert _run((0, 2), exported=True) == (0, 2)


def test_exported_still_fails_to_load() -> None:
    import tvm

    with pytest.raises(tvm.error.InternalError, match="Invalid DLTensor file format"):
        _run((2, 0), exported=True)


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", EXAMPLE, "test_vm_zero_size_constant_export")
