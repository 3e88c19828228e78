"""--jobs and --batch: one result per seed whatever the number of workers and the batch size
(same examples, same table, same findings, same shrunk examples), a crash in a batch still
attributed to exactly its example, and the time per stage and coverage in the report.

Real passes with a real bug on top (tests/buggy_passes.py), real workers, real compiles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from passcheck.core.engine.results import RunConfig, RunResult
from passcheck.core.engine.run import run
from passcheck.core.subject import Options

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")


def _run(tmp_path: Path, subject: str, bug: str, examples: int, seed: int, jobs: int, batch: int,
         **kw: Any) -> RunResult:
    impl = f"{BUGGY}:{bug}"
    # Shrinking stops at its time budget: the same seed gives the same shrunk example once the
    # shrinker reaches its fixed point, so the budget here is far above what that takes (a few
    # seconds alone; a loaded CI machine ran out of 20 s with one --jobs and not the other)
    return run(RunConfig(subject=subject, impl=impl, examples=examples, seed=seed, jobs=jobs, batch=batch,
                         shrink_seconds=300, findings_dir=str(tmp_path / f"f{jobs}-{batch}"),
                         options=Options(impl=impl), **kw))


def _outcome(r: RunResult) -> Any:
    """Everything a user sees of a run's result (the JSON report without times and paths)."""
    d = r.to_dict()
    return (d["examples"], d["rejected_examples"], d["discarded_examples"], d["properties"], d["coverage"],
            [(f.property, str(f.kind), f.message, repr(f.example), f.shrunk, f.also_failing) for f in r.findings])


def test_jobs_and_batches_give_one_result_per_seed(tmp_path: Path) -> None:
    one = _run(tmp_path, "FuseOps", "fuse_ops_drops_channel", 40, 1, jobs=1, batch=1)
    two = _run(tmp_path, "FuseOps", "fuse_ops_drops_channel", 40, 1, jobs=2, batch=8)
    assert one.findings, "the planted bug must be found for the comparison to mean something"
    assert _outcome(one) == _outcome(two)
    # shrinking stays minimal: two ops (a fused group needs two)
    assert all(len(f.example.nodes) <= 2 for f in two.findings)


def test_a_crash_in_a_batch_is_attributed_to_its_example(tmp_path: Path) -> None:
    """The segfaulting pass kills the worker in the middle of a batch: the batch is re-run
    example by example and the crash lands on the same example as with no batches at all."""
    one = _run(tmp_path, "FoldConstant", "fold_constant_segfaults_on_exp", 24, 4, jobs=1, batch=1,
               properties=("pass_does_not_raise",))
    two = _run(tmp_path, "FoldConstant", "fold_constant_segfaults_on_exp", 24, 4, jobs=2, batch=8,
               properties=("pass_does_not_raise",))
    assert [(f.property, str(f.kind)) for f in two.findings] == [("pass_does_not_raise", "crash")]
    assert {"exp", "tanh"} & set(two.findings[0].example.ops())  # what the planted bug crashes on
    assert _outcome(one) == _outcome(two)
    crashes = one.stats["pass_does_not_raise"].violated
    assert crashes >= 2 and two.stats["pass_does_not_raise"].violated == crashes


def test_report_has_time_per_stage_and_coverage(tmp_path: Path) -> None:
    r = run(RunConfig(subject="FuseOps", examples=12, jobs=2, batch=4, findings_dir=str(tmp_path)))
    d = r.to_dict()
    assert d["jobs"] == 2
    for stage in ("generate", "build", "prerequisites", "pass", "lower", "codegen", "run", "reference"):
        assert d["timings"].get(stage, 0) > 0, stage
    cov = d["coverage"]
    assert sum(cov["dtypes"].values()) >= 12 and cov["ops"] and cov["op pairs"] and cov["fusion groups"]
    assert all(n <= 12 for n in cov["ops"].values())  # counted once per example


def test_long_runs_draw_in_rounds_with_the_same_result(tmp_path: Path, monkeypatch: Any) -> None:
    """Long runs draw in rounds (seeds derived from the run's) so the runner's memory stays
    flat; rounds of 10 here, on the transformation alone (cheap), with 1 and 2 workers."""
    from passcheck.core.engine import explore

    monkeypatch.setattr(explore, "ROUND", 10)
    runs = [run(RunConfig(subject="FoldConstant", examples=25, seed=4, jobs=jobs, batch=batch,
                          properties=("pass_does_not_raise", "well_formed"), findings_dir=str(tmp_path)))
            for jobs, batch in ((1, 1), (2, 4))]
    assert runs[0].examples == 25
    assert _outcome(runs[0]) == _outcome(runs[1])


CRASHING_PROPERTY = '''
import ctypes

from passcheck import prop


@prop("FoldConstant")
def reads_address_zero(case):
    "Kills its worker (SIGSEGV) while checking a graph with an exp."
    if "exp" in case.spec.ops():
        ctypes.string_at(0)
'''


def test_a_crash_while_checking_keeps_the_example_ir(tmp_path: Path) -> None:
    """The pass ran before the check killed the worker: the finding still has the input and
    output IR (what a known bug's pattern reads and what the repro shows), asked of a fresh worker."""
    props = tmp_path / "crashing.py"
    props.write_text(CRASHING_PROPERTY)
    r = run(RunConfig(subject="FoldConstant", examples=30, seed=4, jobs=1, properties=("reads_address_zero",),
                      property_files=(str(props),), shrink_seconds=60, findings_dir=str(tmp_path / "f")))
    [f] = r.findings
    assert str(f.kind) == "crash" and "SIGSEGV" in f.message
    assert "R.exp(" in f.input_script and "@I.ir_module" in f.output_script
    assert "R.exp(" in next((tmp_path / "f").rglob("input_ir.py")).read_text()


def test_a_shrunk_example_fails_alone_or_is_not_kept(tmp_path: Path) -> None:
    """The planted pass raises on a tanh and, after one, on everything its process sees: shrinking
    in that worker finds smaller 'failures' without a tanh that a fresh process does not repeat.
    The finding is an example that fails alone (its repro does), with the tanh."""
    from passcheck.core.engine.repro import recheck

    r = _run(tmp_path, "FoldConstant", "fold_constant_poisoned_by_tanh", 30, 4, jobs=1, batch=1,
             properties=("pass_does_not_raise",))
    [f] = r.findings
    assert "tanh" in f.example.ops(), f.example
    assert recheck("FoldConstant", "pass_does_not_raise", f.example, impl=f"{BUGGY}:fold_constant_poisoned_by_tanh") == 1


@pytest.mark.parametrize("batch", [1, 8])
def test_a_failure_only_beside_another_example_is_no_finding(tmp_path: Path, batch: int) -> None:
    """The planted pass raises on the example after a tanh in its worker, which holds alone: the
    run records what each example does alone (no finding whose repro holds) and counts the rest."""
    from passcheck.core.engine.explore import BESIDE_ITS_BATCH

    r = _run(tmp_path, "FoldConstant", "fold_constant_fails_after_tanh", 60, 4, jobs=1, batch=batch,
             properties=("pass_does_not_raise",))
    assert not r.findings, [(f.message, f.example) for f in r.findings]
    assert r.counts.get(BESIDE_ITS_BATCH, 0) >= 1, r.counts
    assert any(BESIDE_ITS_BATCH in n for note in r.example_notes for n in note["notes"]), r.example_notes
