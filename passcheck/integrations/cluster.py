"""Campaign tasks: a seed range of one pass, run where a worker is free (this machine's worker
pool, or a Ray cluster), merged into one result per pass.

A task is plain data (``Task``) and its result a ``RunResult``: both travel through Ray as
passcheck-data JSON (``core/data.py``), read back as data, never unpickled. On Ray each task is
retried when the process or node running it dies (Ray's own retries, then passcheck's), so a
lost node's seed range is re-run elsewhere and the campaign loses no seed. Failures go to the campaign's example database (``--db redis://...``): every task
replays every failure saved so far, by any task, on any machine, before drawing its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from passcheck.core.data import NotPlainData, dumps, loads, plain_data
from passcheck.core.engine.merge import merge_results
from passcheck.core.engine.results import RunConfig, RunResult
from passcheck.core.errors import UsageError

RETRIES = 3  # passcheck's own resubmissions of a task whose worker or node was lost, after Ray's


@plain_data("campaign.Task")
@dataclass(frozen=True)
class Task:
    config: RunConfig  # its seed is the first of the range; its findings_dir the task's own
    seeds: int  # consecutive seeds from config.seed

    @property
    def label(self) -> str:
        last = self.config.seed + self.seeds - 1
        seeds = f"seed {self.config.seed}" if self.seeds == 1 else f"seeds {self.config.seed}-{last}"
        return f"{self.config.subject} {seeds}"


def run_task(task: Task) -> RunResult:
    """Every seed of the task's range, one run each, merged."""
    from passcheck.core.engine.run import run

    return merge_results([run(replace(task.config, seed=task.config.seed + i)) for i in range(task.seeds)])


def tasks(base: RunConfig, passes: list[str], seeds_per_task: int, findings_dir: str) -> Iterator[Task]:
    """Tasks in the order they are handed out: the passes in turn, each over consecutive seed ranges."""
    i = 0
    while True:
        subject = passes[i % len(passes)]
        first = base.seed + (i // len(passes)) * seeds_per_task
        cfg = replace(base, subject=subject, seed=first,
                      findings_dir=os.path.join(findings_dir, f"seed-{first}"))
        yield Task(cfg, seeds_per_task)
        i += 1


Report = Callable[[Task, RunResult, float], None]


def run_local(todo: Iterator[Task], count: int | None, deadline: float, report: Report) -> list[RunResult]:
    """One task after another on this machine's worker pool (each task uses ``--jobs`` workers)."""
    out = []
    for n, task in enumerate(todo):
        if (count is not None and n >= count) or time.monotonic() >= deadline:
            break
        t0 = time.monotonic()
        result = run_task(task)
        out.append(result)
        report(task, result, time.monotonic() - t0)
    return out


def start_ray(address: str) -> Any:
    """Connect to the Ray cluster at ``address``, or start a local runtime (``local``)."""
    if address == "local":
        # A runtime for this machine only: on the loopback address, reachable from nowhere else
        # (Ray reads this when it is first imported).
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs the cluster extra: pip install 'passcheck[cluster]'") from None
    try:
        if address == "local":
            from passcheck.core.engine.results import cpu_count

            ray.init(num_cpus=cpu_count(), include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise UsageError(f"--ray {address}: cannot connect ({type(e).__name__}: {str(e).splitlines()[0]}); "
                         "give the address of a running Ray head (HOST:PORT) or `local`") from None
    return ray


def _over_json(task_fn: Callable[[Task], RunResult]) -> Callable[[str], str]:
    """``task_fn`` taking and returning JSON text: what passcheck itself sends through Ray."""

    def call(text: str) -> str:
        task = loads(text)
        if not isinstance(task, Task):
            raise NotPlainData(f"a {type(task).__name__}, not a campaign task")
        return dumps(task_fn(task))

    return call


def _result(text: str) -> RunResult:
    result = loads(text)
    if not isinstance(result, RunResult):
        raise NotPlainData(f"a {type(result).__name__}, not a run result")
    return result


def run_ray(ray: Any, todo: Iterator[Task], count: int | None, deadline: float, report: Report,
            task_fn: Callable[[Task], RunResult] = run_task, env: dict[str, str] | None = None) -> list[RunResult]:
    """Tasks spread over the cluster, as many in flight as it has CPUs; each task uses one
    passcheck worker (``jobs=1``): the cluster's parallelism is the tasks. ``env``: environment
    variables the tasks need (the redis password), set in Ray's runtime environment, not in the
    task's data."""
    options: dict[str, Any] = {"num_cpus": 1, "max_retries": RETRIES}
    if env:
        options["runtime_env"] = {"env_vars": dict(env)}
    remote = ray.remote(**options)(_over_json(task_fn))
    slots = max(1, int(ray.cluster_resources().get("CPU", 1)))
    inflight: dict[Any, tuple[Task, float, int]] = {}
    out: list[RunResult] = []
    handed = 0

    def submit(task: Task, tries: int = 0) -> None:
        inflight[remote.remote(dumps(task))] = (task, time.monotonic(), tries)

    while True:
        while len(inflight) < slots and (count is None or handed < count) and time.monotonic() < deadline:
            submit(_with_one_job(next(todo)))
            handed += 1
        if not inflight:
            break
        done, _ = ray.wait(list(inflight), num_returns=1)
        task, started, tries = inflight.pop(done[0])
        try:
            result = _result(ray.get(done[0]))
        except ray.exceptions.RayError as e:
            if tries >= RETRIES:
                raise RuntimeError(f"campaign task {task.label} failed {tries + 1} times: {e}") from None
            submit(task, tries + 1)  # its node or worker was lost: the same seed range again
            continue
        out.append(result)
        report(task, result, time.monotonic() - started)
    return out


def _with_one_job(task: Task) -> Task:
    return replace(task, config=replace(task.config, jobs=1))


def merge_by_pass(results: list[RunResult]) -> dict[str, RunResult]:
    by_pass: dict[str, list[RunResult]] = {}
    for r in results:
        by_pass.setdefault(r.subject_name, []).append(r)
    return {name: merge_results(rs) for name, rs in by_pass.items()}
