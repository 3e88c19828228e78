"""The forms a drawn example exercises (passcheck/relax/forms.py) and `passcheck list --forms`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from passcheck.integrations.cli import main
from passcheck.integrations.commands.forms import drawn_coverage
from passcheck.relax.forms import CATEGORIES, attribute_form, attribute_kinds, forms, unreached
from passcheck.relax.ops.base import declared, op_registry
from passcheck.relax.spec import GraphSpec, Node, TensorDecl


def test_an_attribute_form_says_what_matters_of_the_value_not_the_value() -> None:
    assert attribute_form("axis", (0, 1), 2) == "axis=all"
    assert attribute_form("axis", (-1, 0), 2) == "axis=all,neg"
    assert attribute_form("axis", (-1,), 3) == "axis=some,neg"
    assert attribute_form("axis", (), 3) == "axis=()"
    assert attribute_form("axis", (0,), 0) == "axis=some"  # a 0-d operand has no axis to cover
    assert attribute_form("keepdims", True, 2) == "keepdims=true"
    assert attribute_form("axis", None, 2) == "axis=none"
    assert attribute_form("epsilon", 1e-5, 2) == "epsilon=pos"
    assert attribute_form("shape", (1, 4, 4), 2) == "shape=[1,pos]"
    assert attribute_form("method", "nearest_neighbor", 2) == "method=nearest_neighbor"
    assert attribute_form("layout", "a layout string far too long to read", 2) == "layout=str"


def _graph() -> GraphSpec:
    x = TensorDecl("p0", (4, 4), "float32", False, -1.0, 1.0)
    k = TensorDecl("c1", (4,), "int8", True, -128.0, 127.0, "wide")
    nodes = (Node("sum", (0,), (("axis", (-1,)), ("keepdims", False)), (4,), "float32"),
             Node("split", (0,), (("axis", 0), ("indices_or_sections", 2)), (), "float32", ((2, 4), (2, 4))),
             Node("tuple_get_item", (3,), (("index", 1),), (2, 4), "float32"),
             Node("add", (1, 1), (), (4,), "int8"))
    return GraphSpec((x, k), nodes, (2, 4, 5))


def test_the_forms_of_a_graph_by_category() -> None:
    f = forms(_graph())
    assert set(f) == set(CATEGORIES)
    assert "sum(axis=some,neg, keepdims=false)" in f["attribute forms"]
    assert "add(defaults)" in f["attribute forms"]
    assert "sum@float32" in f["op dtypes"] and "add@int8" in f["op dtypes"]
    assert "int8 edge values" in f["value forms"] and "int8 constant wide" in f["value forms"]
    assert "equal extents on two axes of an operand" in f["structures"]  # the 4x4 input
    assert "tuple field >0 of split" in f["structures"]


@pytest.mark.parametrize("subject", ["FuseOps", "LambdaLift", "split"])
def test_list_forms_draws_a_pass_and_counts_its_forms(subject: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--forms", subject, "--examples", "25"]) == 0
    out = capsys.readouterr().out
    expected = "kernel kinds" if subject == "split" else "attribute forms"
    assert f"{subject}: the forms of 25 examples drawn at seed 0" in out, out[:2000]
    assert f"{subject}: {expected}: " in out, out[:2000]
    if subject == "LambdaLift":
        assert "program forms" in out and "closure" in out


def test_list_forms_reads_a_campaigns_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    code = main(["FoldConstant", "--examples", "12", "--no-db", "--no-progress", "--jobs", "1",
                 "--findings-dir", str(tmp_path / "f"), "--report", f"json:{report}"])
    assert code in (0, 1)
    data = json.loads(report.read_text())
    assert "attribute forms" in data["coverage"] and "value forms" in data["coverage"]
    capsys.readouterr()
    assert main(["list", "--forms", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    top, count = max(data["coverage"]["attribute forms"].items(), key=lambda kv: kv[1])
    assert f"FoldConstant: the forms of the campaign of {report}" in out and "FoldConstant: attribute forms: " in out
    assert top in out


def test_list_forms_refuses_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["list", "--forms", "--report", str(bad)]) == 2
    assert main(["list", "FuseOps"]) == 2  # PASS without --forms
    assert main(["list", "--forms", "FuseOps", "--examples", "0"]) == 2
    err = capsys.readouterr().err
    assert "not a passcheck JSON report" in err and "go with --forms" in err
    assert "Traceback" not in err


def test_an_attribute_alone_gives_one_form_per_kind_of_element() -> None:
    assert attribute_kinds("padding", (0, 1, 3, 0), 2) == ("padding has 0", "padding has 1", "padding has pos")
    assert attribute_kinds("shape", (1, "n"), 2) == ("shape has 1", "shape has sym")  # a symbolic extent
    assert attribute_kinds("axis", (-1, 0), 2) == ("axis=all,neg",)  # an axis list says what it covers
    assert attribute_kinds("shape", (), 2) == ("shape=()",)
    assert attribute_kinds("keepdims", False, 2) == ("keepdims=false",)
    assert attribute_kinds("coordinate_transformation_mode", "tf_half_pixel_for_nn", 2) == (
        "coordinate_transformation_mode=tf_half_pixel_for_nn",)


def test_an_ops_forms_are_declared_short() -> None:
    assert declared("axis=0|neg; keepdims=true|false; padding has 0|pos; rounding_method=|floor") == (
        "axis=0", "axis=neg", "keepdims=true", "keepdims=false", "padding has 0", "padding has pos",
        "rounding_method=", "rounding_method=floor")
    with pytest.raises(ValueError, match="neither 'key=kind"):
        declared("axis 0|1")


def _undeclared(counts: dict[str, Any]) -> list[str]:
    ops = op_registry()
    out = []
    for item in counts.get("op attributes", {}):
        op, form = item.split(": ", 1)
        if form not in ops[op].forms:
            out.append(item)
    return sorted(out)


@pytest.mark.parametrize(("subject", "examples"), [("FuseOps", 200), ("AlterOpLayout", 80), ("FoldConstant", 80)])
def test_every_attribute_form_a_pass_draws_is_declared_by_its_op(subject: str, examples: int) -> None:
    # Motifs and pass biases build ops with their own attributes: each must be a form its op
    # declares, or the unreached list of a campaign would not be the forms it missed.
    n, counts = drawn_coverage(subject, examples, 0)
    assert n == examples and counts["op attributes"]
    assert _undeclared(counts) == [], "declare these in the op's OpSpec(forms=declared(...))"


def test_the_declared_forms_a_campaign_never_drew_are_named() -> None:
    counts = {"ops": Counter({"sum": 3, "add": 2}),
              "op attributes": Counter({"sum: axis=none": 1, "sum: keepdims=true": 3})}
    declared_n, missed = unreached(counts)
    assert declared_n == len(op_registry()["sum"].forms)  # add has no attributes
    assert "sum: keepdims=false" in missed and "sum: axis=some,neg" in missed
    assert "sum: keepdims=true" not in missed and "sum: axis=none" not in missed


def test_list_forms_names_the_declared_forms_never_drawn(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--forms", "FuseOps", "--examples", "30"]) == 0
    out = capsys.readouterr().out
    n, counts = drawn_coverage("FuseOps", 30, 0)
    declared_n, missed = unreached(counts)
    assert missed, "30 examples cannot reach every form of the ops they draw"
    line = next(s for s in out.splitlines() if "forms declared by the ops drawn" in s)
    assert f"{declared_n - len(missed)} of the {declared_n} forms declared" in line
    assert missed[0] in out


@pytest.mark.slow
def test_each_op_drawn_alone_makes_only_the_forms_it_declares() -> None:
    # Every op drawn where it is the graph's main op (its dtypes, ranks 1 to 5): a form it makes
    # and does not declare, or an attribute it declares and never draws (a misspelt key), is a
    # declaration to mend.
    from passcheck.core.draws import examples_of
    from passcheck.relax.graphs import GraphBias, relax_graphs

    wrong = []
    for name, spec in sorted(op_registry().items()):
        dtypes = tuple(sorted(spec.dtypes)) if spec.dtypes else ("float32", "float16")
        bias = GraphBias(op_weights=((name, 500.0),), dtypes=dtypes, max_nodes=4, first_ranks=(1, 2, 3, 4, 5))
        counts: dict[str, Counter[str]] = {}
        for seed in (0, 1):
            for graph in examples_of(relax_graphs(bias), 150, seed):
                for category, items in forms(graph).items():
                    counts.setdefault(category, Counter()).update(items)
        drawn = {f for f in counts["op attributes"] if f.startswith(f"{name}: ")}
        keys = {f.split(": ", 1)[1].replace(" has ", "=").split("=")[0] for f in drawn}
        declared_keys = {f.replace(" has ", "=").split("=")[0] for f in spec.forms}
        wrong += [f"{f} (not declared)" for f in sorted(_undeclared({"op attributes": drawn}))]
        wrong += [f"{name}: {k} (declared, never drawn)" for k in sorted(declared_keys - keys)]
    assert wrong == []
