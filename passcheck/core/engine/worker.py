"""The worker process: runs a ``Session`` (build IR, apply the pass under test, check properties).

The pass under test and the code it generates run here, never in the runner: a segfault or an
out-of-bounds write kills only this process (the runner records a *crash* finding and starts
a fresh worker from the fork server), and a hang is cut by the runner's per-example time limit
(``timeouts``).

A worker never outlives its runner, however the runner ends: Ctrl-C reaches the runner alone
(the worker ignores SIGINT; the runner's pool kills it), and SIGTERM or SIGKILL of the runner
closes the *lifeline*, a pipe whose only write end the runner holds. Its closing kills the
worker at once, from the kernel (``O_ASYNC`` with SIGKILL as the signal, on Linux: a worker
stuck in C code holding the GIL goes too), or from a thread that waits on it elsewhere.
``PR_SET_PDEATHSIG`` would not do: the worker's parent is the fork server, which stays alive as
long as a worker does.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from passcheck.core import workdir
from passcheck.core.engine.plan import WorkerConfig
from passcheck.core.engine.session import Session
from passcheck.core.engine.timeouts import TimeLimit
from passcheck.core.errors import UsageError
from passcheck.core.outcome import TRANSFORM, ExampleResult, Verdict


def _capture_output(path: str | None) -> None:
    """Send the worker's stdout/stderr (TVM's crash banners, a pass's prints) to a file whose
    tail goes into crash findings, instead of interleaving it with the runner's output."""
    if path is None:
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _tie_to_runner(lifeline: Connection | None) -> None:
    """Die with the runner (see the module's docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if lifeline is None:
        return
    fd = lifeline.fileno()
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGKILL)  # Linux only: AttributeError elsewhere
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)
    except (ImportError, AttributeError, OSError):
        pass

    def watch() -> None:
        # Nobody writes to the lifeline: it becomes readable only when the runner's end closes
        # (also where the runner died before the kernel was told to watch it).
        try:
            lifeline.poll(None)
        finally:
            os._exit(70)

    threading.Thread(target=watch, name="passcheck-lifeline", daemon=True).start()


def serve(conn: Connection, config: WorkerConfig, log_path: str | None = None,
          lifeline: Connection | None = None) -> None:
    """Worker main loop: one example in, one ``ExampleResult`` out; ``None`` stops it."""
    _tie_to_runner(lifeline)
    _capture_output(log_path)
    try:
        session = Session(config)
    except UsageError as e:
        conn.send(("usage", str(e)))
        return
    except Exception as e:  # noqa: BLE001
        conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        return
    conn.send(("ready", [p.name for p in session.properties]))

    def progress(stage: str) -> None:
        conn.send(("at", stage))

    while True:
        try:
            example = conn.recv()
        except EOFError:
            return
        if example is None:
            return
        try:
            if isinstance(example, Scripts):
                conn.send(("scripts", session.scripts(example.example)))
                continue
            if isinstance(example, Batch):
                results = session.run_batch(example.examples, progress)
                _give_back_free_memory()
                conn.send(("results", results))
                continue
            result = session.run(example, progress)
        except UsageError as e:
            conn.send(("usage", str(e)))
            continue
        except Exception as e:  # noqa: BLE001 - keep serving; report as internal error
            conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
            continue
        conn.send(("result", result))


def _give_back_free_memory() -> None:
    """Return the heap's free pages to the system after a batch (glibc keeps what TVM freed and
    the worker's memory grew with it: half its growth per example with the kernel cache bounded,
    measured; 4-7 ms per batch). Elsewhere than glibc, nothing."""
    global _TRIM
    if _TRIM is None:
        try:
            import ctypes

            _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None


@dataclass(frozen=True)
class Batch:
    """Several examples in one message (``Session.run_batch``): the worker answers with a list."""

    examples: list[Any]


@dataclass(frozen=True)
class Scripts:
    """One example's input and transformed IR, not checked (``Session.scripts``)."""

    example: Any


_CTX: Any = None


def context(preload: tuple[str, ...] = ()) -> Any:
    """A fork server with TVM preloaded: a fresh worker costs a fork, not a TVM import. The
    first call decides what it preloads (the modules the first run's workers load), since the
    server lives as long as this process."""
    global _CTX
    if _CTX is None:
        _CTX = mp.get_context("forkserver")
        _CTX.set_forkserver_preload(["passcheck.core.engine.preload", *preload])
    return _CTX


