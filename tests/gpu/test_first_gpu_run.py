"""The first GPU run, checked here: real entries from the H200 (tests/fixtures/gpu-run-2026-11-27-h200,
one per group of anomalies and two dlight entries) go through ``passcheck bundle check``:
every kind of bundle (TIR primitives, ``schedule``, ``dlight``, Relax ``FuseOps``) is judged,
every anomaly is recognised as a kept TVM bug, and with ``--static`` some static check flags
every anomaly's example (the agreement of the static model with the hardware)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from passcheck.integrations.cli import main

RUN = Path(__file__).parent.parent / "fixtures" / "gpu-run-2026-11-27-h200"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    dest = tmp_path / "run"
    shutil.copytree(RUN, dest)
    return dest


def test_every_bundle_kind_is_checked_and_every_anomaly_is_a_known_bug(run: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bundle", "check", str(run), "--static", "--findings-dir", str(tmp_path / "f")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "dlight" in out and "2 held" in out, out  # dlight entries are judged (no "cannot check")
    assert "FuseOps_cuda_sm_90" in out or "fuseops" in out
    assert "7 GPU anomalies: 7 known TVM bugs, 0 new" in out, out
    # The vthread entry's example completes into a real kernel since bind_rest was fixed (a
    # block bound only to vthread.x no longer stays on the host): it no longer builds what
    # crashed. builds_for_gpu flags what it built then (test_gpu_emulation.py: vthread_only).
    # The schedule entry 1795794777390 was drawn before steps could name the blocks earlier steps
    # made (issue 21): its example now reads as another schedule, so it too no longer rebuilds
    # the kernel that ran; the anomaly itself is still recognised (the GPU's own result).
    assert "static checks flagged 5 of 5 GPU anomalies (100%); 2 more no longer build the kernel that ran" in out, out
    assert "1795794777390-schedule_cuda_sm_90: rebuilt here it gives another kernel" in out, out
    assert "1795794684166-bind_cuda_sm_90: rebuilt here it gives another kernel" in out, out
    for bug in ("test_a_block_left_on_the_host_segfaults_when_called", "test_the_gpu_faults_on_a_launch_axis_of_extent_zero",
                "test_bind_accepts_nested_loops_bound_to_one_thread_axis",
                "test_reindex_read_after_reverse_compute_at_copies_before_the_producer",
                "test_rfactor_after_a_non_dividing_split_sums_uninitialised_partials",
                "test_merge_ignores_producer_consumer_order"):
        assert bug in out, (bug, out)


def test_with_strict_known_the_findings_fail_the_check_with_their_repros(run: Path, tmp_path: Path) -> None:
    findings = tmp_path / "f"
    assert main(["bundle", "check", str(run / "bind"), "--findings-dir", str(findings), "--strict-known"]) == 1
    repros = sorted(findings.rglob("repro.py"))
    assert repros and all((r.parent / "entry" / "kernel.so").is_file() for r in repros)
