"""TVM 0.27 bug: an exported module with a zero-size constant of rank >= 2 cannot be loaded.

A Relax constant of shape (2, 0) compiles and runs in memory; ``export_library`` writes it,
but ``tvm.runtime.load_module`` of that library fails with ``InternalError: Check failed:
(read_ret) is false: Invalid DLTensor file format`` (shape (0,) loads fine). passcheck runs
compiled modules through ``export_library`` (an object file linked with ``ld``: the JIT is 70%
slower), so it meets this whenever a pass folds a zero-size value into a constant. Found by
``passcheck FoldConstant``: a split with an empty part, folded, then the module fails to load
(``semantics_preserved``: checking raised).
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# split(c, [1], axis=1) of a (3, 1) constant: the second part is (3, 0); FoldConstant folds both
GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(3, 1), dtype="float32", const=False),
            TensorDecl(name="c1", shape=(3, 1), dtype="float32", const=True)),
    nodes=(Node(op="split", args=(1,), attrs=(("axis", 1), ("sections", (1,))), shape=(), dtype="float32",
                parts=((3, 1), (3, 0))),
           Node(op="tuple_get_item", args=(2,), attrs=(("index", 1),), shape=(3, 0), dtype="float32"),
           Node(op="add", args=(0, 0), attrs=(), shape=(3, 1), dtype="float32")),
    outputs=(3, 4),
)


def _compiled(shape: tuple[int, ...]):  # noqa: ANN202
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    c = relax.const(np.zeros(shape, "float32"), "float32")
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(relax.Tuple([R.add(x, x), R.add(c, c)]))
        bb.emit_func_output(out)
    return tvm.compile(bb.get(), target="llvm")


def test_zero_size_constant_still_fails_to_load() -> None:
    import tvm
    from tvm import relax

    ex = _compiled((2, 0))
    outs = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.runtime.tensor(np.ones(2, "float32")))
    assert outs[1].shape == (2, 0)  # in memory it runs
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.so")
        ex.export_library(path)
        with pytest.raises(tvm.error.InternalError, match="Invalid DLTensor file format"):
            tvm.runtime.load_module(path)
        one_d = os.path.join(d, "one_d.so")
        _compiled((0,)).export_library(one_d)
        tvm.runtime.load_module(one_d)


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "semantics_preserved", GRAPH) == 1


def test_zero_size_constant_export() -> None:
    assert_recognised("FoldConstant", "semantics_preserved", GRAPH, "test_zero_size_constant_export")
