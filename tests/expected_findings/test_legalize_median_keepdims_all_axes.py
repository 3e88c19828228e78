"""TVM 0.27 bug: LegalizeOps gives ``median(x, axis=None, keepdims=True)`` the wrong rank.

Relax types the median of every element with ``keepdims=True`` as a tensor of x's rank with all
extents 1 (``R.Tensor((1, 1))`` for a 3x4 ``x``), as it does for max, argmax and the other
reductions. The TOPI kernel LegalizeOps emits returns shape ``(1,)``, and the ``call_tir`` is
declared so: the legalized module no longer type-checks against the original's types. A
consumer (``concat`` with a (1, 1) tensor) makes LegalizeOps raise ``ValueError: Concat expects
all input tensors to have same ndim``; returned directly, the function typed ``(1, 1)`` returns
an array of shape (1,). Found by drawing median (passcheck's reduction family).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (3, 4), "float32", False),),
    nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1), "float32"),),
    outputs=(1,),
)
# a conv2d consumer (found by AlterOpLayout's campaign): "requires the input to be 4-dim tensor"
INTO_CONV2D = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 1, 1), "float32", False), TensorDecl("p1", (1, 1, 1, 1), "float32", False)),
    nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1, 1, 1), "float32"),
           Node("conv2d", (2, 1), (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)),
                                   ("strides", (1, 1))), (1, 1, 1, 1), "float32")),
    outputs=(3,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NCHW", "OIHW")),)),),  # AlterOpLayout leaves it as is
)

# an expand_dims consumer legalized from the (1,) it got: main's result changes rank (LegalizeOps)
INTO_EXPAND_DIMS = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 1, 1), "float32", False),),
    nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1, 1, 1), "float32"),
           Node("expand_dims", (1,), (("axis", (0,)),), (1, 1, 1, 1, 1), "float32")),
    outputs=(2,),
)


def _module(consume: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3, 4), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            m = bb.emit(R.median(x, axis=None, keepdims=True))
            out = bb.emit_output(R.concat([m, relax.const(np.ones((1, 1), "float32"))], axis=0) if consume else m)
        bb.emit_func_output(out)
    return bb.get()


def test_relax_types_it_with_the_input_rank() -> None:
    assert [int(d) for d in _module(consume=False)["main"].ret_ty.shape] == [1, 1]


def test_legalized_result_still_has_rank_one() -> None:
    import tvm
    from tvm import relax

    with pytest.raises(ValueError, match="same ndim"):
        relax.transform.LegalizeOps()(_module(consume=True))
    vm = relax.VirtualMachine(tvm.compile(_module(consume=False), target="llvm"), tvm.cpu())
    assert vm["main"](np.arange(12, dtype="float32").reshape(3, 4)).numpy().shape == (1,)


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", EXAMPLE, "test_legalize_median_keepdims_all_axes")


def test_registered_under_fuse_ops() -> None:
    """FuseOps's input is legalized (no R.median left to match): the module as generated, which
    the input IR carries commented out, is what the bug's IR pattern finds (seed 6 of a 500-example
    FuseOps run met it as "output 0: shape [1], the reference has shape [1, 1, 1]")."""
    assert_recognised("FuseOps", "semantics_preserved", EXAMPLE, "test_legalize_median_keepdims_all_axes")


def test_registered_through_a_conv2d_consumer() -> None:
    assert_recognised("AlterOpLayout", "semantics_preserved", INTO_CONV2D, "test_legalize_median_keepdims_all_axes")


def test_registered_through_an_expand_dims_consumer() -> None:
    assert recheck("LegalizeOps", "signature_preserved", INTO_EXPAND_DIMS) == 1
    assert_recognised("LegalizeOps", "signature_preserved", INTO_EXPAND_DIMS, "test_legalize_median_keepdims_all_axes")


# a layout_transform of it: its 4-d index map is given the rank-1 kernel result (RemoveUnusedOutputs,
# RemoveUnusedParameters: 1 of 500 each at seed 20670)
INTO_LAYOUT_TRANSFORM = GraphSpec(
    inputs=(TensorDecl(name="p1", shape=(1, 1, 1, 2), dtype="float32", const=False),),
    nodes=(Node(op="median", args=(0,), attrs=(("axis", None), ("keepdims", True)), shape=(1, 1, 1, 1), dtype="float32"),
           Node(op="layout_transform", args=(1,), attrs=(("factor", 2), ("pad_value", 0.0), ("perm", None)),
                shape=(1, 1, 1, 1, 2), dtype="float32")),
    outputs=(2,),
)


def test_registered_through_a_layout_transform_consumer() -> None:
    assert_recognised("RemoveUnusedOutputs", "semantics_preserved", INTO_LAYOUT_TRANSFORM,
                      "test_legalize_median_keepdims_all_axes")


# a dynamic_strided_slice of it: LegalizeOps legalizes the slice for the rank-1 kernel result and raises
# (LazySetOutput,
# 1 of 300 at seed 20670)
INTO_DYNAMIC_SLICE = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1, 1), dtype="float32", const=False),
            TensorDecl(name="c2", shape=(2,), dtype="int64", const=True, lo=0.0, hi=0.0),
            TensorDecl(name="c3", shape=(2,), dtype="int64", const=True, lo=1.0, hi=1.0),
            TensorDecl(name="c4", shape=(2,), dtype="int64", const=True, lo=1.0, hi=1.0)),
    nodes=(Node(op="median", args=(0,), attrs=(("axis", None), ("keepdims", True)), shape=(1, 1), dtype="float32"),
           Node(op="dynamic_strided_slice", args=(4, 1, 2, 3), attrs=(), shape=(1, 1), dtype="float32")),
    outputs=(5,),
)


def test_registered_through_a_dynamic_slice_consumer() -> None:
    assert_recognised("LegalizeOps", "pass_does_not_raise", INTO_DYNAMIC_SLICE, "test_legalize_median_keepdims_all_axes")


# a consumer emitted as a call_tir of its legalized PrimFunc: the VM refuses the rank-1 kernel result
# ("Argument 0 type mismatch"; LazySetOutput, 7 of 500 at seed 12305)
INTO_TIR_CALL = ProgramSpec(
    graph=GraphSpec(
        inputs=(TensorDecl(name="p0", shape=(2, 2), dtype="float32", const=False),),
        nodes=(Node(op="median", args=(0,), attrs=(("axis", None), ("keepdims", True)), shape=(1, 1), dtype="float32"),
               Node(op="layout_transform", args=(1,), attrs=(("factor", 0), ("pad_value", None), ("perm", (0, 1))),
                    shape=(1, 1), dtype="float32")),
        outputs=(2,)),
    regions=(Region(1, 2, "tir"),),
)


def test_registered_through_a_call_tir_consumer() -> None:
    assert recheck("LazySetOutput", "semantics_preserved", INTO_TIR_CALL) == 1
    assert_recognised("LazySetOutput", "semantics_preserved", INTO_TIR_CALL, "test_legalize_median_keepdims_all_axes")


# a reduction of it over its first axis: the rank-1 kernel result reduces to a scalar ("shape [], the
# reference has shape [1, 1]"; drawn by tests/test_op_vocabulary.py's median graphs)
INTO_REDUCTION = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2, 2, 2), dtype="float32", const=False),),
    nodes=(Node(op="median", args=(0,), attrs=(("axis", None), ("keepdims", True)), shape=(1, 1, 1), dtype="float32"),
           Node(op="median", args=(1,), attrs=(("axis", 0), ("keepdims", False)), shape=(1, 1), dtype="float32")),
    outputs=(2,),
)


def test_registered_through_a_reduction_to_a_scalar() -> None:
    assert recheck("FuseOps", "semantics_preserved", INTO_REDUCTION) == 1
    assert_recognised("FuseOps", "semantics_preserved", INTO_REDUCTION, "test_legalize_median_keepdims_all_axes")


# in a public helper, its (1, 1)-typed result handed to main's median: that kernel, of rank 2, refuses the
# (1,) by its rank; the finding keeps TVM's last line, "expected 2" (DeadCodeElimination seed 40961, 1 of 300)
FROM_A_HELPER = ProgramSpec(
    graph=GraphSpec(
        inputs=(TensorDecl(name="p0", shape=("n", 1), dtype="float32", const=False),),
        nodes=(Node(op="median", args=(0,), attrs=(("axis", None), ("keepdims", True)), shape=(1, 1), dtype="float32"),
               Node(op="median", args=(1,), attrs=(("axis", None), ("keepdims", False)), shape=(), dtype="float32"),
               Node(op="isinf", args=(2,), attrs=(), shape=(), dtype="bool")),
        outputs=(3,),
        sym_sizes=(("n", 1),),
    ),
    regions=(Region(start=0, stop=1, form="function", name="helper", options=(("private", False),)),),
)


def test_a_helper_returning_it_fails_its_consumers_rank_check() -> None:
    import tvm
    from tvm import relax
    from tvm.script import ir as I  # noqa: E741
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def helper(x: R.Tensor(("n", 1), "float32")) -> R.Tensor((1, 1), "float32"):
            with R.dataflow():
                m = R.median(x, axis=None, keepdims=True)
                R.output(m)
            return m

        @R.function
        def main(x: R.Tensor(("n", 1), "float32")) -> R.Tensor((), "float32"):
            cls = Module
            with R.dataflow():
                m = cls.helper(x)
                y = R.median(m, axis=None, keepdims=False)
                R.output(y)
            return y

    vm = relax.VirtualMachine(tvm.compile(Module, target="llvm"), tvm.cpu())
    assert vm["helper"](tvm.runtime.tensor(np.ones((3, 1), "float32"))).numpy().shape == (1,)
    with pytest.raises(ValueError, match=r"(?s)Mismatched \w+\.ndim on argument #0.*\n +expected 2\Z"):
        vm["main"](tvm.runtime.tensor(np.ones((3, 1), "float32")))


def test_registered_through_a_helper_returning_it() -> None:
    assert recheck("DeadCodeElimination", "semantics_preserved", FROM_A_HELPER) == 1
    message = assert_recognised("DeadCodeElimination", "semantics_preserved", FROM_A_HELPER,
                                "test_legalize_median_keepdims_all_axes")
    assert message.endswith("expected 2"), message


def test_a_helper_handed_what_a_median_of_it_reduces_to() -> None:
    """median(axis=[0]) of its (1,) result is () where Relax types (1,), and a helper typed (1,)
    refuses it (DeadCodeElimination, seed 1207: 1 of 2,000). That run's words against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    message = ('checking raised ValueError (execution.py:190): Argument 0 type mismatch: expected R.Tensor((1,), '
               'dtype="float32"), given R.Tensor((), dtype="float32")')
    ir = 'lv2: R.Tensor((1, 1), dtype="float32") = R.median(lv1, axis=None, keepdims=True)'
    bug = recognise(resolve("DeadCodeElimination"), "semantics_preserved", message, ir)
    assert bug is not None and bug.name == "test_legalize_median_keepdims_all_axes"


