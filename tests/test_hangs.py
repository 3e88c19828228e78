"""Hangs in seconds: the per-example time limit adapts to the run's example times, a hanging
example is found, confirmed and shrunk without the old minute per hang, and no worker outlives
its runner however the runner ends (SIGTERM, SIGKILL, Ctrl-C), and what such a runner leaves
on disk (its run directory, its workers' logs) the next runner removes.

Real runners (the CLI in a subprocess), real worker processes, a real pass that spins forever
(tests/buggy_passes.py). How long a 200-example run of a pass that hangs on one input in ten
takes is measured by benchmarks/hangs.py, not asserted here.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import passcheck
from passcheck.core import workdir
from passcheck.core.engine.explore import Slot
from passcheck.core.engine.shrink import _confirmed, shrink
from passcheck.core.engine.timeouts import CONFIRM, FACTOR, FLOOR, MIN_SAMPLES, START, TimeLimit
from passcheck.core.outcome import ExampleResult, Outcome, Verdict

ROOT = Path(__file__).resolve().parents[1]
BUGGY = ROOT / "tests" / "buggy_passes.py"
PASSCHECK = str(Path(sys.executable).with_name("passcheck"))


def test_the_limit_follows_the_run() -> None:
    limit = TimeLimit()
    assert limit.adaptive and limit.seconds == START
    for s in [0.1] * (MIN_SAMPLES - 1):
        limit.observe(s)
    assert limit.seconds == START, "too few examples measured to adapt"
    limit.observe(0.1)
    assert limit.seconds == FLOOR, "20x a tenth of a second is under the floor"
    for s in [2.0] * 100:
        limit.observe(s)
    assert limit.seconds == pytest.approx(FACTOR * 2.0)
    assert "p95" in limit.describe()
    fixed = TimeLimit(7.0)
    fixed.observe(100.0)
    assert not fixed.adaptive and fixed.seconds == 7.0


def test_a_hang_is_found_confirmed_and_shrunk_under_the_adapted_limit(tmp_path: Path) -> None:
    """No --timeout: the examples that hang are cut after a few seconds, confirmed alone with
    twice as long, reported as a timeout finding naming the limit, and shrunk."""
    # (seed 8: one of its 15 graphs is one the buggy pass hangs on, after the first batch)
    result = passcheck.check("FoldConstant", impl=f"{BUGGY}:fold_constant_hangs_one_in_ten", examples=15, seed=8,
                             properties=("pass_does_not_raise",), shrink_seconds=20.0, jobs=2,
                             findings_dir=str(tmp_path / "findings"))
    hangs = [f for f in result.findings if f.kind == "timeout"]
    assert hangs, [f.message for f in result.findings]
    assert "the run's p95 example time" in hangs[0].message or "first examples" in hangs[0].message
    assert "p95" in result.timeout_rule  # (how many seconds that is depends on the machine's load)
    assert result.stats["pass_does_not_raise"].violated >= 1
    assert result.stats["pass_does_not_raise"].held >= 10
    # shrinking tried its candidates under the limit alone and confirmed the one it kept
    assert f"no result after {CONFIRM * result.timeout_s:.3g} s" in hangs[0].message
    assert hangs[0].shrunk
    repro = Path(hangs[0].repro).read_text()
    assert f"timeout={round(CONFIRM * result.timeout_s, 1)!r}" in repro


def _descendants(pid: int) -> set[int]:
    """Every live process under ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in found:
                found.add(c)
                todo.append(c)
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper is dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the worker processes")
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL", "ctrl-c"])
def test_no_worker_outlives_its_runner(how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A runner whose worker spins forever in the pass under test is killed; within seconds
    no process it started is left, and the next runner removes the files it left."""
    mark = tmp_path / "hanging-worker.pid"
    # the runner's temp folder (short: the fork server's socket lives there, AF_UNIX caps its path)
    tmp = Path(tempfile.mkdtemp(prefix="pc-"))
    env = dict(os.environ, PASSCHECK_HANG_MARK=str(mark), TMPDIR=str(tmp))
    runner = subprocess.Popen(
        [PASSCHECK, "FoldConstant", "--impl", f"{BUGGY}:fold_constant_hangs_marked", "--examples", "5",
         "--timeout", "600", "--jobs", "1", "--no-db", "--no-progress", "--findings-dir", str(tmp_path / "f")],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        # as from a terminal: SIGINT handled. A disposition inherited from this test process (another
        # test in the same xdist worker may leave SIGINT ignored) would make the runner deaf to Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    started: set[int] = set()
    try:
        deadline = time.monotonic() + 240
        while not (mark.exists() and mark.read_text()) and time.monotonic() < deadline:
            assert runner.poll() is None, runner.communicate()[0]
            time.sleep(0.2)
        assert mark.exists(), "the worker never reached the hanging pass"
        worker = int(mark.read_text())
        started = _descendants(runner.pid)
        assert worker in started and _alive(worker)
        if how == "ctrl-c":  # the terminal sends SIGINT to the whole foreground group
            os.killpg(runner.pid, signal.SIGINT)
        else:
            runner.send_signal(getattr(signal, how))
        runner.wait(timeout=60)
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [p for p in started if _alive(p)]
        assert not _alive(worker), f"the hanging worker {worker} outlived its runner ({how})"
        assert not left, f"processes of the runner left after {how}: {left}"
        mine = sorted(p.name for p in tmp.iterdir() if p.name.startswith(f"passcheck-run-{runner.pid}-")
                      or p.name.startswith(f"passcheck-worker-{runner.pid}-"))
        if how == "SIGKILL":  # nothing of the runner ran after the signal: its run directory and log stay
            assert any(n.startswith("passcheck-run-") for n in mine), mine
            assert any(n.startswith("passcheck-worker-") for n in mine), mine
        monkeypatch.setattr("tempfile.tempdir", str(tmp))
        live = tmp / f"passcheck-run-{os.getpid()}-live"  # a runner still alive (this one) keeps its own
        live.mkdir()
        workdir.create()  # what the next runner does first
        left_on_disk = [p.name for p in tmp.iterdir() if p.name in mine]
        assert not left_on_disk, f"the next runner left what the {how} runner did: {left_on_disk}"
        assert live.is_dir()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if runner.poll() is None:
            runner.kill()
        for p in started | _descendants(runner.pid):  # what this test started, should the check fail
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


class _Evaluate:
    """Answers a shrink's confirmation with a result that hangs again or one that holds."""

    def __init__(self, hangs: bool) -> None:
        self.hangs, self.confirmed = hangs, 0

    def confirm(self, example: object) -> ExampleResult:
        self.confirmed += 1
        verdict = Verdict.HANG if self.hangs else Verdict.HELD
        return ExampleResult(outcomes={"pass_does_not_raise": Outcome(verdict, "no result after 2 s")})


class _Record:
    def known_bug(self, *_args: object) -> None:
        return None


@pytest.mark.parametrize("hangs_again", [True, False])
def test_a_shrunk_hang_counts_only_once_it_hangs_again_with_more_time(hangs_again: bool) -> None:
    """Shrinking tries each candidate once under the limit (a hanging one costs one limit, not
    three): the smallest it keeps is run again alone with CONFIRM times the limit, and dropped
    (the finding keeps its first example) when it finishes then."""
    slot = Slot("pass_does_not_raise")
    cut = ExampleResult(outcomes={slot.prop: Outcome(Verdict.HANG, "no result after 1 s")})
    evaluate = _Evaluate(hangs_again)
    best = _confirmed(evaluate, _Record(), {slot: (Verdict.HANG, None)}, {slot: ("small", cut.outcomes[slot.prop], cut)})
    assert evaluate.confirmed == 1
    assert (slot in best) == hangs_again
    if hangs_again:
        assert best[slot][1].message == "no result after 2 s"


def test_shrinking_turns_the_confirmation_off_and_back_on() -> None:
    """While shrinking, an adapted limit does not confirm a hang (Evaluator reads it), and it does
    again once shrinking is over, whatever happened in between."""
    limit = TimeLimit()
    seen: list[bool] = []

    class Pool:
        jobs = 1

        def __init__(self) -> None:
            self.limit = limit

        def __call__(self, example: object) -> ExampleResult:
            seen.append(limit.confirm)
            raise RuntimeError("the worker pool went away")

    record = _Record()
    record.first_fail = {Slot("p"): ("ex", Outcome(Verdict.HANG, "no result"), ExampleResult())}  # type: ignore[attr-defined]
    record.known = {Slot("p"): None}  # type: ignore[attr-defined]
    record.first_call = {Slot("p"): (-1, 0)}  # type: ignore[attr-defined]  # (a saved failure: no hunt)
    plan = SimpleNamespace(config=SimpleNamespace(shrink_seconds=1.0),
                           subject=SimpleNamespace(simplifications=lambda example: ["smaller"]))
    with pytest.raises(RuntimeError, match="went away"):
        shrink(plan, Pool(), record)  # type: ignore[arg-type]
    assert seen == [False] and limit.confirm
