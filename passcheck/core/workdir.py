"""The run's own directory: the runner creates it when a run starts and removes it when the run
ends, and every worker of the run is told its path (``WorkerConfig.run_dir``).

What workers write there (the kernel cache's compiled kernels) is read back only by the workers
of the same run: a fresh directory per run, so no run ever reads what another one wrote.
"""

from __future__ import annotations

import shutil
import tempfile

_current = ""


def create() -> str:
    return tempfile.mkdtemp(prefix="passcheck-run-")


def remove(path: str) -> None:
    if path:
        shutil.rmtree(path, ignore_errors=True)


def use(path: str) -> None:
    """This process works for the run whose directory is ``path`` ("" for none)."""
    global _current
    _current = path


def current() -> str:
    """The directory of the run this process works for ("" outside a run's worker)."""
    return _current
