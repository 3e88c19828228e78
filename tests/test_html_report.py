"""The HTML report renders in a real headless browser (Chromium from Debian's packages): the
page of a run with findings is screenshotted and the screenshot must show the table, the plots
(their bar colours) and a finding (its red border)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from passcheck.core.engine.results import RunConfig
from passcheck.core.engine.run import run
from passcheck.core.subject import Options
from passcheck.integrations.reports import write_report

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

TIME_BLUE, COVERAGE_GREEN, FINDING_RED = (0x44, 0x77, 0xAA), (0x22, 0x88, 0x33), (0xCC, 0x33, 0x33)


def _pixels_near(img: np.ndarray, rgb: tuple[int, int, int], tol: int = 12) -> int:
    return int((np.abs(img[..., :3].astype(int) - np.array(rgb)) <= tol).all(axis=-1).sum())


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)")
def test_html_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    impl = f"{BUGGY}:fuse_ops_drops_channel"
    result = run(RunConfig(subject="FuseOps", impl=impl, examples=16, seed=1, jobs=2, shrink_seconds=10,
                           properties=("matches_unfused_bitwise", "every_op_fused"),
                           findings_dir=str(tmp_path / "findings"), options=Options(impl=impl)))
    assert result.findings
    page = write_report(result, f"html:{tmp_path / 'report.html'}")
    text = page.read_text()
    assert "http://" not in text and "https://" not in text  # self-contained
    assert "matches_unfused_bitwise" in text and "@I.ir_module" in text  # a finding with its TVMScript

    shot = tmp_path / "shot.png"
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1200,9000",
                           page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.exists(), proc.stderr[-2000:]
    import matplotlib.image

    img = (matplotlib.image.imread(str(shot)) * 255).round().astype(np.uint8)
    assert img.shape[0] >= 9000 and img.shape[1] >= 1200
    assert _pixels_near(img, TIME_BLUE) > 2000, "the time-per-stage plot is not on the page"
    assert _pixels_near(img, COVERAGE_GREEN) > 2000, "the coverage plots are not on the page"
    assert _pixels_near(img, FINDING_RED) > 200, "the finding is not on the page"
    assert len(np.unique(img.reshape(-1, img.shape[-1]), axis=0)) > 50  # text and plots, not a blank page
