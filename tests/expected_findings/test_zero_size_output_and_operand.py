"""TVM 0.27 bug: the default pipeline fails on a zero-size value that is both returned and used.

``y = add(x, x); z = broadcast_to(y, (1, 0)); return (y, z)`` with ``x`` of shape (0,) is valid
Relax (well-formed; zero-size tensors are allowed everywhere). ``tvm.compile`` fails with
``IndexError: Index 1 out of bounds 1``; the same graph with shape (1,) builds and runs. Found through the vocabulary's zero-size results (an empty
dynamic_strided_slice broadcast); ``passcheck pipeline`` reports it as ``every_build_runs``,
FuseOps as ``semantics_preserved`` (checking raised).
"""

from __future__ import annotations

from dataclasses import replace

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


# The same bug without a returned operand: expand_dims of a zero-size tensor feeding another op (found
# by the zero-size drawn graphs). The build pipeline's RewriteDataflowReshape makes the fused
# expand_dims kernel an R.reshape, and R.reshape's shape inference fails on the empty input.
EXPAND = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(0,), dtype="float32", const=False),),
    nodes=(Node(op="expand_dims", args=(0,), attrs=(("axis", (0,)),), shape=(1, 0), dtype="float32"),
           Node(op="abs", args=(1,), attrs=(), shape=(1, 0), dtype="float32")),
    outputs=(2,),
    tensor_inputs=True,
)


def test_expand_dims_feeding_an_op_still_fails() -> None:
    from tvm import relax

    from passcheck.relax.build import build_module
    from passcheck.relax.execution import run_relax

    x = relax.Var("x", relax.TensorType((0,), "float32"))
    with pytest.raises(IndexError, match="Index 1 out of bounds 1"):
        relax.op.reshape(x, (1, 0))  # the inference RewriteDataflowReshape runs into
    with pytest.raises(IndexError, match="Index 1 out of bounds 1"):
        run_relax(build_module(EXPAND), [np.zeros(0, "float32")], tensors=True)
    one = GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),),
                    nodes=(replace(EXPAND.nodes[0], shape=(1, 1)), replace(EXPAND.nodes[1], shape=(1, 1))),
                    outputs=(2,), tensor_inputs=True)
    assert [a.shape for a in run_relax(build_module(one), [np.ones(1, "float32")])] == [(1, 1)]


def test_expand_dims_feeding_an_op() -> None:
    example = PipelineBuilds(EXPAND, (Build("default", 0, "generic"),))
    assert recheck("pipeline", "every_build_runs", example) == 1
    assert_recognised("pipeline", "every_build_runs", example, "test_zero_size_output_and_operand")


# The same pass on a transpose of a zero-size tensor: RewriteDataflowReshape takes the legalized
# permute_dims of a (1, 0) value for a reshape (it moves no element) and makes it R.reshape to
# (1, 1), which R.reshape's check refuses (found by ``passcheck sequence``: AttachGlobalSymbol's
# prerequisites; the pipeline's build meets it the same way).
TRANSPOSE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1, 0), dtype="float32", const=False),),
    nodes=(Node(op="permute_dims", args=(0,), attrs=(("axes", None),), shape=(0, 1), dtype="float32"),
           Node(op="abs", args=(1,), attrs=(), shape=(0, 1), dtype="float32")),
    outputs=(2,),
    tensor_inputs=True,
)


def test_transpose_of_a_zero_size_value_still_fails() -> None:
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 0), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(R.permute_dims(x))
            out = bb.emit_output(R.add(a, a))
        bb.emit_func_output(out)
    legalized = relax.transform.LegalizeOps()(bb.get())
    with pytest.raises(ValueError, match=r"old shape is R\.shape\(\[1, 0\]\).*new shape is R\.shape\(\[1, 1\]\)"):
        relax.transform.RewriteDataflowReshape()(legalized)


def test_transpose_of_a_zero_size_value() -> None:
    example = PipelineBuilds(TRANSPOSE, (Build("default", 0, "generic"),))
    assert recheck("pipeline", "every_build_runs", example) == 1
    assert_recognised("pipeline", "every_build_runs", example, "test_zero_size_output_and_operand")


# With a symbolic extent the rewritten reshape is typed (1, 1, 1, n), not (1, 0, 1, n), and the
# returned expand_dims reads a copy of its variable nothing defines: "Var lv is not defined" in the
# VM's codegen (MergeCompositeFunctions' campaign, seed 20670; every pass meets it in tvm.compile).
SYMBOLIC = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(0, 1, "n"), dtype="float32", const=False),),
    nodes=(Node(op="expand_dims", args=(0,), attrs=(("axis", (0,)),), shape=(1, 0, 1, "n"), dtype="float32"),),
    outputs=(0, 1),
    sym_sizes=(("n", 1),),
    tensor_inputs=True,
)


def test_a_symbolic_extent_leaves_the_output_undefined() -> None:
    assert recheck("LegalizeOps", "semantics_preserved", SYMBOLIC) == 1
    assert_recognised("LegalizeOps", "semantics_preserved", SYMBOLIC, "test_zero_size_output_and_operand")


# the zero extent after a symbolic one: R.Tensor((n, 0)) in the TVMScript, ('n', 0) in the spec
# (MergeCompositeFunctions' campaign, seed 20670: "Index 2 out of bounds 2", not recognised before)
AFTER_SYMBOLIC = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=("n", 0), dtype="float32", const=False),),
    nodes=(Node(op="expand_dims", args=(0,), attrs=(("axis", (0,)),), shape=(1, "n", 0), dtype="float32"),),
    outputs=(0, 1),
    sym_sizes=(("n", 1),),
    tensor_inputs=True,
)


def test_a_zero_extent_after_a_symbolic_one() -> None:
    assert_recognised("LegalizeOps", "semantics_preserved", AFTER_SYMBOLIC, "test_zero_size_output_and_operand")
