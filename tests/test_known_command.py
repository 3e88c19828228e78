"""``passcheck known``: the registry of kept TVM bugs, each bug's repro as a script that ships
with passcheck, and ``--check``, which runs the kept repros on the installed TVM and reports a
fixed one as pytest reports an XPASS (a fixed bug is faked here: a declaration whose repro holds)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import passcheck.relax  # noqa: F401  (declares the Relax bugs)
import passcheck.tir  # noqa: F401
import passcheck.tir.gpu  # noqa: F401
from passcheck.core.known import KNOWN_BUGS, REPROS, KnownBug, keep_repro, load_repros, register_known_bug
from passcheck.integrations.cli import main
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

BIN = Path(sys.executable).with_name("passcheck")
MESHGRID = "test_meshgrid_single_tensor_legalize"
SCRIPTED = "test_get_sblock_of_an_init_block_fails_an_internal_check"
# A graph every pass takes: FoldConstant does not raise on it.
RELU = GraphSpec(inputs=(TensorDecl("p0", (2,), "float32", False),),
                 nodes=(Node("relu", (0,), (), (2,), "float32"),), outputs=(1,))


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN), *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_every_registered_bug_ships_a_repro() -> None:
    repros = load_repros()
    missing = [b.name for b in KNOWN_BUGS.values() if not repros.get(b.name)]
    assert not missing, f"declared without a shipped repro (passcheck/*/known_bugs/repros/): {missing}"
    unknown = sorted(set(repros) - set(KNOWN_BUGS.names()))
    assert not unknown, f"repros of no declared bug: {unknown}"
    for name, rs in repros.items():
        for r in rs:
            assert r.script or (r.subject and r.prop and r.example is not None), (name, r)


def test_the_repros_ship_in_the_package_not_in_tests() -> None:
    import passcheck.relax.known_bugs.repros as relax_repros
    import passcheck.tir.known_bugs.repros as tir_repros

    for package in (relax_repros, tir_repros):
        assert "/tests/" not in package.__file__


def test_importing_a_repros_package_does_not_hide_its_repros() -> None:
    # (a fresh process: this one may have loaded the repros already)
    code = ("import passcheck.relax.known_bugs.repros, passcheck.relax.known_bugs\n"
            "from passcheck.core.known import load_repros\n"
            "print(sum(map(len, load_repros().values())))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert int(run.stdout.strip()) > 100, run.stdout  # every shipped repro, not none


def test_known_lists_each_bug_with_where_and_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["known"]) == 0
    out = capsys.readouterr().out
    assert f"{len(KNOWN_BUGS)} known TVM bugs; this run's TVM 0.27" in out
    for b in KNOWN_BUGS.values():
        assert b.name in out, b.name
    assert "pipeline: every_build_runs; FoldConstant: pass_does_not_raise" in out  # the meshgrid bug
    assert "(seen on TVM 0.27.0.post1)" in out


def test_show_prints_a_script_that_reproduces(tmp_path: Path) -> None:
    proc = _cli("known", "show", MESHGRID, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    script = tmp_path / "repro.py"
    script.write_text(proc.stdout)
    assert "tests/" not in proc.stdout and "from passcheck.relax.spec import GraphSpec, Node, TensorDecl" in proc.stdout
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr  # still reproduces on this TVM
    assert "must be TupleType" in run.stdout


def test_show_of_a_bug_kept_as_a_tvm_program(tmp_path: Path) -> None:
    proc = _cli("known", "show", SCRIPTED, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "passcheck" not in proc.stdout.split('"""', 2)[2]  # TVM alone
    run = subprocess.run([sys.executable, "-c", proc.stdout], capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "reproduces" in run.stdout, run.stdout + run.stderr


def test_show_tvmscript_prints_the_input_module(tmp_path: Path) -> None:
    proc = _cli("known", "show", MESHGRID, "--tvmscript", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "# FoldConstant / pass_does_not_raise: raised" in proc.stdout
    assert "R.meshgrid" in proc.stdout and "@I.ir_module" in proc.stdout


def test_an_unknown_name_or_flag_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["known", "show", "test_meshgrid_single_tensor_legalise"], ["known", "--bogus"],
                 ["known", "show", MESHGRID, SCRIPTED]):
        assert main(args) == 2, args
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1, err
        if "legalise" in args[-1]:
            assert "did you mean test_meshgrid_single_tensor_legalize" in err


@pytest.fixture
def faked() -> Iterator[None]:
    """Two declarations that are not TVM's: one whose repro holds (a bug TVM "fixed"), one whose
    repro fails as another known bug does (its finding "changed")."""
    load_repros()
    register_known_bug(KnownBug(name="test_fake_fixed_bug", repro="tests/test_known_command.py",
                                note="a bug this TVM has fixed", subjects=("FoldConstant",),
                                properties=("pass_does_not_raise",), message="never said"))
    keep_repro("test_fake_fixed_bug", "FoldConstant", "pass_does_not_raise", RELU)
    register_known_bug(KnownBug(name="test_fake_changed_bug", repro="tests/test_known_command.py",
                                note="a bug whose repro now fails as another", subjects=("FoldConstant",),
                                properties=("pass_does_not_raise",), message="never said either"))
    meshgrid = next(r for r in REPROS[MESHGRID] if r.subject == "FoldConstant")
    keep_repro("test_fake_changed_bug", "FoldConstant", "pass_does_not_raise", meshgrid.example)
    yield
    for name in ("test_fake_fixed_bug", "test_fake_changed_bug"):
        KNOWN_BUGS.remove(name)
        REPROS.pop(name, None)


@pytest.mark.usefixtures("faked")
def test_check_reports_a_fixed_bug_as_xpass(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["known", "--check", "--jobs", "2", MESHGRID, "test_fake_fixed_bug"])
    out = capsys.readouterr().out
    assert f"REPRODUCES   {MESHGRID}" in out, out
    assert "XPASS        test_fake_fixed_bug" in out, out
    assert "FoldConstant / pass_does_not_raise: held" in out and "fixed since TVM 0.27.0.post1" in out
    assert "== 1 reproduce, 1 fixed (XPASS), 0 changed" in out
    assert code == 0  # as pytest's non-strict xfail: a fix is news, not a failure ...
    assert main(["known", "--check", "--strict", "test_fake_fixed_bug"]) == 1  # ... unless --strict
    capsys.readouterr()


@pytest.mark.usefixtures("faked")
def test_check_reports_a_repro_that_now_fails_as_another_bug(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["known", "--check", "test_fake_changed_bug"])
    out = capsys.readouterr().out
    assert "CHANGED      test_fake_changed_bug" in out and f"now the known bug {MESHGRID}" in out, out
    assert code == 1


def test_check_runs_a_tvm_program_repro(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["known", "--check", SCRIPTED]) == 0
    assert f"REPRODUCES   {SCRIPTED}" in capsys.readouterr().out