# What workers import first, for either family (its subjects, the properties all its subjects
# check): a fork server started before the run is planned preloads these (``start_early``). Both
# families together take 0.05 s more than one, in the server, while the runner plans.
EARLY_PRELOAD = ("passcheck.relax.passes", "passcheck.properties.generic", "passcheck.properties.programs",
                 "passcheck.tir.subjects", "passcheck.properties.tir_generic")


def start_early() -> None:
    """Start the fork server now, without waiting for it: it imports TVM and passcheck's modules
    on the other core while the runner imports and plans, so the first workers fork from a warm
    server instead of starting one (two of the fifteen seconds of a 500-example FuseOps run on two
    cores). A worker imports what the server did not (``Session``)."""
    from multiprocessing import forkserver

    context(EARLY_PRELOAD)
    with _main_module_hidden(), _safe_path():
        forkserver.ensure_running()


class _main_module_hidden:
    """Start children without re-running the caller's script.

    multiprocessing re-imports ``__main__`` in a forkserver child (as with spawn), so a script
    calling ``passcheck.check()`` without an ``if __name__ == "__main__":`` guard would run
    itself again in the worker. The worker needs nothing from ``__main__`` (everything it loads
    comes by module path), so the script's path is hidden while the child starts.
    """

    def __enter__(self) -> None:
        import sys

        self.main = sys.modules.get("__main__")
        self.saved: dict[str, Any] = {}
        for attr in ("__file__", "__spec__"):
            if self.main is not None and hasattr(self.main, attr):
                self.saved[attr] = getattr(self.main, attr)
                if attr == "__file__":
                    delattr(self.main, attr)
                else:
                    setattr(self.main, attr, None)

    def __exit__(self, *_exc: object) -> None:
        for attr, value in self.saved.items():
            setattr(self.main, attr, value)


class _safe_path:
    """Start the fork server without the working directory on its ``sys.path``.

    Python 3.12's fork server runs ``python -c ...`` and, unlike 3.11's, does not replace the
    ``''`` that ``-c`` puts first on ``sys.path``: run from a checkout of passcheck with a
    regular install, the checkout's ``passcheck/`` folder (which has no ``properties``: it is
    installed from the top-level ``properties/``) would shadow the installed package in every
    worker. PYTHONSAFEPATH (3.11+) keeps that entry out."""

    def __enter__(self) -> None:
        self.saved = os.environ.get("PYTHONSAFEPATH")
        os.environ["PYTHONSAFEPATH"] = "1"

    def __exit__(self, *_exc: object) -> None:
        if self.saved is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = self.saved


class WorkerDied(Exception):
    def __init__(self, kind: Verdict, stage: str, detail: str) -> None:
        super().__init__(detail)
        self.kind, self.stage, self.detail = kind, stage, detail


