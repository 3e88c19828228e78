"""TVM 0.27 bug: LazyTransformParams raises IndexError on a ``*transform_params`` function without
parameters.

The pass takes every function whose name ends in ``transform_params`` for one LiftTransformParams
made and reads its parameter ``num_input`` (0 without the attribute) unchecked: a function of
that name with no parameter (a helper main calls; a closure named ``main_transform_params``, which
LambdaLift names ``main_main_transform_params``) makes it raise ``IndexError: Index out of range``
instead of leaving the function alone or saying what it expects. passcheck draws names passes
generate (issue 19); found by LazyTransformParams' campaign (seed 20670).

By the same convention a helper named ``transform_params`` that main calls is made lazy (its
parameters read through ``get_item``) while main still calls it with its arguments: the call fails
when it runs ("expects 0 arguments, but 1 arguments were provided"); one returning a tensor, not
a tuple, makes the pass raise AssertionError.
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),
                      TensorDecl(name="c1", shape=(1,), dtype="float32", const=True)),
              nodes=(Node(op="abs", args=(1,), attrs=(), shape=(1,), dtype="float32"),),
              outputs=(2,)),
    regions=(Region(start=0, stop=1, form="closure", name="main_transform_params"),),
)

# a public helper named transform_params that main calls (returning a tuple, as the pass asserts)
CALLED = ProgramSpec(
    GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),),
              nodes=(Node(op="abs", args=(0,), attrs=(), shape=(1,), dtype="float32"),
                     Node(op="negative", args=(0,), attrs=(), shape=(1,), dtype="float32")),
              outputs=(1, 2)),
    regions=(Region(start=0, stop=2, form="function", name="transform_params", options=(("private", False),)),),
)

# the same helper returning a tensor
TENSOR = ProgramSpec(GraphSpec(
    inputs=CALLED.graph.inputs, nodes=CALLED.graph.nodes[:1], outputs=(1,)),
    regions=(Region(start=0, stop=1, form="function", name="transform_params", options=(("private", False),)),))


def test_lazy_transform_params_indexes_a_missing_parameter() -> None:
    import tvm.relax.op.vm  # noqa: F401  (the pass needs it imported: test_lazy_transform_params_missing_import)
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def helper_transform_params() -> R.Tensor((1,), "float32"):
            return R.const([1.0], "float32")

    with pytest.raises(IndexError):
        relax.transform.LazyTransformParams()(Module)


def test_passcheck_reports_it() -> None:
    assert recheck("LazyTransformParams", "pass_does_not_raise", EXAMPLE) == 1
    assert recheck("LazyTransformParams", "semantics_preserved", CALLED) == 1


def test_lazy_transform_params_no_parameters() -> None:
    assert_recognised("LazyTransformParams", "pass_does_not_raise", EXAMPLE, "test_lazy_transform_params_no_parameters")
    assert_recognised("LazyTransformParams", "pass_does_not_raise", TENSOR, "test_lazy_transform_params_no_parameters")


def test_lazy_transform_params_called_helper() -> None:
    assert_recognised("LazyTransformParams", "semantics_preserved", CALLED, "test_lazy_transform_params_called_helper")


def test_the_pass_gets_the_non_dataflow_input_its_docstring_asks_for() -> None:
    """LazyTransformParams expects ToNonDataflow and RemovePurityChecking first (its docstring, TVM's
    tests): without them its get_item calls land inside a dataflow block, and well_formed failed on
    passcheck's own input (an alarm of ours, seed 20670)."""
    assert recheck("LazyTransformParams", "well_formed", CALLED) == 0


def test_a_called_helper_reads_weights_main_does_not_have() -> None:
    """A helper named main_transform_params that main calls with an input, no weights at all: made
    lazy, it reads get_item(0) (seed 23497; passcheck's get_item said only "list index out of
    range" before)."""
    named = ProgramSpec(CALLED.graph, regions=(Region(start=0, stop=2, form="function", name="main_transform_params",
                                                      options=(("private", False),)),))
    assert recheck("LazyTransformParams", "semantics_preserved", named) == 1
    assert_recognised("LazyTransformParams", "semantics_preserved", named, "test_lazy_transform_params_called_helper")
