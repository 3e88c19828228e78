"""error_line: the one line of an exception a finding quotes."""

from __future__ import annotations

import pytest

from passcheck.core.errors import error_line


def test_a_tvm_op_repr_is_shortened_to_the_op_name() -> None:
    """A type check quoted with TVM's full ir.Op repr had its failed check cut off by the limit
    (the known-bug registry could not tell the AlterOpLayout campaign's layer_norm refusals)."""
    from tvm import relax

    x = relax.Var("x", relax.TensorType((1, 3, 4), "float32"))
    g = relax.Var("g", relax.TensorType((5,), "float32"))
    with pytest.raises(Exception) as info:  # noqa: PT011 - TVM raises its own error types
        relax.BlockBuilder().normalize(relax.op.nn.layer_norm(x, g, g, axes=[-1]))
    assert "ir.Op(" in str(info.value)
    line = error_line(info.value)
    assert line.startswith("relax.nn.layer_norm requires the input gamma"), line
    assert "ArgumentInfo" not in line and len(line) <= 400


def test_lines_without_an_op_repr_are_unchanged() -> None:
    e = ValueError("first\nShape mismatch for NLLLoss. The prediction shape at this dim is 5\n# Metadata omitted.")
    assert error_line(e) == "Shape mismatch for NLLLoss. The prediction shape at this dim is 5"
    assert error_line(ValueError("x" * 500), 10) == "x" * 10


def test_an_error_inside_a_pass_is_quoted_from_above_the_module_tvm_prints() -> None:
    """An error raised inside a pass ends with the module in TVMScript: FastMathTransform's campaign
    quoted "return gv" (seed 20670), not the type mismatch CallTIRRewrite raised."""
    import tvm
    from tvm import relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((0, 7), "float32"))
    with bb.function("main", [x]):
        parts = bb.emit(relax.op.split(x, [8], axis=1))
        out = bb.emit(relax.op.erf(relax.TupleGetItem(parts, 0)))
        bb.emit_func_output(out)
    with pytest.raises(Exception) as info:  # noqa: PT011 - TVM raises its own error types
        tvm.compile(relax.transform.FastMathTransform()(bb.get()), target="llvm")
    assert "Error in pass: " in str(info.value)
    line = error_line(info.value)
    assert line.startswith("Argument 0 type mismatch: expected R.Tensor((0, 7)"), line
    assert line.endswith("(in CallTIRRewrite)"), line
