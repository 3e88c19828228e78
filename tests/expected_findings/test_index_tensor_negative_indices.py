"""TVM 0.27 bug: ``index_tensor`` reads out of bounds on negative indices.

``relax.op.index_tensor`` is documented as NumPy/PyTorch advanced indexing ("selects elements
from ``data`` as if one had written ``data[I0, I1, ...]`` in NumPy"), where ``-1`` is the last
element. The legalized kernel uses the index as is: ``x[[-1, 2]]`` on a (3, 4) tensor returns
garbage (memory before the buffer) for the first row, with no error. Non-negative indices are
right. Found by ``passcheck FuseOps`` (``semantics_preserved``: the unfused module already
disagrees with the float64 reference, which follows the documented semantics).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(3, 4), dtype="float32", const=False, lo=1.0, hi=2.0),
            TensorDecl(name="c1", shape=(2,), dtype="int64", const=True, lo=-3.0, hi=-1.0, seed=1)),
    nodes=(Node(op="index_tensor", args=(0, 1), attrs=(), shape=(2, 4), dtype="float32"),),
    outputs=(2,),
)


def _run(indices: list[int]) -> np.ndarray:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((3, 4), "float32"))
    i = relax.Var("i", relax.TensorType((len(indices),), "int64"))
    with bb.function("main", [x, i]):
        with bb.dataflow():
            out = bb.emit_output(R.index_tensor(x, [i]))
        bb.emit_func_output(out)
    data = np.arange(12, dtype="float32").reshape(3, 4) + 1
    return run_relax(bb.get(), [data, np.array(indices, dtype="int64")])[0]


def test_index_tensor_negative_still_wrong() -> None:
    data = np.arange(12, dtype="float32").reshape(3, 4) + 1
    np.testing.assert_array_equal(_run([0, 2]), data[[0, 2]])  # non-negative: right
    assert not np.array_equal(_run([-1, 2]), data[[-1, 2]])  # the documented NumPy meaning: wrong


def test_passcheck_reports_it() -> None:
    assert recheck("FuseOps", "semantics_preserved", GRAPH) == 1


def test_index_tensor_negative_indices() -> None:
    assert_recognised("FuseOps", "semantics_preserved", GRAPH, "test_index_tensor_negative_indices")


def test_fusion_meets_it_as_a_fused_unfused_difference() -> None:
    """`passcheck FuseOps --examples 2000` (seed 0) met it as matches_unfused_bitwise: the fused and
    the unfused kernel read different memory before the buffer (-9.3e23 against -0.536). That
    run's words are checked against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.build import build_module

    graph = GraphSpec(
        inputs=(TensorDecl("p0", (2, 2, 1), "float32", False),
                TensorDecl("c1", (2,), "int64", True, -2.0, 1.0, seed=4),
                TensorDecl("p2", (2, 2, 1), "float32", False)),
        nodes=(Node("index_tensor", (0, 1), (), (2, 2, 1), "float32"),
               Node("add", (3, 2), (), (2, 2, 1), "float32")),
        outputs=(4,), tensor_inputs=True)
    message = ("output 0 differs from the unfused module at [1, 0, 0]: fused np.float32(-9.3221774e+23) vs "
               "unfused np.float32(-0.5361302) (1 elements)")
    bug = recognise(resolve("FuseOps"), "matches_unfused_bitwise", message, build_module(graph).script())
    assert bug is not None and bug.name == "test_index_tensor_negative_indices"


def test_a_poisoned_memory_plan_meets_it() -> None:
    """StaticPlanBlockMemory's planned_storage_poisoned met it (seed 20670: 13 of 500 examples, the
    same 13 semantics_preserved failed on): the kernel reads before its buffer whatever the storage
    holds. That run's words are checked against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.build import build_module

    message = ("with its 2 planned storage(s) poisoned before use: output 0[0, 0]: got 0.0, reference "
               "-2.0530253941181935 (|diff| 2.05 > allowed 5.58e-06); 1 of 1 elements differ")
    bug = recognise(resolve("StaticPlanBlockMemory"), "planned_storage_poisoned", message, build_module(GRAPH).script())
    assert bug is not None and bug.name == "test_index_tensor_negative_indices"


def test_a_lifted_weight_beside_it_meets_it() -> None:
    """LazyTransformParams' lifted_params_agree met it (seed 12305: 2 of 500 examples, main reading
    index_tensor with negative indices beside a lifted weight). That run's words are checked
    against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.build import build_module

    message = ("main(inputs, main_transform_params(weights)) differs from main(inputs, weights): output 1[1, 0]: "
               "got 4.756450653076172, reference 5.529357771102188 (|diff| 0.773 > allowed 2.34e-05); 2 of 3 "
               "elements differ")
    bug = recognise(resolve("LazyTransformParams"), "lifted_params_agree", message, build_module(GRAPH).script())
    assert bug is not None and bug.name == "test_index_tensor_negative_indices"


def test_a_public_helper_reading_it_meets_it() -> None:
    """DeadCodeElimination's functions_agree met it (seed 1207: 2 of 2,000 examples, a public helper
    reading index_tensor with index -5): the helper's two runs read different memory. That run's
    words are checked against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve
    from passcheck.relax.build import build_module

    bug = recognise(resolve("DeadCodeElimination"), "functions_agree", "helper computes something else after the pass",
                    build_module(GRAPH).script())
    assert bug is not None and bug.name == "test_index_tensor_negative_indices"
