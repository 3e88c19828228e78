"""TVM 0.27 bug: ToMixedPrecision drops the bias of ``nn.attention_bias``.

Converting ``R.nn.attention_bias(q, k, v, bias)`` to float16, ToMixedPrecision casts all four
operands and emits ``R.nn.attention(q16, k16, v16)``: the bias is cast and never read. The result
is attention without the additive bias: wrong numbers, far beyond float16 rounding (|diff| 0.0645
against an allowed 0.0151 derived for float16). Found by its campaign once its graphs drew float32
matmuls and conv2ds (seed 23497: 7 of 500 examples).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

F = "float32"
GRAPH = GraphSpec(
    inputs=(TensorDecl("q", (1, 2, 1, 4), F, False), TensorDecl("k", (1, 3, 1, 4), F, False),
            TensorDecl("v", (1, 3, 1, 4), F, False), TensorDecl("b", (1, 1, 2, 3), F, False, lo=2.0, hi=4.0)),
    nodes=(Node("attention_bias", (0, 1, 2, 3), (("causal_mask", None), ("scale", None)), (1, 2, 1, 4), F),),
    outputs=(4,),
)


def test_to_mixed_precision_still_drops_the_bias() -> None:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    q, k, v = (relax.Var(n, relax.TensorType(s, F)) for n, s in (("q", (1, 2, 1, 4)), ("k", (1, 3, 1, 4)),
                                                                 ("v", (1, 3, 1, 4))))
    b = relax.Var("b", relax.TensorType((1, 1, 2, 3), F))
    bb = relax.BlockBuilder()
    with bb.function("main", [q, k, v, b]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.attention(q, k, v, bias=b))
        bb.emit_func_output(out)
    mod = bb.get()
    after = relax.transform.ToMixedPrecision()(mod)
    assert "attention_bias" in mod.script() and "attention_bias" not in after.script()
    rng = np.random.default_rng(0)
    args = [rng.uniform(-1, 1, [int(d) for d in p.ty.shape]).astype(F) for p in mod["main"].params]
    args[3] = args[3] * 8  # a bias that moves the softmax
    assert np.abs(run_relax(mod, args)[0] - run_relax(after, args)[0]).max() > 0.1


def test_passcheck_reports_it() -> None:
    assert recheck("ToMixedPrecision", "semantics_preserved", GRAPH) == 1


def test_to_mixed_precision_attention_bias() -> None:
    assert_recognised("ToMixedPrecision", "semantics_preserved", GRAPH, "test_to_mixed_precision_attention_bias")
