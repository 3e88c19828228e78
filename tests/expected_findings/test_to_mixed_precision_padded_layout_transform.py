"""TVM 0.27 bug: ToMixedPrecision leaves a padded ``layout_transform``'s pad value in float32.

A float32 ``conv2d`` is computed in float16, and so is the ``layout_transform`` that follows it
(its policy follows its input): the pass casts the input to float16 and keeps the op's attributes,
whose ``pad_value`` is still a ``T.float32``. Re-inferring the call's type then refuses it
("layout_transform pad_value dtype (T.float32) and input dtype (T.float16) must be the same") and
the pass raises on a valid module. Without a pad value the same program converts. Found by its
campaign (seed 12305: 7 of 500 examples).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

F = "float32"
GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 1, 3), F, False), TensorDecl("c1", (1, 1, 1, 1), F, True)),
    nodes=(Node("conv2d", (0, 1), (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)), ("strides", (1, 1))),
                (1, 1, 1, 3), F),
           Node("layout_transform", (2,), (("factor", 2), ("pad_value", 0.0), ("perm", None)), (1, 1, 1, 2, 2), F)),
    outputs=(3,),
)


def _module(pad: float | None):  # type: ignore[no-untyped-def]
    from tvm import relax
    from tvm.relax import op as R
    from tvm.tirx import IndexMap

    x = relax.Var("x", relax.TensorType((1, 2, 4, 5), F))
    w = relax.Var("w", relax.TensorType((2, 2, 1, 1), F))
    split = IndexMap.from_func(lambda n, c, h, v: (n, c, h, v // 2, v % 2), ndim=4)
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(R.nn.conv2d(x, w))
            out = bb.emit_output(R.layout_transform(y, split, pad_value=pad))
        bb.emit_func_output(out)
    return bb.get()


def test_to_mixed_precision_still_keeps_the_float32_pad_value() -> None:
    from tvm import relax

    relax.transform.ToMixedPrecision()(_module(None))  # (5 is split by 2: TVM pads with its default)
    with pytest.raises(TypeError, match=r"pad_value dtype \(T\.float32\) and input dtype \(T\.float16\)"):
        relax.transform.ToMixedPrecision()(_module(0.0))


def test_passcheck_reports_it() -> None:
    assert recheck("ToMixedPrecision", "pass_does_not_raise", GRAPH) == 1


def test_to_mixed_precision_padded_layout_transform() -> None:
    assert_recognised("ToMixedPrecision", "pass_does_not_raise", GRAPH, "test_to_mixed_precision_padded_layout_transform")