def test_a_norm_over_an_axis_it_no_longer_has() -> None:
    """rms_norm(axes=[1]) of its (1,) result, typed (1, 1) (SpecializePrimFuncBasedOnCallSite, seed 1207:
    LegalizeOps run before the pass raises). That run's words against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    message = ("LegalizeOps (run before SpecializePrimFuncBasedOnCallSite) raised ValueError: In relax.nn.rms_norm, the "
               "input axis 1 is out of range. The input tensor has 1 dimensions, so axis should be in range [-1, 1).")
    ir = 'lv: R.Tensor((1, 1), dtype="float32") = R.median(p0, axis=None, keepdims=True)'
    bug = recognise(resolve("SpecializePrimFuncBasedOnCallSite"), "pass_does_not_raise", message, ir)
    assert bug is not None and bug.name == "test_legalize_median_keepdims_all_axes"


def test_index_tensor_of_it() -> None:
    """index_tensor with two index tensors on its (1,) result, typed (1, 1) (RealizeVDevice, seed 1207:
    5 of 2,000). That run's words against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    message = ("checking raised ValueError (execution.py:190): index_tensor received 2 index tensors, but data has "
               "only 1 dimensions")
    ir = 'lv: R.Tensor((1, 1), dtype="float32") = R.median(p0, axis=None, keepdims=True)'
    bug = recognise(resolve("RealizeVDevice"), "semantics_preserved", message, ir)
    assert bug is not None and bug.name == "test_legalize_median_keepdims_all_axes"


