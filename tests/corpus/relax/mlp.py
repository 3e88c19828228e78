"""A small MLP block with a symbolic batch, as a Python file defining ``mod``."""

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class mod:
    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), w: R.Tensor((8, 4), "float32"),
             b: R.Tensor((4,), "float32")) -> R.Tensor(("n", 4), "float32"):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.nn.relu(R.add(y, b))
            s = R.subtract(z, R.const(0.5, "float32"))
            R.output(s)
        return s
