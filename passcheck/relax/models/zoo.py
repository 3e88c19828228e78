"""Small real-shaped models built with onnx's helper API (no download): an MLP, CNNs (plain,
residual, depthwise-separable) and a transformer encoder block. Weights come from a fixed
seed, so every build of a model is the same model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

OPSET = 17
ZOO: dict[str, Callable[[], Any]] = {}


def zoo_model(build: Callable[[], Any]) -> Callable[[], Any]:
    """Declare a model of the zoo (its id is ``zoo/<function name>``)."""
    ZOO[build.__name__] = build
    return build


class _Graph:
    """Collects nodes and initializers; ``w`` makes a seeded weight."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.n = 0

    def w(self, *shape: int, scale: float = 0.5, positive: bool = False) -> str:
        from onnx import numpy_helper

        arr = self.rng.uniform(0.5 if positive else -scale, 1.5 if positive else scale, size=shape)
        name = f"w{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(arr.astype(np.float32), name))
        return name

    def const(self, arr: np.ndarray) -> str:
        from onnx import numpy_helper

        name = f"k{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def op(self, op_type: str, inputs: list[str], **attrs: Any) -> str:
        from onnx import helper

        self.n += 1
        out = f"t{self.n}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def model(self, name: str, inputs: dict[str, tuple[int, ...]], output: str) -> Any:
        import onnx
        from onnx import TensorProto, helper

        self.nodes.append(helper.make_node("Identity", [output], ["y"]))
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(s)) for k, s in inputs.items()],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 8
        # the output's type as shape inference finds it (the frontend wants a shape)
        inferred = onnx.shape_inference.infer_shapes(model)
        model.graph.output[0].CopyFrom(inferred.graph.output[0])
        return model


@zoo_model
def mlp() -> Any:
    g = _Graph(1)
    h = g.op("Relu", [g.op("Gemm", ["x", g.w(16, 12), g.w(16)], transB=1)])
    h = g.op("Tanh", [g.op("Gemm", [h, g.w(16, 16), g.w(16)], transB=1)])
    return g.model("mlp", {"x": (4, 12)}, g.op("Softmax", [g.op("Gemm", [h, g.w(10, 16), g.w(10)], transB=1)],
                                                  axis=-1))


@zoo_model
def cnn() -> Any:
    g = _Graph(2)
    h = g.op("Conv", ["x", g.w(8, 3, 3, 3), g.w(8)], pads=[1, 1, 1, 1])
    h = g.op("BatchNormalization", [h, g.w(8, positive=True), g.w(8), g.w(8), g.w(8, positive=True)])
    h = g.op("MaxPool", [g.op("Relu", [h])], kernel_shape=[2, 2], strides=[2, 2])
    h = g.op("Relu", [g.op("Conv", [h, g.w(8, 8, 3, 3, scale=0.2), g.w(8)], pads=[1, 1, 1, 1])])
    h = g.op("Flatten", [g.op("GlobalAveragePool", [h])])
    return g.model("cnn", {"x": (1, 3, 12, 12)}, g.op("Gemm", [h, g.w(5, 8), g.w(5)], transB=1))


@zoo_model
def resblock() -> Any:
    g = _Graph(3)
    h = g.op("Relu", [g.op("Conv", ["x", g.w(4, 4, 3, 3, scale=0.3), g.w(4)], pads=[1, 1, 1, 1])])
    h = g.op("Conv", [h, g.w(4, 4, 3, 3, scale=0.3), g.w(4)], pads=[1, 1, 1, 1])
    h = g.op("Relu", [g.op("Add", [h, "x"])])
    return g.model("resblock", {"x": (2, 4, 8, 8)}, g.op("AveragePool", [h], kernel_shape=[2, 2], strides=[2, 2]))


@zoo_model
def depthwise() -> Any:
    g = _Graph(4)
    h = g.op("Conv", ["x", g.w(6, 1, 3, 3), g.w(6)], group=6, pads=[1, 1, 1, 1], strides=[2, 2])
    h = g.op("Clip", [h, g.const(np.float32(0.0)), g.const(np.float32(6.0))])
    h = g.op("Conv", [h, g.w(12, 6, 1, 1), g.w(12)])
    return g.model("depthwise", {"x": (1, 6, 10, 10)}, g.op("HardSigmoid", [h]))


@zoo_model
def transformer() -> Any:
    """One encoder block: pre-norm multi-head self-attention (2 heads) and a GELU MLP, both residual."""
    g = _Graph(5)
    seq, d, heads = 6, 8, 2

    def ln(x: str) -> str:
        return g.op("LayerNormalization", [x, g.w(d, positive=True), g.w(d)], axis=-1)

    def split_heads(x: str) -> str:
        r = g.op("Reshape", [x, g.const(np.array([1, seq, heads, d // heads], np.int64))])
        return g.op("Transpose", [r], perm=[0, 2, 1, 3])

    h = ln("x")
    q, k, v = (split_heads(g.op("MatMul", [h, g.w(d, d)])) for _ in range(3))
    s = g.op("Div", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                     g.const(np.float32(np.sqrt(d // heads)))])
    a = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
    a = g.op("Reshape", [g.op("Transpose", [a], perm=[0, 2, 1, 3]), g.const(np.array([1, seq, d], np.int64))])
    x1 = g.op("Add", ["x", g.op("MatMul", [a, g.w(d, d)])])
    m = g.op("MatMul", [ln(x1), g.w(d, 16)])
    gelu = g.op("Mul", [g.op("Mul", [m, g.const(np.float32(0.5))]),
                        g.op("Add", [g.const(np.float32(1.0)),
                                     g.op("Erf", [g.op("Div", [m, g.const(np.float32(np.sqrt(2.0)))])])])])
    return g.model("transformer", {"x": (1, seq, d)}, g.op("Add", [x1, g.op("MatMul", [gelu, g.w(16, d)])]))

