"""TVM 0.27 bug: LazyGetInput and LazySetOutput rewrite every public function, not only the entry,
and leave the calls to them as they were.

LazyGetInput replaces a function's weights (its parameters after ``num_input``; all of them
where the attribute is absent) by an ``fget_param`` callback, LazySetOutput adds an
``fset_output`` one. Both do it to every public Relax function of the module: a helper ``f(y)``
called from ``main`` becomes ``f(fget_param)`` (or ``f(y, fset_output)``) while ``main`` still
calls ``f(x)``. The module passes the well-formed check and fails when it runs: ``Invoking
function f expects 1 arguments (fget_param), but 0 arguments were provided``, or
``param=fget_param, annotation=R.Callable`` refusing the tensor main passes. Found by LazyGetInput's
campaign (seed 36: 27 of 500 examples; LazySetOutput's: 22).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),
                      TensorDecl(name="c1", shape=(1,), dtype="float32", const=True)),
              nodes=(Node(op="abs", args=(1,), attrs=(), shape=(1,), dtype="float32"),),
              outputs=(2,)),
    regions=(Region(start=0, stop=1, form="function", name="relu", options=(("private", False),)),),
)


def test_both_passes_still_rewrite_the_helper_and_not_its_call() -> None:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Mod:
        @R.function
        def helper(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                gv = R.abs(y)
                R.output(gv)
            return gv

        @R.function
        def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            R.func_attr({"num_input": 1})
            cls = Mod
            with R.dataflow():
                gv1 = cls.helper(x)
                R.output(gv1)
            return gv1

    lazy = relax.transform.LazyGetInput()(Mod)
    assert [p.name for p in lazy["helper"].params] == ["fget_param"]
    assert [p.name for p in relax.transform.LazySetOutput()(Mod)["helper"].params] == ["y", "fset_output"]
    call = lazy["main"].body.blocks[0].bindings[0].value
    assert len(call.args) == 1 and call.args[0].name == "x"  # main still passes the tensor


def test_passcheck_reports_it() -> None:
    assert recheck("LazyGetInput", "semantics_preserved", EXAMPLE) == 1


def test_lazy_params_rewrite_every_function() -> None:
    assert_recognised("LazyGetInput", "semantics_preserved", EXAMPLE, "test_lazy_params_rewrite_every_function")