# the median itself as a tir region (R.call_tir to its legalized kernel, typed (1,) as the kernel
# returns): no R.median is left in the IR, and the example's description names the call it stands
# for (AnnotateTIROpPattern's campaign, seed 2612)
AS_TIR = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", ("n", 1), "float32", False),),
              nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1), "float32"),),
              outputs=(1,), sym_sizes=(("n", 1),)),
    regions=(Region(0, 1, "tir"),),
)


def test_registered_as_a_tir_region() -> None:
    assert recheck("AnnotateTIROpPattern", "semantics_preserved", AS_TIR) == 1
    message = assert_recognised("AnnotateTIROpPattern", "semantics_preserved", AS_TIR,
                                "test_legalize_median_keepdims_all_axes")
    assert "the reference has shape [1, 1]" in message


# an nll_loss of it (its predictions rank 2 in Relax, rank 1 legalized, against targets of shape (1,)):
# LegalizeOps raises "Predictions shape is (C,) while targets is not a scalar" (seed 2612)
INTO_NLL_LOSS = GraphSpec(
    inputs=(TensorDecl("p0", ("n", 1), "float32", False), TensorDecl("p1", (1,), "int64", False, lo=0.0, hi=0.999999)),
    nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1), "float32"),
           Node("nll_loss", (2, 1), (("ignore_index", -100), ("reduction", "mean")), (), "float32")),
    outputs=(3,), sym_sizes=(("n", 1),),
)


