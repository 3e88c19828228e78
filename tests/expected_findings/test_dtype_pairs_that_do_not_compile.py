"""TVM 0.27 bugs: op/dtype pairs that Relax's type inference accepts but that do not compile.

Each of these builds a well-typed Relax module that fails in legalization or codegen for
``llvm`` (measured one by one, below):

* bfloat16 ``mod`` ("dtype mismatch on BufferStore: buffer's dtype is T.uint16"; floor_mod
  compiles), ``log_add_exp`` and ``power`` (the TIR checks ``IsFloatType``, which does not
  count bfloat16), ``isnan``/``isinf``/``isfinite`` ("Data type T.bfloat16 not supported");
* bool comparisons (``equal``/``not_equal``: LLVM rejects an ``fcmp`` on ``i1``; ``less``,
  ``greater``, ...: "MatchesCode(kDLFloat)") and bool ``clip``;
* uint8 ``negative`` and ``sign`` ("cannot make uint from negative value -1": the legalization
  builds the constant -1 in the operand's unsigned type).

The vocabulary draws every one of these pairs (none is steered around); the registry recognises
the failure under any pass. Found by the vocabulary's dtype checks (issue 9).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

BFLOAT16 = [("mod", 2), ("log_add_exp", 2), ("power", 2), ("isnan", 1), ("isinf", 1), ("isfinite", 1)]
BOOL = [("equal", 2), ("not_equal", 2), ("greater", 2), ("less", 2), ("greater_equal", 2), ("less_equal", 2),
        ("clip", 1)]
UINT8 = [("negative", 1), ("sign", 1)]
PAIRS = ([(op, n, "bfloat16", "test_bfloat16_ops_do_not_compile") for op, n in BFLOAT16]
         + [(op, n, "bool", "test_bool_ops_do_not_compile") for op, n in BOOL]
         + [(op, n, "uint8", "test_uint8_negation_does_not_compile") for op, n in UINT8])


def _example(op: str, n: int, dtype: str) -> PipelineBuilds:
    lo, hi = (0.0, 1.0) if dtype == "bool" else (1.0, 7.0) if dtype == "uint8" else (0.5, 2.0)
    out = "bool" if op.startswith("is") or op in dict(BOOL) and op != "clip" else dtype
    attrs = (("max", 1), ("min", 0)) if op == "clip" else ()
    graph = GraphSpec(
        inputs=tuple(TensorDecl(f"p{i}", (3,), dtype, False, lo, hi) for i in range(n)),
        nodes=(Node(op, tuple(range(n)), attrs, (3,), out),),
        outputs=(n,),
    )
    return PipelineBuilds(graph, (Build("default", 0, "generic"),))


@pytest.mark.parametrize("op,n,dtype,bug", PAIRS)
def test_pair_still_fails_and_is_recognised(op: str, n: int, dtype: str, bug: str) -> None:
    example = _example(op, n, dtype)
    assert recheck("pipeline", "every_build_runs", example) == 1
    assert_recognised("pipeline", "every_build_runs", example, bug)


# FuseOps checks a legalized module: the op appears as its PrimFunc (found by the 2,000-example
# FuseOps campaign, seed 2026: greater of bool tensors)
@pytest.mark.parametrize("op,n,dtype,bug", [PAIRS[0], next(p for p in PAIRS if p[0] == "greater")])
def test_recognised_under_fuse_ops_too(op: str, n: int, dtype: str, bug: str) -> None:
    graph = _example(op, n, dtype).graph
    assert recheck("FuseOps", "semantics_preserved", graph) == 1
    assert_recognised("FuseOps", "semantics_preserved", graph, bug)
