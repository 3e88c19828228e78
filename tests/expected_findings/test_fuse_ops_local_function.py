"""TVM 0.27 bug: FuseOps raises on a local function whose dataflow block binds something that is
not a ``call_tir``.

A closure defined inside ``main`` (``@R.function def inner(...)``) with a dataflow block holding
``R.tensor_to_shape`` or a ``R.match_cast`` (what a data-dependent op such as
``dynamic_strided_slice`` is legalized to) makes FuseOps fail: ``InternalError: Check failed:
(it_group != obj2group_.end()) is false: Variable a could not be found in any group``. Its
graph of groups is built from the module's global functions only, while its mutator visits the
local one too and looks its bindings up. The same block in ``main`` itself fuses, and a local
function holding only ``call_tir`` bindings passes. Found as a prerequisite failure
(AttachAttrLayoutFreeBuffers' campaign, seed 36: FuseOps runs before it).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(
        inputs=(TensorDecl(name="p0", shape=(1, 1, 1), dtype="float32", const=False),
                TensorDecl(name="c1", shape=(3,), dtype="int64", const=True, lo=0.0, hi=0.0),
                TensorDecl(name="c2", shape=(3,), dtype="int64", const=True, lo=1.0, hi=1.0),
                TensorDecl(name="c3", shape=(3,), dtype="int64", const=True, lo=1.0, hi=1.0)),
        nodes=(Node(op="dynamic_strided_slice", args=(0, 1, 2, 3), attrs=(), shape=(1, 1, 1), dtype="float32"),
               Node(op="abs", args=(4,), attrs=(), shape=(1, 1, 1), dtype="float32")),
        outputs=(5,),
    ),
    regions=(Region(start=0, stop=2, form="closure", name="inner"),),
)


def _module(local: bool):  # noqa: ANN202
    from tvm.script import ir as I
    from tvm.script import relax as R

    if local:
        @I.ir_module
        class Local:
            @R.function
            def main(x: R.Tensor((3,), "int64"), y: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
                @R.function
                def inner(v: R.Tensor((3,), "int64"), w: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
                    with R.dataflow():
                        a: R.Shape(ndim=3) = R.tensor_to_shape(v)  # noqa: F841
                        c = R.add(w, w)
                        R.output(c)
                    return c
                out: R.Tensor((2, 2), "float32") = inner(x, y)
                return out
        return Local

    @I.ir_module
    class Top:
        @R.function
        def main(v: R.Tensor((3,), "int64"), w: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            with R.dataflow():
                a: R.Shape(ndim=3) = R.tensor_to_shape(v)  # noqa: F841
                c = R.add(w, w)
                R.output(c)
            return c
    return Top


def test_fuse_ops_still_raises_on_the_local_function() -> None:
    import tvm
    from tvm import relax

    def fuse(mod):  # noqa: ANN001, ANN202
        return relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(mod)))

    with pytest.raises(tvm.error.InternalError, match="could not be found in any group"):
        fuse(_module(local=True))
    fuse(_module(local=False))  # the same block in main fuses


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "pass_does_not_raise", EXAMPLE) == 1
    assert recheck("AttachAttrLayoutFreeBuffers", "pass_does_not_raise", EXAMPLE) == 1


def test_fuse_ops_local_function() -> None:
    assert_recognised("FuseOps", "pass_does_not_raise", EXAMPLE, "test_fuse_ops_local_function")
    assert_recognised("AttachAttrLayoutFreeBuffers", "pass_does_not_raise", EXAMPLE, "test_fuse_ops_local_function")
