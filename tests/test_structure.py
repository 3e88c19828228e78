"""The structure the design card promises, checked rather than remembered: layered imports
without circles (import-linter's contracts in pyproject.toml), files under 400 lines, no dead
code (vulture), one package at the top level of an install, and plugins found by entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
MAX_LINES = 400


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{name} is not installed beside {sys.executable}: pip install -e '.[dev]'")
    return str(path)


def test_import_contracts_hold() -> None:
    """Layers core -> relax | tir -> properties -> integrations, relax and tir independent, and
    no circle between sibling modules (the contracts and their reasons are in pyproject.toml)."""
    proc = subprocess.run([_tool("lint-imports")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_no_file_over_400_lines() -> None:
    """The package, and the tests, benchmarks and examples beside it (TVM's own test modules,
    kept as a fixture as TVM wrote them, excepted)."""
    fixtures = ROOT / "tests" / "fixtures"
    big = {str(p.relative_to(ROOT)): n
           for folder in ("passcheck", "properties", "tests", "benchmarks", "examples") for p in (ROOT / folder).rglob("*.py")
           if fixtures not in p.parents and (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not big, f"split these by concern: {big}"


def test_no_dead_code() -> None:
    """vulture at its strictest confidence (60%), over the package and everything that uses it;
    names used only from outside Python's view (entry points, hooks) are in vulture_whitelist.py."""
    proc = subprocess.run([_tool("vulture")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_install_puts_only_passcheck_at_top_level(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = tmp_path.glob("passcheck-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"passcheck"}, top
    assert "passcheck/properties/generic.py" in names
    # the kept repros of known TVM bugs (`passcheck known show`, `--check`) ship in the wheel
    for family in ("relax", "tir"):
        assert any(n.startswith(f"passcheck/{family}/known_bugs/repros/") and n.endswith(".py") and
                   not n.endswith("__init__.py") for n in names), family
    assert not any(n.startswith("properties/") for n in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[passcheck.families]" in text and "[passcheck.properties]" in text


def test_third_party_property_package_is_found_by_entry_point(tmp_path: Path) -> None:
    """A package that registers under the passcheck.properties entry point group has its
    properties run (in the worker too) with no --properties flag."""
    pkg = tmp_path / "toy_props"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent('''
        from passcheck import prop, require

        @prop("FoldConstant")
        def toy_plugin_property(case) -> None:
            "Holds whenever the pass returned a module."
            require(case.after is not None or case.raised is not None, "no module and no exception")
    '''))
    dist = tmp_path / "toy_props-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-props\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[passcheck.properties]\ntoy = toy_props\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    report = tmp_path / "report.json"
    # (this is about finding the plugin: a registered TVM bug FoldConstant's graphs meet is no failure here)
    proc = subprocess.run([sys.executable, "-m", "passcheck", "FoldConstant", "--examples", "3", "--no-progress",
                           "--ignore-known", "--findings-dir", str(tmp_path / "f"), "--report", f"json:{report}"],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert json.loads(report.read_text())["properties"]["toy_plugin_property"]["held"] == 3


def test_broken_property_plugin_is_a_usage_error(tmp_path: Path) -> None:
    pkg = tmp_path / "broken_props"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise RuntimeError('broken on purpose')\n")
    dist = tmp_path / "broken_props-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-props\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[passcheck.properties]\nbroken = broken_props\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "passcheck", "FoldConstant", "--examples", "2", "--no-progress"],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "broken_props" in proc.stderr and "broken on purpose" in proc.stderr
