"""ONNX models as Relax: import through ``tvm.relax.frontend.onnx``, with the inputs the frontend
needs as constants baked in, and a float64 version of the same model for the reference.

``onnx`` is an optional extra (``pip install "passcheck[onnx]"``); ``require_onnx`` says how to
install it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.core.errors import UsageError

INSTALL = 'pip install "passcheck[onnx]"'


def require_onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise UsageError(f"--seed-model needs the onnx package: {INSTALL} (onnx and onnxruntime)") from None
    return onnx


def is_float(elem_type: int) -> bool:
    from onnx import TensorProto

    return elem_type in (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.BFLOAT16)


def graph_inputs(model: Any) -> list[Any]:
    """The graph inputs that are not initializers (ValueInfoProtos), in order."""
    inits = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def bake(model: Any, values: dict[str, np.ndarray]) -> Any:
    """A copy of ``model`` where each input named in ``values`` is an initializer with that value
    (the frontend needs shapes, axes, indices and the like as constants)."""
    from onnx import ModelProto, numpy_helper

    out = ModelProto()
    out.CopyFrom(model)
    for vi in list(out.graph.input):
        if vi.name in values:
            out.graph.initializer.append(numpy_helper.from_array(np.asarray(values[vi.name]), vi.name))
            out.graph.input.remove(vi)
    return out


def import_relax(model: Any) -> Any:
    from tvm.relax.frontend.onnx import from_onnx

    return from_onnx(model)


def widen(model: Any) -> Any:
    """The same model computing in float64: every float tensor type, initializer, constant and
    cast target widened (float16, bfloat16 and float32 alike), so it computes the same function
    with (almost) no rounding."""
    from onnx import AttributeProto, ModelProto, TensorProto, numpy_helper

    out = ModelProto()
    out.CopyFrom(model)
    narrow = (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16)

    def widen_tensor(t: Any) -> Any:
        if t.data_type not in narrow:
            return t
        arr = numpy_helper.to_array(t).astype(np.float64)
        return numpy_helper.from_array(arr, t.name)

    g = out.graph
    for i, t in enumerate(list(g.initializer)):
        g.initializer[i].CopyFrom(widen_tensor(t))
    for vi in (*g.input, *g.output, *g.value_info):
        tt = vi.type.tensor_type
        if tt.elem_type in narrow:
            tt.elem_type = TensorProto.DOUBLE
    for node in g.node:
        for a in node.attribute:
            if a.type == AttributeProto.TENSOR:
                a.t.CopyFrom(widen_tensor(a.t))
            elif a.name == "to" and a.type == AttributeProto.INT and a.i in narrow:
                a.i = TensorProto.DOUBLE
    return out
