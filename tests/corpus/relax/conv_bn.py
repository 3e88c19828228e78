"""conv2d + inference batch_norm + pooling (NCHW), as a Python file defining ``before``."""

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class before:
    @R.function
    def main(x: R.Tensor((1, 3, 9, 9), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
             g: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32"), m: R.Tensor((4,), "float32"),
             v: R.Tensor((4,), "float32")) -> R.Tensor((1, 4, 3, 3), "float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=(1, 1))
            bn = R.nn.batch_norm(c, g, b, m, R.exp(v), axis=1, training=False)
            r = R.nn.relu(bn[0])
            p = R.nn.max_pool2d(r, pool_size=(3, 3), strides=(3, 3))
            R.output(p)
        return p
