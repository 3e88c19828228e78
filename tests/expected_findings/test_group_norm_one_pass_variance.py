"""TVM 0.27 bug: ``group_norm`` and ``instance_norm`` lose all accuracy (or return NaN) on data
whose mean is large against its spread.

Their legalized kernels compute the variance in one pass, ``E[x^2] - E[x]^2`` in float32: for
data like ``100 + 0.01 u`` the two terms agree to about 8 digits and their difference is
rounding noise, possibly negative (then ``rsqrt`` gives NaN). TVM's own ``layer_norm`` kernel
computes the mean first and then the variance of the deviations, and is accurate on the same
data (group_norm with one group over (C, W) is exactly layer_norm over those axes). PyTorch
uses Welford's algorithm. Found by passcheck's op vocabulary (``semantics_preserved``: wrong
numbers against the float64 reference, on the generator's near-constant "narrow" inputs).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised
from nn_repro import compile_and_run

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (2, 4, 8), "float32", False, -100.0, 100.0, "narrow", 3),
            TensorDecl("p1", (4,), "float32", False, 0.5, 1.5), TensorDecl("p2", (4,), "float32", False)),
    nodes=(Node("group_norm", (0, 1, 2), (("axes", (2,)), ("channel_axis", 1), ("epsilon", 1e-5),
                                          ("num_groups", 2)), (2, 4, 8), "float32"),),
    outputs=(3,),
)


def test_one_pass_variance_is_still_inaccurate() -> None:
    from tvm.relax import op as R

    rng = np.random.default_rng(0)
    x = (100.0 + 0.01 * rng.uniform(-1, 1, (2, 4, 8))).astype("float32")
    x64 = x.astype(np.float64)
    ones, zeros = np.ones(4, "float32"), np.zeros(4, "float32")
    want = (x64 - x64.mean(axis=(1, 2), keepdims=True)) / np.sqrt(x64.var(axis=(1, 2), keepdims=True) + 1e-5)
    group = compile_and_run(lambda a, g, b: R.nn.group_norm(a, g, b, 1, 1, [2]), [x, ones, zeros])
    layer = compile_and_run(lambda a, g, b: R.nn.layer_norm(a, g, b, axes=[1, 2]),
                            [x, np.ones((4, 8), "float32"), np.zeros((4, 8), "float32")])
    assert np.abs(layer - want).max() < 0.01  # two passes: accurate to the data's own rounding
    assert np.abs(group - want).max() > 0.3  # one pass: the variance is noise
    inst = compile_and_run(lambda a, g, b: R.nn.instance_norm(a, g, b, channel_axis=1, axes=[2]), [x, ones, zeros])
    inst_want = (x64 - x64.mean(axis=2, keepdims=True)) / np.sqrt(x64.var(axis=2, keepdims=True) + 1e-5)
    assert not np.allclose(inst, inst_want, atol=0.1, equal_nan=False)


def test_passcheck_reports_it() -> None:
    assert recheck("SimplifyInference", "semantics_preserved", GRAPH) == 1


def test_group_norm_one_pass_variance() -> None:
    assert_recognised("SimplifyInference", "semantics_preserved", GRAPH, "test_group_norm_one_pass_variance")


def test_the_lifted_module_meets_it() -> None:
    """lifted_params_agree compares the lifted module with the float64 reference too (LiftTransformParams
    and LazyTransformParams, seed 1207: 3 of 2,000, an instance_norm of a weight). That run's words
    are checked against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.build import build_module

    message = ("main(inputs, main_transform_params(weights)) differs from main(inputs, weights): output 0[0, 2]: "
               "got 2.433133363723755, reference 2.4288897344342715 (|diff| 0.00424 > allowed 0.0017); 22 of 64 "
               "elements differ")
    bug = recognise(resolve("LiftTransformParams"), "lifted_params_agree", message, build_module(GRAPH).script())
    assert bug is not None and bug.name == "test_group_norm_one_pass_variance"


# the same inaccuracy seen by StaticPlanBlockMemory's poisoned-storage run of a narrow group_norm
# (seed 2612): its message names the poisoned storage, not "wrong numbers"
PLANNED = ProgramSpec(GraphSpec(
    inputs=(TensorDecl("p0", (2, 1, 2), "float32", False, style="narrow"),
            TensorDecl("p1", (2,), "float32", False, lo=-2.0, hi=2.0), TensorDecl("p2", (2,), "float32", False)),
    nodes=(Node("group_norm", (0, 1, 2), (("axes", (1,)), ("channel_axis", 2), ("epsilon", 1e-05), ("num_groups", 1)),
                (2, 1, 2), "float32"),
           Node("abs", (3,), (), (2, 1, 2), "float32")),
    outputs=(4,), input_seed=2))


def test_the_poisoned_plan_meets_it() -> None:
    message = assert_recognised("StaticPlanBlockMemory", "planned_storage_poisoned", PLANNED,
                                "test_group_norm_one_pass_variance")
    assert "planned storage(s) poisoned before use" in message
