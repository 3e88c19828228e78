"""TVM 0.27 bug: LazyTransformParams drops the parameter of a transform_params that returns it whole.

LazyTransformParams replaces the tuple parameter of a ``*transform_params`` function by a
``get_item`` call per read field: it rewrites ``model_params[i]`` and nothing else. Where nothing
was lifted (main only adds a weight to an input), LiftTransformParams makes
``main_transform_params(model_params)`` return ``model_params`` itself; the lazy version drops the
parameter and returns the Var anyway: ``Var model_params is not defined`` (ill-formed). Found by
LazyTransformParams' campaign (seed 20670).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),
                      TensorDecl(name="c1", shape=(1,), dtype="float32", const=False)),
              nodes=(Node(op="add", args=(0, 1), attrs=(), shape=(1,), dtype="float32"),),
              outputs=(2,)),
    num_input=0, weights=(1,),
)


def test_lazy_transform_params_returns_an_undefined_tuple() -> None:
    import tvm.relax.op.vm  # noqa: F401  (the pass needs it imported: test_lazy_transform_params_missing_import)
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main_transform_params(model_params: R.Tuple(R.Tensor((1,), "float32"))) -> R.Tuple(
                R.Tensor((1,), "float32")):
            R.func_attr({"num_input": 0})
            return model_params

    assert relax.analysis.check_well_formed(Module)
    assert not relax.analysis.check_well_formed(relax.transform.LazyTransformParams()(Module))


def test_passcheck_reports_it() -> None:
    assert recheck("LazyTransformParams", "well_formed", EXAMPLE) == 1


def test_lazy_transform_params_whole_tuple() -> None:
    for prop in ("well_formed", "semantics_preserved", "lifted_params_agree"):
        assert_recognised("LazyTransformParams", prop, EXAMPLE, "test_lazy_transform_params_whole_tuple")
