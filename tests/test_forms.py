"""The forms a drawn example exercises (passcheck/relax/forms.py) and `passcheck list --forms`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passcheck.integrations.cli import main
from passcheck.relax.forms import CATEGORIES, attribute_form, forms
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
    assert attribute_form("layout", "a layout string too long", 2) == "layout=str"


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
