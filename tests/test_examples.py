"""Every file in examples/ is exercised here (few examples each): the CI workflow's scripts run
as CI would run them; the other files are covered by the tests named in EXERCISED."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import xmlschema

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / "examples" / "ci" / "passcheck.yml"
BIN = Path(sys.executable).parent
# example file -> the test that runs it
EXERCISED = {
    "README.md": "tests/test_cli.py::test_user_property_file_runs_and_is_reported",  # its commands
    "my_fold_constant.py": "tests/test_cli.py::test_pass_authors_impl_holds",
    "properties_example.py": "tests/test_cli.py::test_user_property_file_runs_and_is_reported",
    "test_with_pytest.py": "tests/test_cli.py::test_example_pytest_file_passes",
    "planted_bug.py": "tests/test_pytest_integration.py",
    "test_strategies.py": "tests/test_pytest_integration.py::test_strategies_example_finds_the_planted_bug",
    "ci/passcheck.yml": "tests/test_examples.py",
}


def test_every_example_file_is_exercised() -> None:
    files = {str(p.relative_to(ROOT / "examples")) for p in (ROOT / "examples").rglob("*") if p.is_file()
             and "__pycache__" not in p.parts}
    assert files == set(EXERCISED), files ^ set(EXERCISED)
    for test in EXERCISED.values():
        path, _, name = test.partition("::")
        assert (ROOT / path).is_file() and (not name or f"def {name}(" in (ROOT / path).read_text()), test


def step_script(name: str) -> str:
    """The ``run: |`` script of the workflow step called ``name`` (dedented)."""
    text = WORKFLOW.read_text()
    block = text.split(f"- name: {name}", 1)[1]
    lines = block.split("run: |\n", 1)[1].splitlines()
    indent = len(lines[0]) - len(lines[0].lstrip())
    out = []
    for line in lines:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        out.append(line[indent:])
    return "\n".join(out)


def bash(script: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    path = f"{BIN}:{os.environ['PATH']}"
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PATH": path, **(env or {})}, timeout=900)


def test_workflow_picks_the_passes_a_pr_touches(tmp_path: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "src/relax/transform").mkdir(parents=True)
    (tmp_path / "src/relax/transform/fold_constant.cc").write_text("a")
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=tmp_path, check=True)
    subprocess.run([*git, "update-ref", "refs/remotes/origin/main", "HEAD"], cwd=tmp_path, check=True)
    (tmp_path / "src/relax/transform/fold_constant.cc").write_text("b")
    (tmp_path / "src/relax/transform/convert_layout.cc").write_text("c")
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "pr"], cwd=tmp_path, check=True)
    out = tmp_path / "github_output"
    script = step_script("Passes the PR touches").replace("${{ github.base_ref }}", "main")
    proc = bash(script, tmp_path, {"GITHUB_OUTPUT": str(out)})
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().strip() == "passes= FoldConstant AlterOpLayout"


def test_workflow_runs_passcheck_and_writes_valid_junit(tmp_path: Path) -> None:
    script = step_script("passcheck").replace("${{ steps.passes.outputs.passes }}", "FoldConstant")
    script = re.sub(r"--examples \d+", "--examples 5", script)
    proc = bash(script, tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    xmlschema.XMLSchema(str(ROOT / "tests/fixtures/junit.xsd")).validate(str(tmp_path / "reports/FoldConstant.xml"))
    (tmp_path / "tests/passcheck_corpus/FuseOps").mkdir(parents=True)
    (tmp_path / "tests/passcheck_corpus/FuseOps/mlp.py").write_text((ROOT / "tests/corpus/relax/mlp.py").read_text())
    proc = bash(step_script("The fork's own modules (Before modules kept in tests/passcheck_corpus/<PASS>/)"),
                tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "corpus: 1 module(s) checked first" in proc.stdout
    assert (tmp_path / "reports/corpus-FuseOps.xml").is_file()
