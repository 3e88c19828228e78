"""TVM 0.27 bug: ConvertLayout (AlterOpLayout) raises on any graph with ``nn.dropout``.

``dropout`` is tuple-valued, ``(out, mask)``. ConvertLayout's layout inference for it returns
a single layout rather than a tuple of two, and the pass's own check fails: ``InternalError:
Check failed: (msgs[i].IsNested()) is false: Expected nested to match tuple``, whatever the
desired layouts and the tensor's rank, even with no conv2d in the graph. The module is valid and
runs (dropout is the identity at inference). Found by ``passcheck AlterOpLayout``
(``pass_does_not_raise``) once dropout joined the op vocabulary.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = GraphSpec(
    inputs=(TensorDecl("p0", (1, 1, 1, 1), "float32", False),),
    nodes=(Node("dropout", (0,), (("item", 0), ("rate", 0.5)), (1, 1, 1, 1), "float32"),),
    outputs=(1,),
    extra=(("desired_layouts", (("relax.nn.conv2d", ("NCHW", "OIHW")),)),),
)


@pytest.mark.parametrize("shape", [(2,), (2, 3, 4, 5)])
def test_convert_layout_dropout_still_raises(shape: tuple[int, ...]) -> None:
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            d = bb.emit(R.nn.dropout(x, 0.5))
            out = bb.emit_output(relax.TupleGetItem(d, 0))
        bb.emit_func_output(out)
    mod = bb.get()
    assert relax.analysis.check_well_formed(mod)
    with pytest.raises(Exception, match="Expected nested to match tuple"):
        relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(mod)


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "pass_does_not_raise", EXAMPLE) == 1


def test_convert_layout_dropout() -> None:
    assert_recognised("AlterOpLayout", "pass_does_not_raise", EXAMPLE, "test_convert_layout_dropout")
