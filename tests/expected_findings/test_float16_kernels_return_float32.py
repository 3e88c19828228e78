"""TVM 0.27 bug: float16 (and bfloat16) ``grid_sample`` and float16 ``attention`` with an explicit ``scale``
are typed float16 but their legalized kernels compute and return float32.

TOPI's grid_sample mixes Python float constants (``1.0 - (y - y0)``) into float16 expressions,
and LegalizeOps' attention casts the scores to float32 to apply a given scale (printing
``tensor_a has different data type with tensor_b: float32, float16``); neither casts back. The
VM hands the float32 tensor on as if it were float16: returned directly its dtype is wrong,
and a float16 consumer that meets another float16 operand fails to compile (``TypeError:
Binary operators must have the same datatype``), as float16 batch_norm does. Found by
passcheck's op vocabulary (a graph whose float16 add takes a grid_sample).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (1, 2, 4, 4), "float16", False), TensorDecl("p1", (1, 2, 3, 3), "float16", False),
            TensorDecl("p2", (), "float16", False)),
    nodes=(Node("grid_sample", (0, 1), (("align_corners", False), ("method", "bilinear"), ("padding_mode", "zeros")),
                (1, 2, 3, 3), "float16"),
           Node("add", (2, 3), (), (1, 2, 3, 3), "float16")),
    outputs=(4,),
)


def test_float16_kernels_still_return_float32() -> None:
    from tvm.relax import op as R

    x, g = np.full((1, 2, 4, 4), 0.5, "float16"), np.zeros((1, 2, 3, 3), "float16")
    assert compile_and_run(lambda a, b: R.image.grid_sample(a, b), [x, g]).dtype == np.float32
    q, k, v = (np.full(s, 0.5, "float16") for s in ((1, 2, 1, 3), (1, 3, 1, 3), (1, 3, 1, 2)))
    assert compile_and_run(lambda a, b, c: R.nn.attention(a, b, c, scale=0.5), [q, k, v]).dtype == np.float32
    assert compile_and_run(lambda a, b, c: R.nn.attention(a, b, c), [q, k, v]).dtype == np.float16


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", GRAPH) == 1


# FoldConstant folds a scaled float16 attention of constants into a float32 constant: the
# function's float16 result comes back float32 (FoldConstant, seed 104).
FOLDED = GraphSpec(
    inputs=(TensorDecl("p0", (1,), "float16", False), TensorDecl("c1", (1, 5, 1, 1), "float16", True),
            TensorDecl("c2", (1, 5, 1, 1), "float16", True), TensorDecl("c3", (1, 5, 1, 5), "float16", True)),
    nodes=(Node("attention", (1, 2, 3), (("causal_mask", None), ("scale", 0.125)), (1, 5, 1, 5), "float16"),),
    outputs=(4,),
)


# bfloat16 grid_sample likewise: FoldConstant folds it to a float32 constant (FoldConstant, seed 1,
# once swarm testing drew bfloat16 graphs of a few ops).
FOLDED_BF16 = GraphSpec(
    inputs=(TensorDecl("c1", (1, 1, 1, 1), "bfloat16", True, -10.0, 10.0),
            TensorDecl("c2", (1, 2, 1, 1), "bfloat16", True, -1.2, 1.2)),
    nodes=(Node("grid_sample", (0, 1), (("align_corners", False), ("method", "bilinear"), ("padding_mode", "zeros")),
                (1, 1, 1, 1), "bfloat16"),),
    outputs=(2,),
)

# bfloat16 grid_sample read by rms_norm with a bfloat16 weight: legalized, the kernel's float32
# result meets the weight and rms_norm's type rule refuses them (SimplifyInference, seed 104)
NORMED_BF16 = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 1, 1), "bfloat16", False),
            TensorDecl("p5", (1, 2, 1, 1), "bfloat16", False, -1.2, 1.2),
            TensorDecl("p6", (1,), "bfloat16", False, -2.0, 2.0)),
    nodes=(Node("grid_sample", (0, 1), (("align_corners", False), ("method", "bilinear"), ("padding_mode", "zeros")),
                (1, 1, 1, 1), "bfloat16"),
           Node("rms_norm", (3, 2), (("axes", (3,)), ("epsilon", 1e-05)), (1, 1, 1, 1), "bfloat16")),
    outputs=(4,),
)


def test_float16_kernels_return_float32() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", GRAPH, "test_float16_kernels_return_float32")
    msg = assert_recognised("FoldConstant", "signature_preserved", FOLDED, "test_float16_kernels_return_float32")
    assert 'dtype="float16") became R.Tensor((1, 5, 1, 5), dtype="float32")' in msg
    msg = assert_recognised("FoldConstant", "signature_preserved", FOLDED_BF16, "test_float16_kernels_return_float32")
    assert 'dtype="bfloat16") became R.Tensor((1, 1, 1, 1), dtype="float32")' in msg
    msg = assert_recognised("SimplifyInference", "semantics_preserved", NORMED_BF16, "test_float16_kernels_return_float32")
    assert "weight has dtype T.bfloat16 which is other than the input data's dtype T.float32" in msg


# a bfloat16 grid_sample handed to a public helper typed bfloat16: tvm.compile refuses the float32
# the kernel returns ("Argument 0 type mismatch"; DeadCodeElimination, seed 2612)
INTO_HELPER = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", (1, 1, 1, 1), "bfloat16", False),
                      TensorDecl("p1", (1, 2, 1, 1), "bfloat16", False, lo=-1.2, hi=1.2)),
              nodes=(Node("grid_sample", (0, 1), (("align_corners", False), ("method", "bilinear"),
                                                  ("padding_mode", "zeros")), (1, 1, 1, 1), "bfloat16"),
                     Node("round", (2,), (), (1, 1, 1, 1), "bfloat16")),
              outputs=(3,)),
    regions=(Region(1, 2, "function", name="helper", options=(("private", False),)),),
)


def test_a_helper_typed_bfloat16_refuses_it() -> None:
    message = assert_recognised("DeadCodeElimination", "semantics_preserved", INTO_HELPER,
                                "test_float16_kernels_return_float32")
    assert 'expected R.Tensor((1, 1, 1, 1), dtype="bfloat16"), given R.Tensor((1, 1, 1, 1), dtype="float32")' in message


# float16 attention with an explicit scale, concatenated with a float16 tensor: the concat refuses the
# float32 the kernel returns (ReorderPermuteDimsAfterConcat, seed 2612)
H = "float16"
INTO_CONCAT = GraphSpec(
    inputs=tuple(TensorDecl(f"p{i}", (1, 1, 1, 1), H, False) for i in range(4)),
    nodes=(Node("attention", (0, 1, 2), (("causal_mask", None), ("scale", 0.5)), (1, 1, 1, 1), H),
           Node("concat", (4, 3), (("axis", 0),), (2, 1, 1, 1), H)),
    outputs=(5,),
)


def test_a_concat_with_a_float16_tensor_refuses_it() -> None:
    message = assert_recognised("ReorderPermuteDimsAfterConcat", "semantics_preserved", INTO_CONCAT,
                                "test_float16_kernels_return_float32")
    assert "Concat expects all input tensors to have the same dtype" in message
