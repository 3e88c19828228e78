"""TVM 0.27 bug: LegalizeOps turns a float16 ``batch_norm`` into a float32 result.

Relax types ``batch_norm`` on a float16 tensor as float16 (its output and statistics), but the
TOPI kernel LegalizeOps emits computes ``moving_var + epsilon`` with ``epsilon`` as a float32
scalar, which promotes the whole normalisation to float32, and its ``call_tir`` is declared with
a float32 output. The legalized module's types no longer agree with the original's: a consumer
that mixes the result with a float16 tensor (``add``) makes LegalizeOps itself raise
``TypeError: Binary operators must have the same datatype``, and a module returning the result
directly returns a float32 array from a function typed float16. It is TVM's bug: LegalizeOps
must preserve the types Relax inferred. passcheck used to skip float16 batch_norm; it is drawn
now and found by ``passcheck FuseOps`` (LegalizeOps is a prerequisite: kind
``prerequisite-raised``) and by any subject's ``semantics_preserved`` (tvm.compile legalizes).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (2, 3), "float16", False),
            TensorDecl("c1", (3,), "float16", True, 0.5, 1.5), TensorDecl("c2", (3,), "float16", True),
            TensorDecl("c3", (3,), "float16", True), TensorDecl("c4", (3,), "float16", True, 0.5, 2.0),
            TensorDecl("c5", (2, 3), "float16", True)),
    nodes=(Node("batch_norm", (0, 1, 2, 3, 4), (("axis", 1), ("epsilon", 1e-5)), (2, 3), "float16"),
           Node("add", (6, 5), (), (2, 3), "float16")),
    outputs=(7,),
)


def _module(consume: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    c = lambda: relax.const(np.ones(3, "float16"))  # noqa: E731
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3), "float16"))
    with bb.function("main", [x]):
        with bb.dataflow():
            bn = bb.emit(relax.TupleGetItem(R.nn.batch_norm(x, c(), c(), c(), c(), axis=1, training=False), 0))
            out = bb.emit_output(R.add(bn, relax.const(np.ones((2, 3), "float16"))) if consume else bn)
        bb.emit_func_output(out)
    return bb.get()


def test_relax_types_it_float16() -> None:
    from tvm import relax

    mod = _module(consume=True)
    assert relax.analysis.check_well_formed(mod)
    assert mod["main"].ret_ty.dtype == "float16"


def test_legalize_ops_still_raises_on_a_consumer() -> None:
    from tvm import relax

    with pytest.raises(TypeError, match="same datatype"):
        relax.transform.LegalizeOps()(_module(consume=True))


def test_the_built_function_still_returns_float32() -> None:
    import tvm
    from tvm import relax

    vm = relax.VirtualMachine(tvm.compile(_module(consume=False), target="llvm"), tvm.cpu())
    assert vm["main"](np.ones((2, 3), "float16")).numpy().dtype == np.float32  # typed float16


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "pass_does_not_raise", EXAMPLE) == 1
    assert recheck("FoldConstant", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("FuseOps", "pass_does_not_raise", EXAMPLE, "test_legalize_batch_norm_float16")
    assert_recognised("FoldConstant", "semantics_preserved", EXAMPLE, "test_legalize_batch_norm_float16")


def test_a_packed_copy_of_its_result_meets_its_float32_size() -> None:
    """``call_dps_packed("runtime.TVMTensorCopyFromTo", (bn[0],))`` into a float16 buffer: the
    kernel's float32 result is 4 bytes where 2 are allocated ("from_size == to_size (4 vs. 2)";
    LegalizeOps, seed 4242)."""
    from passcheck.relax.program.spec import ProgramSpec, Region

    copied = ProgramSpec(
        GraphSpec(inputs=(TensorDecl("p0", (1,), "float16", False), TensorDecl("p1", (1,), "float16", False, -2.0, 2.0),
                          TensorDecl("p2", (1,), "float16", False), TensorDecl("p3", (1,), "float16", False, 0.0, 0.0),
                          TensorDecl("p4", (1,), "float16", False, 1e-06, 0.0001)),
                  nodes=(Node("full", (), (("dtype", "float16"), ("fill", 0.0), ("shape", (1,))), (1,), "float16"),
                         Node("batch_norm", (5, 1, 2, 3, 4), (("axis", 0), ("epsilon", 1e-05)), (1,), "float16")),
                  outputs=(6,)),
        regions=(Region(1, 2, "packed"),),
    )
    message = assert_recognised("LegalizeOps", "semantics_preserved", copied, "test_legalize_batch_norm_float16")
    assert "The size in bytes must exactly match" in message
