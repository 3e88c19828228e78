"""TVM 0.27 bug: compiling ``layer_norm`` over an axis of extent 0 fails ``Divide by zero``.

``R.nn.layer_norm(x, gamma, beta, axes=[-1])`` with ``x`` of shape (2, 0) is valid Relax (typed
``R.Tensor((2, 0))``: the result has no element, so nothing is ever divided). ``tvm.compile``
nevertheless stops with ``InternalError: Check failed: fb->value != 0 (0 vs. 0) : Divide by zero``:
the legalized kernel divides by the element count of the normalised axes, a constant 0 here, and
TVM's constant folding rejects the division instead of leaving it in code that never runs. The
same op over a non-empty axis of an empty tensor (shape (0, 2)) compiles and runs; ``mean`` and
``variance`` over a static empty axis fail the same way, and so does ``batch_norm``'s training form
over an empty batch (its statistics are a mean and a variance over every axis but the channel's).
passcheck draws zero-size dims: every subject's ``semantics_preserved`` meets it on a layer_norm
over one.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (2, 0), "float32", False), TensorDecl("p1", (0,), "float32", False),
            TensorDecl("p2", (0,), "float32", False)),
    nodes=(Node("layer_norm", (0, 1, 2), (("axes", (-1,)), ("epsilon", 1e-5)), (2, 0), "float32"),),
    outputs=(3,),
)


# batch_norm(training=True) of a (0, 3) batch: statistics over the empty axis 0
BATCH_NORM = GraphSpec(
    inputs=(TensorDecl("p0", (0, 3), "float32", False), *(TensorDecl(f"p{i}", (3,), "float32", False) for i in range(1, 5))),
    nodes=(Node("batch_norm_training", (0, 1, 2, 3, 4), (("axis", 1), ("epsilon", 1e-5)), (0, 3), "float32"),),
    outputs=(5,),
)


def _compile(shape: tuple[int, int]):  # noqa: ANN202
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(shape, "float32"))
    g = relax.const(np.ones(shape[-1:], "float32"))
    b = relax.const(np.zeros(shape[-1:], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.layer_norm(x, g, b, axes=[-1]))
        bb.emit_func_output(out)
    return tvm.compile(bb.get(), target="llvm")


def test_empty_tensor_over_a_non_empty_axis_runs() -> None:
    import tvm
    from tvm import relax

    vm = relax.VirtualMachine(_compile((0, 2)), tvm.cpu())
    assert vm["main"](tvm.runtime.tensor(np.zeros((0, 2), "float32"))).numpy().shape == (0, 2)


def test_empty_normalised_axis_still_fails_to_compile() -> None:
    import tvm

    with pytest.raises(tvm.error.InternalError, match="Divide by zero"):
        _compile((2, 0))


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", EXAMPLE,
                      "test_layer_norm_zero_extent_divide_by_zero")


def test_batch_norm_training_over_an_empty_batch() -> None:
    assert recheck("Normalize", "semantics_preserved", BATCH_NORM) == 1
    message = assert_recognised("Normalize", "semantics_preserved", BATCH_NORM, "test_layer_norm_zero_extent_divide_by_zero")
    assert "Divide by zero" in message
