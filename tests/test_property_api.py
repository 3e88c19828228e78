"""Declaring, loading and selecting properties; bad property modules are usage errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from passcheck import UsageError, prop
from passcheck.core import property as props


def test_decorator_registers_generic_and_specific(tmp_path: Path) -> None:
    f = tmp_path / "p.py"
    f.write_text(
        "from passcheck import prop, require\n"
        "@prop()\n"
        "def everywhere(case):\n"
        "    'holds everywhere'\n"
        "@prop('FoldConstant', 'FuseOps')\n"
        "def two_passes(case):\n"
        "    'holds for two passes'\n"
    )
    names = props.load_file(f)
    assert names == ["everywhere", "two_passes"]
    assert props.get("everywhere").generic
    assert props.get("everywhere").applies_to(("AlterOpLayout",), "relax")
    assert not props.get("everywhere").applies_to(("split",), "tir")
    assert props.get("two_passes").applies_to(("foldconstant",), "relax")
    assert not props.get("two_passes").applies_to(("AlterOpLayout", "ConvertLayout"), "relax")
    assert props.get("two_passes").doc == "holds for two passes"


def test_property_must_take_one_argument() -> None:
    with pytest.raises(UsageError, match="exactly one argument"):
        @prop()
        def no_args() -> None:  # pragma: no cover - never called
            pass


def test_bad_ir_kind_is_usage_error() -> None:
    with pytest.raises(UsageError, match="ir must be"):
        prop(ir="relay")


@pytest.mark.parametrize("text, match", [
    ("def f(:\n", "SyntaxError"),
    ("x = 1\n", "defines no property"),
    ("import no_such_module_xyz\n", "ModuleNotFoundError"),
    ("raise RuntimeError('boom')\n", "RuntimeError: boom"),
])
def test_malformed_property_modules_are_usage_errors(tmp_path: Path, text: str, match: str) -> None:
    f = tmp_path / "bad.py"
    f.write_text(text)
    with pytest.raises(UsageError, match=match):
        props.load_file(f)


def test_missing_file_is_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        props.load_file(tmp_path / "nope.py")


def test_shipped_properties_all_have_docstrings() -> None:
    props.load_builtin()
    shipped = [p for p in props.all_properties() if p.module.startswith("passcheck.properties.")]
    assert len(shipped) >= 12
    for p in shipped:
        assert p.doc, f"{p.name} has no docstring stating its invariant"


def test_unknown_property_name_is_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown property"):
        props.get("no_such_property")
