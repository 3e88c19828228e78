"""TVM 0.27 bug: float16 ``acos``, ``acosh``, ``asin``, ``asinh``, ``atan``, ``atan2``, ``cosh`` and
``sinh`` do not compile for the CPU.

Relax's type inference accepts these ops on float16 tensors, and TVM's own passes produce them:
ToMixedPrecision turns a float32 ``acosh`` into a float16 one. Building the result for ``llvm``
fails in codegen with ``InternalError: unknown intrinsic ... tirx.acosh``: the LLVM backend has no
float16 lowering for these intrinsics (``sin``, ``cos``, ``tan``, ``exp``, ``log``, ``erf``,
``atanh`` are lowered, by computing in float32). Found by ``passcheck sequence``
(``semantics_preserved`` raised while compiling the output of ToMixedPrecision on
``isnan(acosh(<constant>))``) once the
elementwise ops were declared (issue 9). The ops are drawn in every float dtype, float16 included;
ToMixedPrecision also makes them (tests/test_op_vocabulary_elementwise.py checks that
the float16 builds still fail).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = PassSequence(
    graph=GraphSpec(inputs=(TensorDecl(name="c0", shape=(1, 1, 1, 1), dtype="float32", const=True, lo=1.0, hi=10.0,
                                       style="narrow", seed=3402),),
                    nodes=(Node(op="acosh", args=(0,), attrs=(), shape=(1, 1, 1, 1), dtype="float32"),
                           Node(op="isnan", args=(1,), attrs=(), shape=(1, 1, 1, 1), dtype="bool")),
                    outputs=(2,)),
    steps=(Step(name="ToMixedPrecision"),))


def _module(name: str, dtype: str):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    n = 2 if name == "atan2" else 1
    ps = [relax.Var(f"x{i}", relax.TensorType((4,), dtype)) for i in range(n)]
    with bb.function("main", ps):
        with bb.dataflow():
            out = bb.emit_output(getattr(R, name)(*ps))
        bb.emit_func_output(out)
    return bb.get()


@pytest.mark.parametrize("name", ["acos", "acosh", "asin", "asinh", "atan", "atan2", "cosh", "sinh"])
def test_float16_build_still_fails(name: str) -> None:
    import tvm

    with pytest.raises(tvm.error.InternalError, match="unknown intrinsic"):
        tvm.compile(_module(name, "float16"), target="llvm")
    tvm.compile(_module(name, "float32"), target="llvm")  # float32 builds


def test_to_mixed_precision_output_does_not_build() -> None:
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    # acosh of a float32 constant: ToMixedPrecision computes it in float16
    bb = relax.BlockBuilder()
    with bb.function("main", []):
        with bb.dataflow():
            y = bb.emit(R.acosh(relax.const(np.full((4,), 2.0, "float32"))))
            out = bb.emit_output(R.isnan(y))
        bb.emit_func_output(out)
    mixed = relax.transform.ToMixedPrecision(out_dtype="float16")(bb.get())
    assert 'R.acosh(' in mixed.script() and "float16" in mixed.script()
    with pytest.raises(tvm.error.InternalError, match="unknown intrinsic"):
        tvm.compile(mixed, target="llvm")


def test_passcheck_reports_it() -> None:
    assert recheck("sequence", "semantics_preserved", EXAMPLE) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("sequence", "semantics_preserved", EXAMPLE, "test_float16_math_intrinsics")


# FoldConstant evaluates a constant call by building it: it cannot build these, so it rightly
# leaves the call. That is this bug (semantics_preserved reports it), not a second one:
# no_constant_only_calls counts only calls that build (it flagged this one before).
UNFOLDED = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2, 3), dtype="float16", const=False),
            TensorDecl(name="c1", shape=(2, 3), dtype="float16", const=True, lo=-0.5, hi=0.5)),
    nodes=(Node(op="cosh", args=(1,), attrs=(), shape=(2, 3), dtype="float16"),
           Node(op="add", args=(0, 2), attrs=(), shape=(2, 3), dtype="float16")),
    outputs=(3,),
)


def test_fold_constant_leaving_them_is_no_second_finding() -> None:
    assert recheck("FoldConstant", "no_constant_only_calls", UNFOLDED) == 0
    assert recheck("FoldConstant", "semantics_preserved", UNFOLDED) == 1
    assert_recognised("FoldConstant", "semantics_preserved", UNFOLDED, "test_float16_math_intrinsics")