def test_registered_through_an_nll_loss_consumer() -> None:
    message = assert_recognised("AnnotateTIROpPattern", "pass_does_not_raise", INTO_NLL_LOSS,
                                "test_legalize_median_keepdims_all_axes")
    assert "Predictions shape is (C,) while targets is not a scalar" in message


# a layer_norm of it over a negative axis, in a helper (InlinePrivateFunctions, seed 2612): "the input
# axis -3 is out of range" of the (1,) LegalizeOps made
INTO_LAYER_NORM = GraphSpec(
    inputs=(TensorDecl("p0", (11, 3, 7), "float32", False, lo=-0.01, hi=0.01),
            TensorDecl("p1", (1, 1, 1), "float32", False, lo=-2.0, hi=2.0), TensorDecl("c2", (1, 1, 1), "float32", True)),
    nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1, 1), "float32"),
           Node("layer_norm", (3, 1, 2), (("axes", (-3, 1, 2)), ("epsilon", 1e-06)), (1, 1, 1), "float32")),
    outputs=(4,), tensor_inputs=True,
)


def test_a_norm_over_a_negative_axis_it_no_longer_has() -> None:
    message = assert_recognised("InlinePrivateFunctions", "semantics_preserved", INTO_LAYER_NORM,
                                "test_legalize_median_keepdims_all_axes")
    assert "the input axis -3 is out of range" in message


# an nll_loss of it with (1, 1) targets: "K from predictions is 0 while K from targets is 1" (seed 2612)
INTO_NLL_LOSS_2D = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 1), "float32", False), TensorDecl("p1", (1, 1), "int64", False, lo=0.0, hi=0.999999)),
    nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1, 1), "float32"),
           Node("nll_loss", (2, 1), (("ignore_index", -100), ("reduction", "mean")), (), "float32")),
    outputs=(3,),
)


def test_registered_through_an_nll_loss_of_two_dimensions() -> None:
    message = assert_recognised("ComputePrimValue", "pass_does_not_raise", INTO_NLL_LOSS_2D,
                                "test_legalize_median_keepdims_all_axes")
    assert "K from predictions is 0 while K from targets is 1" in message


# a tril of it: "relax.tril requires the input tensor to have at least two dimensions. However, the
# given input has 1 dimension(s)." (RealizeVDevice, seed 4242)
INTO_TRIL = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1), "float32", False),),
    nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1), "float32"),
           Node("tril", (1,), (("k", 0),), (1, 1), "float32")),
    outputs=(2,),
)


def test_registered_through_a_tril_consumer() -> None:
    message = assert_recognised("RealizeVDevice", "semantics_preserved", INTO_TRIL,
                                "test_legalize_median_keepdims_all_axes")
    assert "at least two dimensions. However, the given input has 1 dimension" in message


# an einsum of it transposing two axes it no longer has: "IndexError: Index 1 out of bounds 1"
# (RealizeVDevice, seed 4242)
INTO_EINSUM = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1), "float32", False),),
    nodes=(Node("median", (0,), (("axis", None), ("keepdims", True)), (1, 1), "float32"),
           Node("einsum", (1,), (("equation", "ij->ji"),), (1, 1), "float32")),
    outputs=(2,),
)


def test_registered_through_an_einsum_consumer() -> None:
    message = assert_recognised("RealizeVDevice", "semantics_preserved", INTO_EINSUM,
                                "test_legalize_median_keepdims_all_axes")
    assert "Index 1 out of bounds 1" in message
