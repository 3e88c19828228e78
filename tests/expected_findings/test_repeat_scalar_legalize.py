"""TVM 0.27 bug: ``repeat`` of a 0-d tensor fails to legalize.

``R.repeat(x, 2, axis=None)`` on a scalar (0-d) tensor is accepted by Relax's type rule, which
infers the shape (2,) (NumPy's ``np.repeat(x, 2)`` flattens the scalar and gives two copies).
LegalizeOps then fails: ``IndexError: Index out of range. size: 0, got index 0`` (the TOPI
lowering reads the first axis of a rank-0 shape). With a rank-1 operand it works. Found by the
vocabulary tests (``passcheck pipeline``: ``every_build_runs``).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(), dtype="float32", const=False),),
    nodes=(Node(op="repeat", args=(0,), attrs=(("axis", None), ("repeats", 2)), shape=(2,), dtype="float32"),),
    outputs=(1,),
)
EXAMPLE = PipelineBuilds(GRAPH, (Build("default", 0, "generic"),))


def _module(shape: tuple[int, ...]):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.repeat(x, 2, None))
        bb.emit_func_output(out)
    return bb.get()


def test_repeat_of_a_scalar_still_fails_to_legalize() -> None:
    from tvm import relax

    mod = _module(())
    assert relax.analysis.check_well_formed(mod)
    assert [int(d) for d in mod["main"].ret_ty.shape.values] == [2]
    with pytest.raises(IndexError, match="Index out of range"):
        relax.transform.LegalizeOps()(mod)
    relax.transform.LegalizeOps()(_module((1,)))


def test_passcheck_reports_it() -> None:
    assert recheck("pipeline", "every_build_runs", EXAMPLE) == 1


def test_repeat_scalar_legalize() -> None:
    assert_recognised("pipeline", "every_build_runs", EXAMPLE, "test_repeat_scalar_legalize")
