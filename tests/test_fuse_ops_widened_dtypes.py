"""FuseOps and bfloat16: TVM computes a kernel's own bfloat16 buffers in float32
(BF16ComputeLegalize) and rounds only at the kernel's parameters. Fusing gelu into add removes
the bfloat16 store between them, so the fused result may differ from the unfused one by design
(found by the 2,000-example FuseOps campaign, seed 2026: 0.949219 vs 0.945312, one bfloat16 ulp).
matches_unfused_bitwise does not claim bits there; it still does everywhere else."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import tvm
from tvm import tirx

from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import plan
from passcheck.core.engine.results import RunConfig
from passcheck.core.outcome import Verdict
from passcheck.core.subject import Options
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")

SOURCE = '''
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def f(a: T.Buffer((T.int64(1),), "bfloat16"), out: T.Buffer((T.int64(1),), "bfloat16")):
        T.func_attr({"global_symbol": "f", "tirx.noalias": True})
        t = T.sblock_alloc_buffer((T.int64(1),), "bfloat16")
        for i in range(T.int64(1)):
            with T.sblock("t"):
                v = T.axis.spatial(T.int64(1), i)
                t[v] = a[v] * T.bfloat16(0.70710678118654757)
        for i in range(T.int64(1)):
            with T.sblock("out"):
                v = T.axis.spatial(T.int64(1), i)
                out[v] = t[v] + a[v]
'''


def _graph(dtype: str, nodes: tuple[Node, ...], n: int = 1) -> GraphSpec:
    decl = TensorDecl(name="p0", shape=(n,), dtype=dtype, const=False, lo=-1.0, hi=1.0, style="uniform", seed=0)
    return GraphSpec(inputs=(decl, dataclasses.replace(decl, name="p1")), nodes=nodes,
                     outputs=(len(nodes) + 1,), sym_sizes=())


def gelu_add(dtype: str, n: int = 1) -> GraphSpec:
    return _graph(dtype, (Node("gelu", (0,), (), (n,), dtype), Node("add", (2, 1), (), (n,), dtype)), n)


def _outcomes(example: GraphSpec, *props: str, impl: str | None = None) -> dict:
    config = RunConfig(subject="FuseOps", ir="relax", properties=props, timeout=300, impl=impl,
                       options=Options(impl=impl))
    with Evaluator(plan(config)) as evaluate:
        res = evaluate(example)
    assert res.rejected is None
    return res.outcomes


def test_tvm_computes_a_kernels_own_bfloat16_buffers_in_float32() -> None:
    """The mechanism, so a TVM that changes it shows here: the internal buffer becomes float32,
    the parameters stay bfloat16."""
    lowered = tvm.script.from_source(SOURCE)
    for name in ("ConvertBlocksToOpaque", "CompactBufferAllocation", "LowerOpaqueBlock", "FlattenBuffer"):
        ns = tvm.s_tir.transform if hasattr(tvm.s_tir.transform, name) else tirx.transform
        lowered = getattr(ns, name)()(lowered)
    text = tirx.transform.BF16ComputeLegalize()(lowered).script()
    assert 'a: T.Buffer((T.int64(1),), "bfloat16")' in text
    assert "t = T.alloc_buffer((T.int64(1),)," in text and '"bfloat16"' not in text.split("t = T.alloc_buffer")[1].split("\n")[0]


def test_bitwise_is_not_claimed_across_a_bfloat16_kernel_boundary() -> None:
    out = _outcomes(gelu_add("bfloat16"), "matches_unfused_bitwise", "semantics_preserved")
    assert out["matches_unfused_bitwise"].verdict == Verdict.DISCARDED
    assert "float32 inside one" in out["matches_unfused_bitwise"].message
    assert out["semantics_preserved"].verdict == Verdict.HELD  # the float64 reference still checks it


def test_bitwise_is_still_claimed_for_float32_and_for_a_single_bfloat16_kernel() -> None:
    assert _outcomes(gelu_add("float32"), "matches_unfused_bitwise")["matches_unfused_bitwise"].verdict == Verdict.HELD
    single = _graph("bfloat16", (Node("gelu", (0,), (), (1,), "bfloat16"),))
    assert _outcomes(single, "matches_unfused_bitwise")["matches_unfused_bitwise"].verdict == Verdict.HELD


def test_a_fusion_that_changes_bfloat16_numbers_is_still_caught() -> None:
    """Without the bitwise claim, semantics_preserved still catches a planted fusion bug in a
    bfloat16 graph (tests/test_buggy_passes.py plants it in float32 ones)."""
    # four elements: the planted bug zeroes the first of the last axis when there are two or more
    out = _outcomes(gelu_add("bfloat16", 4), "matches_unfused_bitwise", "semantics_preserved",
                    impl=f"{BUGGY}:fuse_ops_drops_channel")
    assert out["semantics_preserved"].verdict == Verdict.VIOLATION, out["semantics_preserved"]


def test_widened_intermediates_names_the_kernel_outputs_read_by_another_kernel() -> None:
    from passcheck.properties.fuse_ops import widened_intermediates

    from passcheck.relax.build import build_module

    def legalized(spec: GraphSpec):  # noqa: ANN202
        with tvm.transform.PassContext(opt_level=3):
            return tvm.relax.transform.LegalizeOps()(build_module(spec))["main"]

    assert len(widened_intermediates(legalized(gelu_add("bfloat16")))) == 1
    assert widened_intermediates(legalized(gelu_add("float32"))) == []
    assert widened_intermediates(legalized(_graph("bfloat16", (Node("gelu", (0,), (), (1,), "bfloat16"),)))) == []
