"""TVM 0.27 bug: RemoveUnusedParameters raises on a function with an unused parameter and a
non-int64 PrimValue parameter the body reads.

``helper(u, c: T.bool, x)`` with ``u`` unused and ``if c:`` in its body: the pass drops ``u`` and,
to keep every symbolic variable the remaining parameters define, passes ``c`` through an
``R.shape([c])``; a shape holds int64 values only, so building it fails with ``InternalError: ...
the value in ShapeType can only have dtype of int64`` (``T.int32`` the same) instead of keeping
the PrimValue parameter as it is. FuseTIR runs the pass inside it, so every pass that needs FuseTIR
before it (AttachAttrLayoutFreeBuffers) meets it as a prerequisite that raises. Found by
AttachAttrLayoutFreeBuffers' campaign (seed 25064): a helper with an unused parameter and a branch
on a ``R.Prim("bool")`` condition.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import Cond, ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),),
              nodes=(Node(op="abs", args=(0,), attrs=(), shape=(1,), dtype="float32"),),
              outputs=(1,)),
    regions=(Region(start=0, stop=1, form="function", name="helper", options=(("unused_param", True),),
                    inner=(Region(start=0, stop=1, form="branch",
                                  options=(("cond", 0), ("tails", ((1, "negative"),)))),)),),
    conds=(Cond(kind="prim"),),
)


def _module(dtype: str, used: bool = False):  # noqa: ANN202
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    prim = T.bool if dtype == "bool" else T.int32

    @I.ir_module
    class Module:
        @R.function(private=True)
        def helper(u: R.Tensor((1,), "float32"), c: prim, x: R.Tensor((1,), "float32")) -> R.Tensor((1,), "float32"):
            if c:
                r: R.Tensor((1,), "float32") = R.abs(x)
            else:
                r: R.Tensor((1,), "float32") = R.add(x, u) if used else x
            return r

        @R.function
        def main(x: R.Tensor((1,), "float32"), c: prim) -> R.Tensor((1,), "float32"):
            y: R.Tensor((1,), "float32") = Module.helper(x, c, x)
            return y

    return Module


@pytest.mark.parametrize("dtype", ["bool", "int32"])
def test_remove_unused_parameters_shapes_a_prim_value(dtype: str) -> None:
    import tvm
    from tvm import relax

    mod = _module(dtype)
    assert relax.analysis.check_well_formed(mod)
    with pytest.raises(tvm.error.InternalError, match="the value in ShapeType can only have dtype of int64"):
        relax.transform.RemoveUnusedParameters()(mod)


def test_with_every_parameter_read_the_pass_holds() -> None:
    import tvm_ffi
    from tvm import relax

    # the same helper with ``u`` read: nothing to remove, and the pass returns the module as it was
    mod = _module("bool", used=True)
    assert tvm_ffi.structural_equal(relax.transform.RemoveUnusedParameters()(mod), mod)


def test_passcheck_reports_it() -> None:
    assert recheck("RemoveUnusedParameters", "pass_does_not_raise", EXAMPLE) == 1
    assert recheck("AttachAttrLayoutFreeBuffers", "pass_does_not_raise", EXAMPLE) == 1


@pytest.mark.parametrize("subject", ["RemoveUnusedParameters", "AttachAttrLayoutFreeBuffers"])
def test_remove_unused_parameters_prim_param(subject: str) -> None:
    message = assert_recognised(subject, "pass_does_not_raise", EXAMPLE, "test_remove_unused_parameters_prim_param")
    assert "ShapeType can only have dtype of int64" in message
