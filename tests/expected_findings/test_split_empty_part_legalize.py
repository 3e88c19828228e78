"""TVM 0.27 bug: a ``split`` that Relax types with an empty part fails to legalize.

``R.split(x, [0])`` on a (4,) tensor is accepted by Relax's type rule, which infers the parts
(0,) and (4,) (NumPy's ``np.split`` gives the same); so are sorted indices that repeat
(``[2, 2]``: parts 2, 0, 2). LegalizeOps then fails in TOPI's split: ``InternalError:
split_indices must be sorted`` (TOPI wants strictly increasing, positive indices). An index
past the end (``[5]`` on 4 elements), typed as the parts (4,) and (0,), makes the build die
with ``std::bad_alloc``. The op's documentation asks only for sorted indices, so the IR is
valid and the lowering is wrong. Found by the vocabulary's split (``passcheck pipeline``:
``every_build_runs``; FoldConstant raises on it too).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _graph(sections: tuple[int, ...], parts: tuple[tuple[int, ...], ...]) -> GraphSpec:
    return GraphSpec(
        inputs=(TensorDecl(name="p0", shape=(4,), dtype="float32", const=False),),
        nodes=(Node(op="split", args=(0,), attrs=(("axis", 0), ("sections", sections)), shape=(), dtype="float32",
                    parts=parts),
               Node(op="tuple_get_item", args=(1,), attrs=(("index", 0),), shape=parts[0], dtype="float32")),
        outputs=(2,),
    )


GRAPH = _graph((0,), ((0,), (4,)))
EXAMPLE = PipelineBuilds(GRAPH, (Build("default", 0, "generic"),))


def _build(sections: list[int]):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((4,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(R.split(x, sections))[1])
        bb.emit_func_output(out)
    return bb.get()


def test_split_empty_part_still_fails_to_legalize() -> None:
    import tvm
    from tvm import relax

    from passcheck.relax.execution import run_relax

    for sections in ([0], [2, 2]):
        mod = _build(sections)
        assert relax.analysis.check_well_formed(mod)
        with pytest.raises(tvm.error.InternalError, match="split_indices must be sorted"):
            relax.transform.LegalizeOps()(mod)
    # the same split without an empty part lowers and runs
    np.testing.assert_array_equal(run_relax(_build([1, 3]), [np.arange(4, dtype="float32")])[0], [1, 2])


def test_passcheck_reports_it() -> None:
    assert recheck("pipeline", "every_build_runs", EXAMPLE) == 1
    assert recheck("FoldConstant", "pass_does_not_raise", GRAPH) == 1


def test_split_empty_part_legalize() -> None:
    assert_recognised("pipeline", "every_build_runs", EXAMPLE, "test_split_empty_part_legalize")
    assert_recognised("FoldConstant", "pass_does_not_raise", GRAPH, "test_split_empty_part_legalize")
