"""TVM 0.27 bug: an empty ``strided_slice`` whose begin lies past its end gets a negative extent.

``x[:, 3:1]`` is empty under NumPy's rules, which Relax's strided_slice follows (negative
indices from the end, clamping; ``x[:, 3:3]`` and ``x[:, 7:9]`` do give a zero extent). For a
begin past the end in the stride's direction, Relax's type inference computes ``end - begin``
unclamped and types the result ``R.Tensor((3, -2))``, a negative dimension, without any error;
LegalizeOps (TOPI) then rejects the slice: ``Input [Begin=3, End=1] is invalid for axis=0``.
passcheck used to replace empty slices by full ones; they are drawn now and found by
``passcheck FuseOps`` (kind ``prerequisite-raised``) and by ``semantics_preserved``.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (3, 5), "float32", False),),
    nodes=(Node("strided_slice", (0,), (("axes", (1,)), ("begin", (3,)), ("end", (1,)), ("strides", (1,))),
                (3, 0), "float32"),),
    outputs=(1,),
)


def _module(begin: int, end: int, stride: int = 1):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3, 5), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.strided_slice(x, axes=[1], begin=[begin], end=[end], strides=[stride]))
        bb.emit_func_output(out)
    return bb.get()


def test_other_empty_slices_have_extent_zero() -> None:
    import numpy as np
    import tvm
    from tvm import relax

    for begin, end in ((3, 3), (7, 9)):
        mod = _module(begin, end)
        assert [int(d) for d in mod["main"].ret_ty.shape] == [3, 0]
        vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
        assert vm["main"](np.ones((3, 5), "float32")).numpy().shape == (3, 0)


@pytest.mark.parametrize(("begin", "end", "stride"), [(3, 1, 1), (1, 3, -1)])
def test_negative_extent_still_inferred_and_rejected(begin: int, end: int, stride: int) -> None:
    import tvm
    from tvm import relax

    mod = _module(begin, end, stride)
    assert int(mod["main"].ret_ty.shape[1]) == -2
    with pytest.raises(tvm.error.InternalError, match="is invalid for axis"):
        relax.transform.LegalizeOps()(mod)


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "pass_does_not_raise", EXAMPLE) == 1
    assert recheck("SimplifyInference", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("FuseOps", "pass_does_not_raise", EXAMPLE, "test_strided_slice_empty_extent")
    assert_recognised("SimplifyInference", "semantics_preserved", EXAMPLE, "test_strided_slice_empty_extent")
