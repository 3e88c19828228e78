"""TVM 0.27 bug: BundleModelParams leaves a weight a local function captures undefined.

BundleModelParams replaces main's weights (the parameters after ``num_input``) by one tuple,
``model_params``, and each read of a weight by a read of its field. A local function (closure)
that reads a weight from main is not rewritten: its body still reads the weight's Var, which is no
longer a parameter of anything. The output module is ill-formed (``Var c1 is not defined``) and the
VM's codegen refuses it. A weight read in main itself is bundled correctly. Found by
BundleModelParams' campaign (seed 20670: 1 of 500 examples).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _example(form: str) -> ProgramSpec:
    return ProgramSpec(
        GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),
                          TensorDecl(name="c1", shape=(1,), dtype="float32", const=False)),
                  nodes=(Node(op="abs", args=(1,), attrs=(), shape=(1,), dtype="float32"),),
                  outputs=(2,)),
        regions=(Region(start=0, stop=1, form=form, name="helper", options=(("capture", True),)),),
        num_input=0, weights=(1,),
    )


EXAMPLE = _example("closure")


def test_bundle_model_params_leaves_the_captured_weight() -> None:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((1,), "float32"), w: R.Tensor((1,), "float32")) -> R.Tensor((1,), "float32"):
            R.func_attr({"num_input": 1})

            @R.function
            def helper() -> R.Tensor((1,), "float32"):
                gv = R.abs(w)
                return gv

            return R.add(helper(), x)

    assert relax.analysis.check_well_formed(Module)
    assert not relax.analysis.check_well_formed(relax.transform.BundleModelParams()(Module))


def test_passcheck_reports_it() -> None:
    assert recheck("BundleModelParams", "well_formed", EXAMPLE) == 1
    # the same weight read by a private function main passes it to: bundled correctly
    assert recheck("BundleModelParams", "well_formed", _example("function")) == 0


def test_bundle_model_params_closure_capture() -> None:
    assert_recognised("BundleModelParams", "well_formed", EXAMPLE, "test_bundle_model_params_closure_capture")
    assert_recognised("BundleModelParams", "semantics_preserved", EXAMPLE, "test_bundle_model_params_closure_capture")
