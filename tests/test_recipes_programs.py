"""The program recipes of docs/architecture.md, followed on toys as the page writes them: add a
program structure (a form), declare what a pass needs. Toys are taken back out at the end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from passcheck.relax.needs import NEEDS, PassNeeds, declare
from passcheck.relax.program.case import _program_case
from passcheck.relax.program.draw import StructureBias
from passcheck.relax.program.forms import FORMS, Form, bind, register_form
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(inputs=(TensorDecl("p0", (2, 3), "float32", False),),
                  nodes=(Node("exp", (0,), (), (2, 3), "float32"), Node("relu", (1,), (), (2, 3), "float32")),
                  outputs=(2,))


@pytest.fixture
def toy_form() -> Iterator[str]:
    from tvm import relax

    def _emit_twice(em, env, region, later):  # noqa: ANN001, ANN202 - the recipe's signature
        vid = len(em.graph.inputs) + region.start
        em.emit_node(env, region.start, False)
        env[vid] = bind(em, relax.op.add(env[vid], relax.op.zeros_like(env[vid])), vid in later)

    register_form(Form("toy_plus_zero", "a value plus zeros", _emit_twice))
    yield "toy_plus_zero"
    FORMS.remove("toy_plus_zero")


def test_recipe_add_a_program_structure(toy_form: str) -> None:
    from tvm import relax

    case = _program_case("x", ProgramSpec(GRAPH, (Region(0, 1, toy_form),)))
    assert relax.analysis.check_well_formed(case.built)
    assert "R.zeros_like" in case.built.script()
    case.before = case.after = case.built
    assert case.compare_with_reference(case.run("built")) is None  # the graph's reference is the program's


@pytest.fixture
def toy_needs() -> Iterator[str]:
    assert NEEDS.find("ToNonDataflow") is None
    declare(PassNeeds("ToNonDataflow", "dataflow blocks in helper functions too",
                      structure=StructureBias(forms=(("function", 1.0),), min_regions=1)))
    yield "ToNonDataflow"
    NEEDS.remove("ToNonDataflow")


def test_recipe_declare_what_a_pass_needs(toy_needs: str) -> None:
    from passcheck.relax.passes import generic_subject

    subject = generic_subject(toy_needs)
    assert subject.needs == "dataflow blocks in helper functions too"
    assert subject.structure is not None and dict(subject.structure.forms) == {"function": 1.0}
    assert subject.prerequisites[-2:] == ("LegalizeOps", "RewriteDataflowReshape")  # its place, read from TVM
