"""TVM 0.27 bugs: ConvertLayout on a ``dynamic_strided_slice`` of a converted conv2d's output.

* ``match_cast`` applied to the slice's call itself (``y = R.match_cast(R.dynamic_strided_slice(c,
  b, e, s), ty)``, as frontends write it): ``InternalError: ... Cannot convert when exactly one of
  the layouts is unknown``. The same program with the call bound first and then cast converts.
  passcheck's graph builder used to bind the call first to steer around this ("a match_cast of the
  call itself makes ConvertLayout raise"); both forms are drawn now (``GraphSpec.cast_calls``).
* with begin/end/strides a constant the converted layout reorders: ConvertLayout hands the slice
  int32 index tensors, and its type check refuses them (``Dynamic strided_slice expects the input
  beginvalues to be all int64``), whichever form the cast takes.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.relax.spec import GraphSpec, Node, TensorDecl

LAYOUTS = (("relax.nn.conv2d", ("NHWC", "OHWI")),)
# conv2d of (8, 4, 3, 3) data, then a dynamic_strided_slice of its (8, 4, 1, 1) output
GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (8, 4, 3, 3), "float32", False), TensorDecl("p1", (4, 4, 3, 3), "float32", False),
            TensorDecl("c2", (4,), "int64", True, -9.0, 9.0, "narrow", 308),
            TensorDecl("c3", (4,), "int64", True, -9.0, 9.0, "narrow", 23606),
            TensorDecl("c4", (4,), "int64", True, -2.0, -1.0, "narrow", 523)),
    nodes=(Node("conv2d", (0, 1), (("dilation", (1, 1)), ("groups", 1), ("padding", (0, 0, 0, 0)), ("strides", (1, 1))),
                (8, 4, 1, 1), "float32"),
           Node("dynamic_strided_slice", (5, 2, 3, 4), (), (1, 0, 0, 0), "float32")),
    outputs=(6,), extra=(("desired_layouts", LAYOUTS),), tensor_inputs=True, cast_calls=True)


def _slice_module(cast_call: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1, 4, 4, 4), "float32"))
    w = relax.Var("w", relax.TensorType((4, 4, 1, 1), "float32"))
    b, e, s = (relax.const(np.array(v, "int64")) for v in ([0, 0, 0, 0], [1, 4, 2, 4], [1, 1, 1, 1]))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            c = bb.emit(R.nn.conv2d(x, w))
            call = R.dynamic_strided_slice(c, b, e, s)
            y = bb.match_cast(call if cast_call else bb.emit(call), relax.TensorType((1, 4, 2, 4), "float32"))
            out = bb.emit_output(R.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def test_a_match_cast_of_the_call_makes_convert_layout_raise() -> None:
    import tvm
    from tvm import relax

    from passcheck.relax.build import build_module

    convert = relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})
    with pytest.raises(tvm.error.InternalError, match="exactly one of the layouts is unknown"):
        convert(build_module(GRAPH))
    assert "dynamic_strided_slice" in convert(build_module(replace(GRAPH, cast_calls=False))).script()


@pytest.mark.parametrize("cast_call", [False, True])
def test_int64_index_tensors_become_int32(cast_call: bool) -> None:
    import tvm
    from tvm import relax

    with pytest.raises(tvm.error.InternalError, match="expects the input beginvalues to be all int64"):
        relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(_slice_module(cast_call))


def test_passcheck_recognises_it() -> None:
    assert_recognised("AlterOpLayout", "pass_does_not_raise", GRAPH, "test_convert_layout_match_cast_of_a_call")
