"""The TVM passcheck runs on is the one installed: read at start (version, git commit), named in
the table's header and every report, and refused, in one line with exit 2, when it is outside
the supported 0.27 line. Two other TVMs stand in for a pass author's build: a TVM that says it is
0.26 (refused before anything runs) and the installed one presenting itself as a 0.27 source
build with a commit (accepted, and named so everywhere)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from passcheck.core.tvm_build import SUPPORTED_RANGE, TVMBuild, supported, tvm_build

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).with_name("passcheck")
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize("version", ["0.27.0", "0.27.0.post1", "0.27.dev0", "0.27.dev123+g1a2b3c4", "0.27.1rc1",
                                     "v0.27.2"])
def test_the_0_27_line_is_supported(version: str) -> None:
    assert supported(version)


@pytest.mark.parametrize("version", ["0.26.0", "0.28.dev0", "0.2.7", "1.27.0", "0.270.0", "unknown", ""])
def test_other_versions_are_not(version: str) -> None:
    assert not supported(version)


def test_the_dependency_range_is_the_supported_one() -> None:
    """pyproject.toml's requirement and the check at start say the same."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    tvm = [d for d in deps if re.match(r"apache-tvm\b(?!-)", d)]
    assert tvm == [f"apache-tvm{SUPPORTED_RANGE}"]


def test_the_installed_tvm_is_read() -> None:
    import tvm

    build = tvm_build()
    assert build.version == tvm.__version__ and supported(build.version)
    assert Path(build.path) == Path(tvm.__file__).resolve().parent
    assert build.describe().startswith(f"TVM {build.version} (")


def test_a_commit_is_named_by_its_first_twelve_digits() -> None:
    assert TVMBuild("0.27.dev3", COMMIT).describe() == "TVM 0.27.dev3 (commit 0123456789ab)"
    assert TVMBuild("0.27.0.post1").describe() == "TVM 0.27.0.post1 (commit not recorded)"


def _passcheck(args: list[str], cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([str(BIN), *args], cwd=cwd, capture_output=True, text=True, timeout=600, env=env)


def test_a_tvm_outside_the_line_is_refused_in_one_line(tmp_path: Path) -> None:
    stub = tmp_path / "old-tvm" / "tvm"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text('__version__ = "0.26.0"\n')
    for args in (["FuseOps", "--examples", "5"], ["list"], ["known"]):
        proc = _passcheck(args, tmp_path, stub.parent)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and proc.stdout == "", proc.stderr
        assert "TVM 0.26.0" in lines[0] and f"supports TVM 0.27 ({SUPPORTED_RANGE}" in lines[0], lines[0]
    assert _passcheck(["list", "--help"], tmp_path, stub.parent).returncode == 0  # help needs no TVM


def _source_build(tmp_path: Path) -> Path:
    """The installed TVM, presenting itself as a 0.27 source build that records its commit."""
    import tvm

    real = Path(tvm.__file__).resolve().parent
    stub = tmp_path / "source-build" / "tvm"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text(textwrap.dedent(f'''
        __path__ = [{str(real)!r}]
        __file__ = {str(real / "__init__.py")!r}
        exec(compile(open(__file__).read(), __file__, "exec"))
        __version__ = "0.27.1.dev7+g0123456"
        support.libinfo = lambda: {{"GIT_COMMIT_HASH": {COMMIT!r}}}
    '''))
    return stub.parent


def test_a_source_build_of_the_line_runs_and_is_named_everywhere(tmp_path: Path) -> None:
    path = _source_build(tmp_path)
    reports = {f: tmp_path / f"report.{f}" for f in ("json", "junit", "html")}
    args = ["FoldConstant", "--examples", "4", "--no-progress", "--no-db", "--jobs", "1"]
    args += [a for f, p in reports.items() for a in ("--report", f"{f}:{p}")]
    proc = _passcheck(args, tmp_path, path)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    shown = "TVM 0.27.1.dev7+g0123456 (commit 0123456789ab)"
    assert shown in proc.stdout, proc.stdout  # the table's header
    report = json.loads(reports["json"].read_text())
    assert report["tvm"]["version"] == "0.27.1.dev7+g0123456" and report["tvm"]["commit"] == COMMIT
    props = {p.get("name"): p.get("value") for p in ET.parse(reports["junit"]).getroot().iter("property")}
    assert props["tvm.version"] == "0.27.1.dev7+g0123456" and props["tvm.commit"] == COMMIT
    assert shown in reports["html"].read_text()


def test_the_readme_names_the_dependencies_a_source_build_installs_by_hand() -> None:
    """`pip install --no-deps passcheck` plus "the rest": the README's list is pyproject's, TVM and
    its FFI left out."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    rest = sorted(d for d in deps if not d.startswith("apache-tvm"))
    readme = (ROOT / "README.md").read_text()
    line = next(x for x in readme.splitlines() if x.startswith("pip install \"hypothesis"))
    assert sorted(re.findall(r'"([^"]+)"', line)) == rest, line
