"""The run's own directory: the runner creates it when a run starts and removes it when the run
ends, and every worker of the run is told its path (``WorkerConfig.run_dir``).

What workers write there (the kernel cache's compiled kernels) is read back only by the workers
of the same run: a fresh directory per run, so no run ever reads what another one wrote.

A runner killed outright (SIGKILL, the machine's OOM killer) cannot remove its directory (tens of
megabytes of kernels) nor its workers' logs: both are named after the runner's pid, and the next
runner removes those of runners no longer alive.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile

_LEFT = re.compile(r"passcheck-(?:run|worker)-(\d+)-")

_current = ""


def create() -> str:
    sweep()
    return tempfile.mkdtemp(prefix=f"passcheck-run-{os.getpid()}-")


def worker_log() -> str:
    """A new file for a worker's output, named after this runner (removed with the worker)."""
    fd, path = tempfile.mkstemp(prefix=f"passcheck-worker-{os.getpid()}-", suffix=".log")
    os.close(fd)
    return path


def sweep() -> None:
    """Remove the run directories and worker logs of runners that are no longer alive."""
    root = tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        m = _LEFT.match(name)
        if m is None or int(m.group(1)) == os.getpid() or alive(int(m.group(1))):
            continue
        path = os.path.join(root, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
