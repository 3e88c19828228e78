"""GPU execution: every kernel proved in bounds runs on the local CUDA device and matches the
CPU; a bundle built here runs there. Skipped, with the reason, where there is no CUDA device."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import passcheck
from passcheck.gpu.device import cuda_device

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(cuda_device() is None, reason="no CUDA device here: the GPU run is owed to a GPU "
                                                               "machine (python -m pytest -m gpu there)")]


@pytest.mark.parametrize("subject", ["bind_threads", "cross_thread_reduction", "cache_shared", "schedule"])
def test_kernels_proved_in_bounds_match_the_cpu_on_the_gpu(subject: str, tmp_path: Path) -> None:
    r = passcheck.check(f"{subject}@cuda:{cuda_device_arch()}", ir="tir", examples=25,
                        properties=("gpu_matches_cpu",), findings_dir=str(tmp_path))
    assert not r.findings, [f.message for f in r.findings]
    assert r.stats["gpu_matches_cpu"].held > 0


def cuda_device_arch() -> str:
    from passcheck.gpu.device import local_arch

    return local_arch() or "sm_90"


def test_a_bundle_built_here_runs_on_the_gpu(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    env_run = [sys.executable, "-m", "passcheck", "bind_threads", "--target", "cuda", "--examples", "10",
               "--bundle", str(bundle), "--property", "gpu_matches_cpu", "--findings-dir", str(tmp_path / "f")]
    # With a device here, gpu_matches_cpu runs locally and writes no bundle: hide the device.
    import os

    subprocess.run(env_run, check=True, timeout=600, env={**os.environ, "PASSCHECK_NO_GPU": "1"},
                   capture_output=True)
    run = subprocess.run([sys.executable, "-m", "passcheck.bundle", "run", str(bundle)], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0 and " ok" in run.stdout, run.stdout + run.stderr
    from passcheck.integrations.cli import main

    assert main(["bundle", "check", str(bundle), "--findings-dir", str(tmp_path / "f2")]) == 0
