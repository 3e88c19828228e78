"""TVM 0.27 bug: LazyGetInput drops a parameter that only defines a symbolic variable.

LazyGetInput replaces main's parameters after ``num_input`` by ``fget_param`` and loads each where
its Var is first read (``fget_param(i, name)`` then a ``match_cast`` to its type, which defines the
symbolic variables its type names). A ``R.Shape([n])`` parameter is read only through ``n`` (an
``R.If`` on ``n > 0``, a ``reshape`` to ``[n]``): its Var is never read, so it is never loaded,
and ``n`` is read undefined: the output module is ill-formed and tvm.compile refuses it (a
``T.bool`` parameter is loaded, and its variable bound to the untyped value). Found by
LazyGetInput's campaign (seed 20670: 7 of 500 examples, each a branch on a shape condition).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import Cond, ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _example(kind: str) -> ProgramSpec:
    return ProgramSpec(
        GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),),
                  nodes=(Node(op="abs", args=(0,), attrs=(), shape=(1,), dtype="float32"),),
                  outputs=(1,)),
        regions=(Region(start=0, stop=1, form="branch", name="",
                        options=(("cond", 0), ("tails", ((1, "negative"),)))),),
        conds=(Cond(kind=kind, threshold=0, dtype="int64"),),
    )


EXAMPLE = _example("shape")


def test_lazy_get_input_leaves_the_symbolic_variable_undefined() -> None:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((1,), "float32"), s: R.Shape(["n"])) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            return R.reshape(R.abs(x), R.shape([n]))

    assert relax.analysis.check_well_formed(Module)
    after = relax.transform.LazyGetInput()(Module)
    assert not relax.analysis.check_well_formed(after)
    assert '"s"' not in after.script()  # never loaded


def test_passcheck_reports_it() -> None:
    assert recheck("LazyGetInput", "well_formed", EXAMPLE) == 1
    # a condition read through a Var (a boolean tensor) is loaded where it is read
    assert recheck("LazyGetInput", "well_formed", _example("tensor")) == 0


def test_lazy_get_input_shape_parameter() -> None:
    assert_recognised("LazyGetInput", "well_formed", EXAMPLE, "test_lazy_get_input_shape_parameter")
    assert_recognised("LazyGetInput", "semantics_preserved", EXAMPLE, "test_lazy_get_input_shape_parameter")


def test_a_prim_parameter_is_bound_untyped() -> None:
    """A ``cond0: T.bool`` parameter (R.Prim with a symbolic variable) is loaded, but its match_cast
    binds the variable to the untyped value: "Explicit binding for symbolic variable cond0 must be a
    primitive expression, but received cond0_untyped" in tvm.compile (seed 23497: 9 of 500)."""
    assert_recognised("LazyGetInput", "semantics_preserved", _example("prim"), "test_lazy_get_input_shape_parameter")
