"""TVM 0.27 bugs in Relax ToMixedPrecision (float32 graphs computed in float16), found by the
2,000-example ToMixedPrecision campaign (seed 2026) and shrunk by hand to one or two ops:

1. A tuple-valued op (dropout, split, batch_norm, ...) read through TupleGetItem makes the pass
   raise ``The type is not populated, check if you have normalized the expr``: it builds the
   new TupleGetItem without a type.
2. ``relax.outer`` is registered with the mixed-precision policy kAlways but without the
   ``FInferMixedPrecision`` rewriter every kAlways op needs: ``Check failed: (attr_map.count(op))``.
3. Any zero-size constant makes the pass raise ``Check failed: (data != nullptr)``, whatever the
   op that reads it (abs of an empty int8 constant here; float32 too).
4. Wrong numbers, silently: the attention rewrite builds a new ``R.nn.attention`` call with
   ``scale=None, causal_mask=None, window_size=None``, dropping the call's own attributes, so a
   scaled or causally masked attention computes another function (0.509 becomes -0.0996).

Each is TVM's: the input graphs are well-formed Relax that builds and runs as it is.
"""

from __future__ import annotations

import numpy as np
import pytest
import tvm
from known_bug_check import assert_recognised
from tvm import relax

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _in(name: str, shape: tuple, dtype: str = "float32", const: bool = False) -> TensorDecl:
    return TensorDecl(name, shape, dtype, const)


TUPLE_OP = GraphSpec(inputs=(_in("p0", (6,)),),
                     nodes=(Node("dropout", (0,), (("item", 1), ("rate", 0.1)), (6,), "float32"),),
                     outputs=(1,))
OUTER = GraphSpec(inputs=(_in("p0", (3,)), _in("p1", (7,))),
                  nodes=(Node("outer", (0, 1), (), (3, 7), "float32"),), outputs=(2,))
EMPTY_CONSTANT = GraphSpec(inputs=(_in("p0", (1,)), _in("c1", (0, 3), "int8", const=True)),
                           nodes=(Node("abs", (1,), (), (0, 3), "int8"),), outputs=(2,))
ATTENTION = GraphSpec(
    inputs=(_in("p0", (1, 3, 2, 4)), _in("c1", (1, 3, 2, 4), const=True), _in("c2", (1, 3, 2, 4), const=True)),
    nodes=(Node("attention", (0, 1, 2), (("causal_mask", "TopLeft"), ("scale", 0.5)), (1, 3, 2, 4), "float32"),),
    outputs=(3,))


@pytest.mark.parametrize(("example", "bug"), [
    (TUPLE_OP, "test_to_mixed_precision_tuple_item"),
    (OUTER, "test_to_mixed_precision_outer"),
    (EMPTY_CONSTANT, "test_to_mixed_precision_empty_constant"),
], ids=["tuple-item", "outer", "empty-constant"])
def test_the_pass_raises(example: GraphSpec, bug: str) -> None:
    assert recheck("ToMixedPrecision", "pass_does_not_raise", example) == 1
    assert_recognised("ToMixedPrecision", "pass_does_not_raise", example, bug)


def test_attention_loses_its_attributes() -> None:
    assert recheck("ToMixedPrecision", "semantics_preserved", ATTENTION) == 1
    assert_recognised("ToMixedPrecision", "semantics_preserved", ATTENTION, "test_to_mixed_precision_attention_attrs")


def test_attention_attributes_dropped_in_tvm_alone() -> None:
    """The mechanism in plain TVM, no passcheck: the rewritten call has lost scale and causal_mask."""
    bb = relax.BlockBuilder()
    q = relax.Var("q", relax.TensorType((1, 2, 1, 4), "float32"))
    with bb.function("main", [q]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.nn.attention(q, q, q, scale=0.5, causal_mask="TopLeft"))
        bb.emit_func_output(out)
    text = relax.transform.ToMixedPrecision()(bb.get()).script()
    assert "R.nn.attention(" in text and "scale=None" in text and "causal_mask=None" in text


def test_attention_without_attributes_is_fine() -> None:
    """The control: an attention with its defaults keeps its numbers under the pass."""
    plain = GraphSpec(inputs=ATTENTION.inputs, nodes=(Node("attention", (0, 1, 2), (("causal_mask", None), ("scale", None)), (1, 3, 2, 4), "float32"),),
                      outputs=(3,))
    assert recheck("ToMixedPrecision", "semantics_preserved", plain) == 0


def test_zero_size_constant_in_tvm_alone() -> None:
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((1,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.abs(relax.const(np.zeros((0, 3), "float32"))))
        bb.emit_func_output(out)
    with pytest.raises(tvm.error.InternalError, match=r"data != nullptr"):
        relax.transform.ToMixedPrecision()(bb.get())
