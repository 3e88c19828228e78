"""TVM 0.27 bug: FastMathTransform's fast_exp returns 0 where exp is subnormal.

``R.nn.softmax([2.364325, 90.09274])`` is ``[7.94e-39, 1.0]``: the first value is a float32
subnormal, and TVM's own softmax kernel returns it. FastMathTransform rewrites softmax (and exp)
into fast_exp, which builds ``2^n`` from the exponent bits of ``n + 127``: at ``n = -127`` those are
0 and the result is 0. A consumer that magnifies small values makes it visible: ``sqrt`` of the
softmax is 8.9e-20 against 0. Found by FastMathTransform's campaign (seed 2612).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (2,), "float32", False, lo=-100.0, hi=100.0),),
    nodes=(Node("softmax", (0,), (("axis", 0),), (2,), "float32"), Node("sqrt", (1,), (), (2,), "float32")),
    outputs=(2,), input_seed=1,
)


def test_fast_softmax_flushes_the_subnormal() -> None:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    x = relax.Var("x", relax.TensorType((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.softmax(x, axis=0))
        bb.emit_func_output(out)
    mod = bb.get()
    arg = tvm.runtime.tensor(np.array([2.364325, 90.09274], "float32"))

    def run(m):  # noqa: ANN001, ANN202
        return relax.VirtualMachine(tvm.compile(m, target="llvm"), tvm.cpu())["main"](arg).numpy()

    assert 7e-39 < run(mod)[0] < 9e-39  # the subnormal value
    assert run(relax.transform.FastMathTransform()(mod))[0] == 0.0


def test_passcheck_reports_it() -> None:
    assert recheck("FastMathTransform", "semantics_preserved", EXAMPLE) == 1


def test_fast_exp_flushes_subnormals() -> None:
    assert_recognised("FastMathTransform", "semantics_preserved", EXAMPLE, "test_fast_exp_flushes_subnormals")
