"""TVM 0.27 bug: ``nn.pixel_shuffle`` cannot be legalized at all.

``R.nn.pixel_shuffle(x, 2)`` on a (1, 4, 2, 2) tensor is well-typed ((1, 1, 4, 4)), but its
LegalizeOps rule calls ``topi.nn.pixel_shuffle``, which the 0.27 wheel does not have:
``AttributeError: module 'tvm.topi.nn' has no attribute 'pixel_shuffle'``. Every module with
the op fails to build. Found by the vocabulary's pixel_shuffle (``passcheck pipeline``:
``every_build_runs``).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(1, 4, 2, 2), dtype="float32", const=False),),
    nodes=(Node(op="nn.pixel_shuffle", args=(0,), attrs=(("upscale_factor", 2),), shape=(1, 1, 4, 4),
                dtype="float32"),),
    outputs=(1,),
)
EXAMPLE = PipelineBuilds(GRAPH, (Build("default", 0, "generic"),))


def test_pixel_shuffle_still_fails_to_legalize() -> None:
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 4, 2, 2), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.pixel_shuffle(x, 2))
        bb.emit_func_output(out)
    mod = bb.get()
    assert relax.analysis.check_well_formed(mod)
    with pytest.raises(AttributeError, match="pixel_shuffle"):
        relax.transform.LegalizeOps()(mod)


def test_passcheck_reports_it() -> None:
    assert recheck("pipeline", "every_build_runs", EXAMPLE) == 1


def test_pixel_shuffle_legalize() -> None:
    assert_recognised("pipeline", "every_build_runs", EXAMPLE, "test_pixel_shuffle_legalize")
