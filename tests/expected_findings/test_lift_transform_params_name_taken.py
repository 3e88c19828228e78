"""TVM 0.27 bug: LiftTransformParams breaks a module that already has a function named
``main_transform_params``.

The pass names the function it lifts ``main``'s weight computations into ``main_transform_params``
and, where a function of that name exists, takes it for its own earlier output (lifting twice
composes the two): it removes that function's GlobalVar and adds the composition under a new one.
A helper of that name that ``main`` calls is removed from under the call: the output module is
ill-formed (``GlobalVar main_transform_params is not defined``) and the VM cannot find the
function. Where the name is free the same program lifts correctly. passcheck draws function names
passes generate themselves (issue 19); found by LiftTransformParams' campaign (seed 20670: 16 of
500 examples).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def _example(name: str) -> ProgramSpec:
    return ProgramSpec(
        GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),
                          TensorDecl(name="c1", shape=(1,), dtype="float32", const=False)),
                  nodes=(Node(op="abs", args=(0,), attrs=(), shape=(1,), dtype="float32"),
                         Node(op="add", args=(2, 1), attrs=(), shape=(1,), dtype="float32")),
                  outputs=(3,)),
        regions=(Region(start=0, stop=1, form="function", name=name, options=(("private", False),)),),
        num_input=0, weights=(1,),
    )


EXAMPLE = _example("main_transform_params")


def test_lift_transform_params_removes_a_function_main_calls() -> None:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def main_transform_params(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            with R.dataflow():
                gv = R.abs(a)
                R.output(gv)
            return gv

        @R.function
        def main(x: R.Tensor((2,), "float32"), w: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            R.func_attr({"num_input": 1})
            cls = Module
            with R.dataflow():
                lv = cls.main_transform_params(x)
                gv = R.add(lv, w)
                R.output(gv)
            return gv

    assert relax.analysis.check_well_formed(Module)
    assert not relax.analysis.check_well_formed(relax.transform.LiftTransformParams()(Module))


def test_passcheck_reports_it() -> None:
    assert recheck("LiftTransformParams", "well_formed", EXAMPLE) == 1
    assert recheck("LiftTransformParams", "well_formed", _example("helper")) == 0


def test_lift_transform_params_name_taken() -> None:
    assert_recognised("LiftTransformParams", "well_formed", EXAMPLE, "test_lift_transform_params_name_taken")
    assert_recognised("LiftTransformParams", "semantics_preserved", EXAMPLE, "test_lift_transform_params_name_taken")
    assert_recognised("LiftTransformParams", "lifted_params_agree", EXAMPLE, "test_lift_transform_params_name_taken")


# a helper of that name inside a closure: the pass raises "There is no definition of
# I.GlobalVar("main_transform_params")" (seed 23497)
NESTED = ProgramSpec(
    GraphSpec(inputs=(TensorDecl(name="p0", shape=(1,), dtype="float32", const=False),
                      TensorDecl(name="c1", shape=(1,), dtype="float32", const=False)),
              nodes=(Node(op="abs", args=(1,), attrs=(), shape=(1,), dtype="float32"),
                     Node(op="abs", args=(2,), attrs=(), shape=(1,), dtype="float32")),
              outputs=(2, 3)),
    regions=(Region(start=0, stop=1, form="closure", name="helper",
                    inner=(Region(start=0, stop=1, form="function", name="main_transform_params",
                                  options=(("private", False),)),)),),
    num_input=0,
)


def test_a_helper_of_that_name_in_a_closure() -> None:
    assert_recognised("LiftTransformParams", "pass_does_not_raise", NESTED, "test_lift_transform_params_name_taken")


def test_without_num_input_a_helper_of_that_name_is_the_programs_own() -> None:
    """Without num_input LiftTransformParams lifts nothing: main_transform_params is the program's
    helper, which main calls. passcheck's lifted calling convention called it with the weights
    anyway ("expects 2 arguments, but 1 arguments were provided", seed 23497: an alarm of ours)."""
    own = ProgramSpec(EXAMPLE.graph, regions=EXAMPLE.regions)
    assert recheck("LiftTransformParams", "semantics_preserved", own) == 0


def test_its_other_words_are_recognised_by_the_drawn_name() -> None:
    """Composed with the program's own function of that name, the lifted function fails inside
    tvm.compile ("tokens.IsNested()") or computes something else (seed 23497: 1 and 2 of 500).
    The pass's output always holds a main_transform_params: the drawn one is read from the
    example's description, not from the modules."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    subject = resolve("LiftTransformParams")
    drawn = subject.describe_example(EXAMPLE)
    assert "main_transform_params[" in drawn
    for prop, message in (("semantics_preserved", "checking raised InternalError (execution.py:180): Check failed: "
                                                   "(tokens.IsNested()) is false:"),
                          ("lifted_params_agree", "main(inputs, main_transform_params(weights)) differs from main(inputs, "
                                                  "weights): output 0[0, 0]: got 1.5, reference 0.5"),
                          # (seed 1207: 3 of 2,000, a packed call in the drawn function of that name)
                          ("pass_does_not_raise", "the pass raised IndexError: Index 3 out of bounds 2")):
        bug = recognise(subject, prop, message, drawn)
        assert bug is not None and bug.name == "test_lift_transform_params_name_taken", (prop, bug)
        # a program without that name: the words alone are not this bug
        assert recognise(subject, prop, message, subject.describe_example(_example("helper"))) is None


