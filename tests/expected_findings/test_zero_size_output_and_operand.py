"""TVM 0.27 bug: the default pipeline fails on a zero-size value that is both returned and used.

``y = add(x, x); z = broadcast_to(y, (1, 0)); return (y, z)`` with ``x`` of shape (0,) is valid
Relax (well-formed; zero-size tensors are allowed everywhere). ``tvm.compile`` fails with
``IndexError: Index 1 out of bounds 1``; the same graph with shape (1,) builds and runs. Found through the vocabulary's zero-size results (an empty
dynamic_strided_slice broadcast); ``passcheck pipeline`` reports it as ``every_build_runs``,
FuseOps as ``semantics_preserved`` (checking raised).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(0,), dtype="float32", const=False),),
    nodes=(Node(op="add", args=(0, 0), attrs=(), shape=(0,), dtype="float32"),
           Node(op="broadcast_to", args=(1,), attrs=(("shape", (1, 0)),), shape=(1, 0), dtype="float32")),
    outputs=(1, 2),
    tensor_inputs=True,  # zero-size NumPy inputs are refused by the VM (another kept bug)
)
EXAMPLE = PipelineBuilds(GRAPH, (Build("default", 0, "generic"),))


def _module(n: int):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((n,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(R.add(x, x))
            z = bb.emit(R.broadcast_to(y, (1, n)))
            out = bb.emit_output(relax.Tuple([y, z]))
        bb.emit_func_output(out)
    return bb.get()


def test_zero_size_output_and_operand_still_fails() -> None:
    from tvm import relax

    from passcheck.relax.execution import run_relax

    assert relax.analysis.check_well_formed(_module(0))
    with pytest.raises(IndexError, match="Index 1 out of bounds 1"):
        run_relax(_module(0), [np.zeros(0, "float32")], tensors=True)
    assert [a.shape for a in run_relax(_module(1), [np.ones(1, "float32")])] == [(1,), (1, 1)]


def test_passcheck_reports_it() -> None:
    assert recheck("pipeline", "every_build_runs", EXAMPLE) == 1


def test_zero_size_output_and_operand() -> None:
    assert_recognised("pipeline", "every_build_runs", EXAMPLE, "test_zero_size_output_and_operand")
