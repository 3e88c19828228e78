"""The example database: a failure is saved, the next run replays it first, a fixed one is
forgotten, and ``passcheck replay`` says which saved failures still fail and which are fixed.

A pass author's workflow for real: the implementation is a file the test rewrites (buggy, then
fixed), run through the CLI and the engine with a database directory of its own.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from passcheck.core.engine.database import FailureStore, open_database
from passcheck.core.engine.results import RunConfig
from passcheck.core.engine.run import run
from passcheck.core.subject import Options

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")
PASSCHECK = str(Path(sys.executable).with_name("passcheck"))

BUGGY_IMPL = f'''
import importlib.util
spec = importlib.util.spec_from_file_location("buggy_passes", {str(BUGGY)!r})
buggy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(buggy)

def make_pass():
    return buggy.fuse_ops_drops_channel()
'''

FIXED_IMPL = '''
from tvm import relax

def make_pass():
    return relax.transform.FuseOps()
'''


def _run(impl: Path, db: Path, examples: int, tmp_path: Path):  # noqa: ANN202
    spec = f"{impl}:make_pass"
    return run(RunConfig(subject="FuseOps", impl=spec, examples=examples, seed=1, properties=("matches_unfused_bitwise",),
                         shrink_seconds=15, database=str(db), findings_dir=str(tmp_path / "findings"),
                         options=Options(impl=spec)))


def test_a_saved_failure_is_replayed_first_and_forgotten_once_fixed(tmp_path: Path) -> None:
    impl, db = tmp_path / "my_fuse.py", tmp_path / "db"
    impl.write_text(textwrap.dedent(BUGGY_IMPL))
    first = _run(impl, db, 40, tmp_path)
    assert [f.property for f in first.findings] == ["matches_unfused_bitwise"]
    saved = FailureStore(open_database(str(db))).everything()
    assert [s.example for _, s in saved] == [first.findings[0].example]

    # One drawn example only: the failure is found again because it is replayed first.
    second = _run(impl, db, 1, tmp_path)
    assert second.replayed == 1 and second.examples == 2
    assert second.findings and second.findings[0].example == first.findings[0].example

    impl.write_text(textwrap.dedent(FIXED_IMPL))
    third = _run(impl, db, 1, tmp_path)
    assert third.replayed == 1 and not third.findings
    assert FailureStore(open_database(str(db))).everything() == []


def test_replay_command_says_what_still_fails_and_what_is_fixed(tmp_path: Path) -> None:
    impl, db = tmp_path / "my_fuse.py", tmp_path / "db"
    impl.write_text(textwrap.dedent(BUGGY_IMPL))
    cli = [PASSCHECK, "FuseOps", "--impl", f"{impl}:make_pass", "--examples", "40", "--seed", "1",
           "--property", "matches_unfused_bitwise", "--shrink-time", "15", "--db", str(db),
           "--findings-dir", str(tmp_path / "findings"), "--no-progress"]
    assert subprocess.run(cli, capture_output=True, text=True, cwd=tmp_path).returncode == 1

    replay = [PASSCHECK, "replay", "--db", str(db)]
    still = subprocess.run(replay, capture_output=True, text=True, cwd=tmp_path)
    assert still.returncode == 1, still.stdout + still.stderr
    assert "still fails" in still.stdout and "1 still fail, 0 do not" in still.stdout

    impl.write_text(textwrap.dedent(FIXED_IMPL))
    fixed = subprocess.run(replay + ["--forget-fixed"], capture_output=True, text=True, cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "fixed" in fixed.stdout and "0 still fail, 1 do not" in fixed.stdout
    empty = subprocess.run(replay, capture_output=True, text=True, cwd=tmp_path)
    assert empty.returncode == 0 and "no saved failures" in empty.stdout


def test_bad_database_is_one_line_and_exit_2(tmp_path: Path) -> None:
    afile = tmp_path / "file.txt"
    afile.write_text("not a directory")
    for db in (str(afile), "redis://127.0.0.1:1"):
        proc = subprocess.run([PASSCHECK, "FoldConstant", "--examples", "1", "--db", db], capture_output=True,
                              text=True, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "--db" in proc.stderr