# main's call of its helper of that name returning two values, under LazyTransformParams: the
# composition returns one, and the VM's match_cast of it raises "during match-cast we find tuple
# size mismatch" (seed 12305: 5 of 500)
TWO_RESULTS = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", (1,), "float32", False), TensorDecl("w1", (1,), "float32", False)),
              nodes=(Node("exp", (1,), (), (1,), "float32"), Node("add", (0, 2), (), (1,), "float32"),
                     Node("abs", (0,), (), (1,), "float32"), Node("negative", (0,), (), (1,), "float32")),
              outputs=(3, 4, 5)),
    regions=(Region(2, 4, "function", "main_transform_params", options=(("private", False),)),),
    num_input=0, weights=(1,))


def test_a_helper_of_that_name_returning_a_tuple() -> None:
    free = ProgramSpec(TWO_RESULTS.graph, (Region(2, 4, "function", "helper", options=(("private", False),)),),
                       num_input=0, weights=(1,))
    assert recheck("LazyTransformParams", "lifted_params_agree", free) == 0
    for prop in ("semantics_preserved", "lifted_params_agree"):
        assert_recognised("LazyTransformParams", prop, TWO_RESULTS, "test_lift_transform_params_name_taken")


# a helper of that name returning an unused second result, run as LazyTransformParams' prerequisite:
# "LiftTransformParams (run before LazyTransformParams) raised IndexError: Index 2 out of bounds 2"
# (seed 4242)
UNUSED_RESULT = ProgramSpec(
    GraphSpec(inputs=tuple(TensorDecl(name=n, shape=(1,), dtype="float32", const=False) for n in ("p0", "c1", "c2", "c3")),
              nodes=(Node(op="exp", args=(2,), attrs=(), shape=(1,), dtype="float32"),
                     Node(op="add", args=(0, 4), attrs=(), shape=(1,), dtype="float32"),
                     Node(op="exp", args=(3,), attrs=(), shape=(1,), dtype="float32"),
                     Node(op="add", args=(5, 6), attrs=(), shape=(1,), dtype="float32")),
              outputs=(7,)),
    regions=(Region(start=0, stop=1, form="function", name="main_transform_params",
                    options=(("unused_output", True),)),),
    num_input=0, weights=(1, 2, 3),
)


def test_as_a_prerequisite_of_lazy_transform_params() -> None:
    message = assert_recognised("LazyTransformParams", "pass_does_not_raise", UNUSED_RESULT,
                                "test_lift_transform_params_name_taken")
    assert "LiftTransformParams (run before LazyTransformParams) raised IndexError" in message
