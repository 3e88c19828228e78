"""Packaging: Python 3.11-3.13, and a run started from a directory holding another ``passcheck/``
folder (a checkout, with passcheck installed from it) uses the installed package in its workers."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_supported_pythons() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11,<3.14"
    for minor in (11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in project["classifiers"]


def test_workers_ignore_a_passcheck_folder_in_the_working_directory(tmp_path: Path) -> None:
    shadow = tmp_path / "passcheck"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('the shadowing folder was imported')\n")
    proc = subprocess.run([str(Path(sys.executable).parent / "passcheck"), "FoldConstant", "--examples", "2",
                           "--no-progress"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
