"""TVM 0.27 bug: InlinePrivateFunctions leaves a helper's own symbolic variable in the inlined body.

``helper(v0: R.Tensor(("m", "m")))`` returns ``R.broadcast_to(v0, R.shape([m, m]))``; ``main(p0:
R.Tensor(("n", "n")))`` calls it. Inlined, main's body reads ``R.shape([m, m])`` with ``m`` defined
nowhere in main: the module is not well-formed, and tvm.compile fails ('PrimExpr ... has not been
computed'). The pass substitutes the helper's parameters, and re-derives the types of what reads
them (a helper computing ``R.abs(v0)`` inlines well), but not the symbolic variables its
expressions name; they should become main's ``n``. Found by InlinePrivateFunctions' campaign (seed
2612): a private helper of one broadcast_to over a symbolic square.
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", ("n", "n"), "float32", False),),
              nodes=(Node("broadcast_to", (0,), (("shape", ("n", "n")),), ("n", "n"), "float32"),),
              outputs=(1,), sym_sizes=(("n", 1),)),
    regions=(Region(0, 1, "function", name="helper"),),
)


def _module(body: str):  # noqa: ANN202
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Module:
        @R.function(private=True)
        def helper(v0: R.Tensor(("m", "m"), "float32")) -> R.Tensor(("m", "m"), "float32"):
            m = T.int64()
            with R.dataflow():
                gv = R.broadcast_to(v0, R.shape([m, m])) if body == "broadcast" else R.abs(v0)
                R.output(gv)
            return gv

        @R.function
        def main(p0: R.Tensor(("n", "n"), "float32")) -> R.Tensor(("n", "n"), "float32"):
            n = T.int64()
            with R.dataflow():
                gv1: R.Tensor((n, n), "float32") = Module.helper(p0)
                R.output(gv1)
            return gv1

    return Module


def test_the_inlined_body_reads_the_helper_s_variable() -> None:
    from tvm import relax

    mod = _module("broadcast")
    assert relax.analysis.check_well_formed(mod)
    out = relax.transform.InlinePrivateFunctions()(mod)
    assert "helper" not in [g.name_hint for g in out.get_global_vars()]
    assert not relax.analysis.check_well_formed(out)
    # a helper whose body names no symbolic variable inlines well
    assert relax.analysis.check_well_formed(relax.transform.InlinePrivateFunctions()(_module("abs")))


def test_passcheck_reports_it() -> None:
    assert recheck("InlinePrivateFunctions", "well_formed", EXAMPLE) == 1
    assert recheck("InlinePrivateFunctions", "semantics_preserved", EXAMPLE) == 1


def test_inline_private_functions_symbolic_var() -> None:
    assert_recognised("InlinePrivateFunctions", "well_formed", EXAMPLE, "test_inline_private_functions_symbolic_var")
    message = assert_recognised("InlinePrivateFunctions", "semantics_preserved", EXAMPLE,
                                "test_inline_private_functions_symbolic_var")
    assert "has not been computed" in message
