"""TVM 0.27 bug: the Relax VM refuses a zero-size NumPy array as an argument.

The VM takes NumPy arrays as arguments directly (TVM converts them through DLPack without a
copy). NumPy gives a zero-size array all-zero strides (``np.zeros((0, 2)).strides == (0, 0)``),
which the conversion's compactness check rejects: ``ValueError: expected to be compact array``,
for any function, even ``relu``. The same array copied into a TVM tensor
(``tvm.runtime.tensor``) runs and gives the expected empty result. A zero-size tensor is valid
(Relax types it, LegalizeOps and the build accept it); the conversion should treat the strides
of an empty array as compact. passcheck draws zero-size dims and shape variables bound to 0 at
run time, and passes its inputs as NumPy arrays: every subject's ``semantics_preserved`` meets it.
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", ("n", 2), "float32", False),),
    nodes=(Node("relu", (0,), (), ("n", 2), "float32"),),
    outputs=(1,),
    sym_sizes=(("n", 0),),
)


def _vm():  # noqa: ANN202
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((0, 2), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.relu(x))
        bb.emit_func_output(out)
    return relax.VirtualMachine(tvm.compile(bb.get(), target="llvm"), tvm.cpu())


def test_a_copy_runs() -> None:
    import tvm

    assert _vm()["main"](tvm.runtime.tensor(np.zeros((0, 2), "float32"))).numpy().shape == (0, 2)


def test_numpy_array_still_refused() -> None:
    with pytest.raises(ValueError, match="expected to be compact array"):
        _vm()["main"](np.zeros((0, 2), "float32"))


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", EXAMPLE, "test_vm_zero_size_numpy_input")