class Worker:
    """Parent-side handle: restarts the process after a crash or a timeout."""

    # Each compiled module leaves a little memory behind (loaded kernels); a fresh fork from the
    # server every so many examples keeps long campaigns flat.
    RECYCLE_AFTER = 1000

    def __init__(self, config: WorkerConfig, timeout: float | TimeLimit | None, start_timeout: float = 300.0) -> None:
        self.config = config
        # a number: that many seconds (--timeout); None: adapted to the examples it measures
        self.limit = timeout if isinstance(timeout, TimeLimit) else TimeLimit(timeout)
        self.start_timeout = start_timeout
        self.proc: Any = None
        self.conn: Connection | None = None
        self.lifeline: Connection | None = None  # the runner's end: closing it kills the worker
        self.restarts = 0
        self.log_path: str | None = None
        self.log_from = 0  # where the current request's output starts in the log
        self.served = 0
        self.stopped = False  # the run is over (or interrupted): no restart after this

    def start(self) -> None:
        ctx = context(self.config.preload)
        parent, child = ctx.Pipe()
        life_r, life_w = ctx.Pipe(duplex=False)
        if self.log_path is None:
            self.log_path = workdir.worker_log()
        self.proc = ctx.Process(target=serve, args=(child, self.config, self.log_path, life_r), daemon=True)
        with _main_module_hidden(), _safe_path():
            self.proc.start()
        child.close()
        life_r.close()
        self.conn, self.lifeline = parent, life_w
        if not parent.poll(self.start_timeout):
            self.kill()
            raise RuntimeError("the worker process did not start in time")
        try:
            tag, payload = parent.recv()
        except EOFError:
            code = self.proc.exitcode
            self.kill()
            raise RuntimeError(f"the worker process died while starting (exit code {code})") from None
        if tag == "usage":
            self.kill()
            raise UsageError(payload)
        if tag != "ready":
            self.kill()
            raise RuntimeError(f"worker failed to start: {payload}")
        self.served = 0

    def run(self, example: Any, stretch: float = 1.0) -> ExampleResult:
        """The example's result; ``stretch`` times the time limit (a hang confirmed)."""
        return self._exchange(example, "result", stretch)

    def run_batch(self, examples: list[Any]) -> list[ExampleResult]:
        """Results of ``Session.run_batch``; each step of the batch (building one example,
        the batch compile, checking one example) has the per-example timeout, the compile one
        per example in the batch."""
        return self._exchange(Batch(list(examples)), "results", 1.0, batch=len(examples))

    def scripts(self, example: Any) -> tuple[str, str]:
        """The example's input and output TVMScript, built and transformed but not checked."""
        return self._exchange(Scripts(example), "scripts", 1.0)

    def _exchange(self, message: Any, answer: str, stretch: float, batch: int = 0) -> Any:
        if self.stopped:
            raise RuntimeError("the run was stopped")
        if self.served >= self.RECYCLE_AFTER:
            self.close()
        if self.proc is None or not self.proc.is_alive():
            self.start()
        self.served += max(1, batch)
        assert self.conn is not None
        # a crash message quotes only this request's output: what earlier examples printed
        # depends on how examples were spread over workers and batches
        self.log_from = os.path.getsize(self.log_path) if self.log_path and os.path.exists(self.log_path) else 0
        self.conn.send(message)
        stage = TRANSFORM
        timeout = self.limit.seconds * stretch
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                ready = left > 0 and self.conn.poll(left)
            except (EOFError, OSError):
                ready = True
            if not ready:
                self.kill()
                self.restarts += 1
                raise WorkerDied(Verdict.HANG, stage, f"no result after {timeout:.3g} s (while at {stage}; "
                                                      f"the limit: {self.limit.describe()})")
            try:
                tag, payload = self.conn.recv()
            except (EOFError, OSError):
                self.proc.join(5)
                code = self.proc.exitcode
                self.kill()
                self.restarts += 1
                raise WorkerDied(Verdict.CRASH, stage, f"the worker process died ({_describe_exit(code)}) "
                                                 f"while at {stage}{self._log_tail()}") from None
            if tag == "at":
                stage = payload
                if batch:  # a step of a batch: its own time limit from now
                    timeout = self.limit.seconds * (batch if payload.endswith("compile") else 1)
                    deadline = time.monotonic() + timeout
            elif tag == answer:
                return payload
            elif tag == "usage":
                raise UsageError(payload)
            else:
                raise RuntimeError(f"worker internal error: {payload}")

    def _log_tail(self, lines: int = 3) -> str:
        """The last meaningful lines the dead worker printed (e.g. a TVM check failure)."""
        if not self.log_path:
            return ""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self.log_from)
                raw = f.read()[-20000:].decode(errors="replace")
            text = [ln.strip() for ln in raw.splitlines() if ln.strip()]
        except OSError:
            return ""
        keep = [ln for ln in text if not ln.startswith("File ") and "Segfault encountered" not in ln]
        return ("; worker output: " + " | ".join(keep[-lines:])[:500]) if keep else ""

    def kill(self) -> None:
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
        for end in (self.conn, self.lifeline):
            if end is not None:
                end.close()
        self.proc, self.conn, self.lifeline = None, None, None

    def close(self) -> None:
        if self.log_path and os.path.exists(self.log_path):
            os.unlink(self.log_path)
            self.log_path = None
        if self.conn is not None and self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(5)
            except (OSError, BrokenPipeError):
                pass
        self.kill()


def _describe_exit(code: int | None) -> str:
    import signal

    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"
