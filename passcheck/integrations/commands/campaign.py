"""``passcheck campaign PASS... --hours H``: a long run over many seeds, on this machine's
worker pool or a Ray cluster (``--ray ADDRESS``, ``--ray local``), merged into one report per
pass; failures go to the example database (``--db redis://[USER@]HOST:PORT[/DB]`` to share one, the
password in $PASSCHECK_REDIS_PASSWORD; ``rediss://`` for TLS)."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any, NoReturn

from passcheck.core.errors import UsageError
from passcheck.integrations.commands import EXIT_FINDINGS, EXIT_OK, command, console


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"campaign: {message}; see `passcheck campaign --help`")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="passcheck campaign", description="A long campaign over many seeds, merged per pass.")
    p.add_argument("passes", nargs="+", metavar="PASS", help="passes or primitives (as for `passcheck PASS`)")
    p.add_argument("--hours", type=float, default=None, help="stop handing out tasks after this long (default 1)")
    p.add_argument("--tasks", type=int, default=None, help="stop after this many tasks (all passes together)")
    p.add_argument("--examples", type=int, default=500, help="examples per seed (default 500)")
    p.add_argument("--seeds-per-task", type=int, default=1, help="consecutive seeds in one task (default 1)")
    p.add_argument("--seed", type=int, default=0, help="the first seed (default 0)")
    p.add_argument("--draws", choices=("hypothesis", "independent"), default="hypothesis",
                   help="how examples are drawn (as `passcheck PASS --draws`)")
    p.add_argument("--jobs", type=int, default=0, help="local workers per task (default: one per core); "
                                                       "on Ray each task uses one")
    p.add_argument("--batch", type=int, default=16, help="examples per batch sent to a worker (default 16)")
    p.add_argument("--ray", metavar="ADDRESS", help="run the tasks on the Ray cluster at HOST:PORT, or `local`")
    p.add_argument("--db", default="", metavar="PATH", help="example database (default .passcheck/examples; "
                                                            "redis://[USER@]HOST:PORT[/DB] or rediss:// to share "
                                                            "one between machines, the password in "
                                                            "$PASSCHECK_REDIS_PASSWORD)")
    p.add_argument("--no-db", action="store_true", help="no example database")
    p.add_argument("--impl", metavar="SPEC", help="the implementation under test (as for `passcheck PASS`)")
    p.add_argument("--ir", default="relax", help="IR family (relax, tir) when PASS is an import spec")
    p.add_argument("--property", action="append", default=[], metavar="NAME", help="check only this property")
    p.add_argument("--properties", action="append", default=[], metavar="PATH", help="extra property files")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds per example before it counts as a hang (default: adapted to the run's example times)")
    p.add_argument("--shrink-time", type=float, default=60.0, help="seconds per run to spend shrinking")
    p.add_argument("--findings-dir", default="passcheck-findings/campaign", help="repros, one folder per task")
    p.add_argument("--report", action="append", default=[], metavar="FORMAT:PATH",
                   help="one report per pass (the pass name is added to PATH when there are several)")
    p.add_argument("--strict-known", action="store_true", help="known TVM bugs fail the run too")
    p.add_argument("--ignore-known", action="store_true", help="the default: exit 1 only for new findings")
    return p


@command("campaign")
def campaign_command(args: list[str]) -> int:
    """passcheck campaign PASS... [--hours H] [--ray ADDRESS|local] [--db redis://[USER@]HOST:PORT[/DB]]"""
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.subject import Options
    from passcheck.integrations import cluster
    from passcheck.integrations.reports import parse_report_spec

    ns = _parser().parse_args(args)
    if ns.examples < 1 or ns.seeds_per_task < 1 or (ns.tasks is not None and ns.tasks < 1):
        raise UsageError("campaign: --examples, --seeds-per-task and --tasks must be at least 1")
    for spec in ns.report:
        parse_report_spec(spec)
    # Tasks may run in other processes and directories (Ray workers): every path made absolute.
    from passcheck.core.engine.database import DEFAULT_DIRECTORY, PASSWORD_ENV, is_redis
    from passcheck.core.engine.repro import absolute_impl

    db = None if ns.no_db else (ns.db if is_redis(ns.db) else str(Path(ns.db or DEFAULT_DIRECTORY).resolve()))
    impl = absolute_impl(ns.impl)
    base = RunConfig(subject=ns.passes[0], ir=ns.ir, impl=impl, examples=ns.examples, seed=ns.seed,
                     properties=tuple(ns.property), property_files=tuple(str(Path(f).resolve()) for f in ns.properties),
                     timeout=ns.timeout, shrink_seconds=ns.shrink_time, strict_known=ns.strict_known,
                     options=Options(impl=impl), jobs=ns.jobs, batch=ns.batch, database=db, draws=ns.draws)
    from dataclasses import replace

    from passcheck.core.engine.database import open_database

    for name in ns.passes:  # bad input fails here, in one line, before any task starts
        plan(replace(base, subject=name))
    open_database(base.database)
    hours = ns.hours if ns.hours is not None else (None if ns.tasks is not None else 1.0)
    deadline = time.monotonic() + hours * 3600 if hours is not None else float("inf")
    out = console()
    todo = cluster.tasks(base, ns.passes, ns.seeds_per_task, str(Path(ns.findings_dir).resolve()))
    done = [0]

    def report(task: Any, result: Any, seconds: float) -> None:
        done[0] += 1
        out.print(f"task {done[0]}: {task.label}: {result.examples} examples, {len(result.findings)} finding(s), "
                  f"{result.replayed} replayed, {seconds:.1f} s", highlight=False)

    t0 = time.monotonic()
    if ns.ray:
        ray = cluster.start_ray(ns.ray)
        try:
            # The password reaches the tasks through Ray's runtime environment, not through their data
            env = {PASSWORD_ENV: os.environ[PASSWORD_ENV]} if is_redis(db) and os.environ.get(PASSWORD_ENV) else None
            results = cluster.run_ray(ray, todo, ns.tasks, deadline, report, env=env)
        finally:
            ray.shutdown()
    else:
        results = cluster.run_local(todo, ns.tasks, deadline, report)
    return _finish(cluster.merge_by_pass(results), ns.report, time.monotonic() - t0, out)


def _finish(merged: dict[str, Any], reports: list[str], seconds: float, out: Any) -> int:
    from rich.markup import escape

    from passcheck.integrations.reports import write_report
    from passcheck.integrations.reports.table import render_table

    ok = True
    for name, result in merged.items():
        result.duration_s = seconds
        render_table(result, out)
        ok = ok and result.ok
        for spec in reports:
            if len(merged) > 1:
                fmt, _, path = spec.partition(":")
                p = Path(path)
                spec = f"{fmt}:{p.with_name(f'{p.stem}-{name}{p.suffix}')}"
            out.print(f"report: {escape(str(write_report(result, spec)))}")
    return EXIT_OK if ok else EXIT_FINDINGS
