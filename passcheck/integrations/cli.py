"""Command line: ``passcheck PASS [options]``, and the subcommands of ``integrations/commands/``
(``passcheck list``, ...).

Exit codes: 0 every property held, 1 at least one finding, 2 bad input or usage (one line),
3 an internal error of passcheck.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import NoReturn

from passcheck.core.errors import UsageError
from passcheck.integrations import seed_report, variants
from passcheck.integrations.commands import (
    COMMANDS,
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    console,
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        raise UsageError(f"{message}; see `passcheck --help`")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="passcheck", description="Property-based testing of TVM passes and TIR schedule primitives.")
    p.add_argument("target", metavar="PASS",
                   help="a pass name (FuseOps, FoldConstant, AlterOpLayout, SimplifyInference, any relax.transform "
                        "pass), a TIR primitive (split, fuse, ..., schedule), an import spec module:attr, or a "
                        "command: " + ", ".join(COMMANDS.names()))
    p.add_argument("--examples", type=int, default=100, help="examples to generate (default 100)")
    p.add_argument("--seed", type=int, default=0, help="Hypothesis seed (runs are deterministic per seed)")
    p.add_argument("--draws", choices=("hypothesis", "independent"), default="hypothesis",
                   help="how examples are drawn: hypothesis (default; Hypothesis's own generation, each new example "
                        "followed by mutants of it) or independent (every example drawn on its own: all distinct, "
                        "more ops and attribute forms per run, fewer examples per second)")
    p.add_argument("--impl", metavar="SPEC", help="module:attr or path/to/file.py:attr: a Pass (or a zero-argument "
                                                  "callable returning one) replacing the implementation under test")
    p.add_argument("--property", action="append", default=[], metavar="NAME", help="check only this property")
    p.add_argument("--properties", action="append", default=[], metavar="PATH",
                   help="load extra properties from a Python file")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds per example before it counts as a hang (default: 20x the run's p95 example time so far, at least 5 s; "
                        "an example cut by it runs again alone with twice as long before it is a finding)")
    p.add_argument("--shrink-time", type=float, default=120.0, help="seconds to spend shrinking findings")
    p.add_argument("--report", action="append", default=[], metavar="FORMAT:PATH",
                   help="write a report: json:PATH or junit:PATH (JUnit XML for CI); repeatable")
    p.add_argument("--corpus", action="append", default=[], metavar="PATH",
                   help="also check these modules, first: TVMScript, a Python file defining mod/Before/before, "
                        "a saved finding, or a directory of them (repeatable); a .py file runs as Python")
    p.add_argument("--tvmscript-only", action="store_true",
                   help="with --corpus: read every file as TVMScript text, never running Python (for files you "
                        "did not write)")
    p.add_argument("--ir", default="relax", help="IR family (relax, tir) when PASS is an import spec")
    p.add_argument("--findings-dir", default="passcheck-findings", help="where repro scripts are written")
    p.add_argument("--allow-nan", action="store_true", help="also feed NaN/Inf input values")
    p.add_argument("--no-progress", action="store_true", help="no live progress bar")
    p.add_argument("--target", dest="compile_target", metavar="TARGET",
                   help="llvm (default), cuda (the local GPU's arch, else sm_90) or cuda:sm_XX: build every "
                        "example for the GPU too (TIR subjects; needs passcheck[cuda])")
    p.add_argument("--bundle", metavar="DIR", help="with --target cuda: write each kernel proved in bounds, its "
                                                   "inputs and the CPU's output to DIR for a GPU machine")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="worker processes (default: one per core); the result is the same for every N")
    p.add_argument("--batch", type=int, default=16, metavar="K",
                   help="examples per batch sent to a worker, their modules compiled together (default 16)")
    p.add_argument("--no-kernel-cache", action="store_true",
                   help="compile every module from scratch instead of reusing the run's compiled kernels "
                        "(slower; the result is the same)")
    p.add_argument("--db", default="", metavar="PATH",
                   help="example database: failures are saved and replayed first next time (default "
                        ".passcheck/examples; redis://[USER@]HOST:PORT[/DB] or rediss:// for a shared one, the "
                        "password in $PASSCHECK_REDIS_PASSWORD)")
    p.add_argument("--no-db", action="store_true", help="no example database")
    p.add_argument("--strict-known", action="store_true",
                   help="known TVM bugs (kept repros) fail the run too; by default they are listed apart, as "
                        "pytest's xfail, and only new findings exit 1")
    p.add_argument("--ignore-known", action="store_true",
                   help="the default (known TVM bugs do not fail the run); accepted for old scripts")
    p.add_argument("--min-activity", type=float, default=None, metavar="P",
                   help="exit 2 when the pass changed fewer than P%% of the examples (it tested little)")
    variants.add_arguments(p)
    return p


def _run(ns: argparse.Namespace) -> int:
    from rich.markup import escape

    from passcheck.core.engine.results import RunConfig
    from passcheck.core.engine.run import run
    from passcheck.core.subject import Options
    from passcheck.integrations.reports import write_report
    from passcheck.integrations.reports.table import render_table

    subject, extra = _target_options(ns)
    out = console()
    config = RunConfig(subject=subject, ir=ns.ir, impl=ns.impl, examples=ns.examples, seed=ns.seed,
                       properties=tuple(ns.property), property_files=tuple(ns.properties), timeout=ns.timeout,
                       shrink_seconds=ns.shrink_time, findings_dir=ns.findings_dir,
                       strict_known=ns.strict_known,
                       options=Options(allow_special_values=ns.allow_nan, impl=ns.impl,
                                       drift_findings=ns.drift_findings, extra=extra + variants.extra(ns)),
                       jobs=ns.jobs, batch=ns.batch, database=None if ns.no_db else ns.db,
                       kernel_cache=not ns.no_kernel_cache, draws=ns.draws)
    if ns.corpus:
        from passcheck.integrations.corpus_cli import attach_corpus

        attach_corpus(config, ns.corpus, out, ns.tvmscript_only)
    show = not ns.no_progress and out.is_terminal
    if show:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("findings: {task.fields[findings]}"), TimeElapsedColumn(),
                      console=out, transient=True) as bar:
            task = bar.add_task(f"{ns.target}", total=ns.examples + len(config.explicit_examples), findings=0)

            def progress(phase: str, done: int, total: int, findings: int) -> None:
                if phase == "explore":
                    bar.update(task, completed=done, total=total, findings=findings)
                else:
                    bar.update(task, description=f"{ns.target}: shrinking ({done} tries)", findings=findings)

            result = run(config, progress)
    else:
        result = run(config)
    render_table(result, out)
    seed_report.render(result, out)
    for spec in ns.report:
        out.print(f"report: {escape(str(write_report(result, spec)))}")
    if ns.min_activity is not None and result.activity is not None and 100 * result.activity < ns.min_activity:
        print(f"passcheck: error: --min-activity {ns.min_activity:g}: {result.activity_line()}, under "
              f"{ns.min_activity:g}%", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK if result.ok else EXIT_FINDINGS


def _check_numbers(ns: argparse.Namespace) -> None:
    """What a run's options say wrong on their own (before TVM loads: a mistyped option costs no
    second)."""
    from passcheck.integrations.reports import parse_report_spec

    if ns.examples < 0 or (ns.examples == 0 and not ns.corpus):
        raise UsageError("--examples must be at least 1 (0 only with --corpus: the given modules alone)")
    if ns.timeout is not None and ns.timeout <= 0:
        raise UsageError("--timeout must be positive (seconds)")
    if ns.jobs < 0 or ns.batch < 1:
        raise UsageError("--jobs must be 0 (one per core) or more, --batch at least 1")
    for spec in ns.report:
        parse_report_spec(spec)


def _target_options(ns: argparse.Namespace) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The subject name for --target (NAME@cuda:sm_XX) and the options --bundle adds."""
    from pathlib import Path

    from passcheck.gpu.target import parse_target, with_target

    target = parse_target(ns.compile_target)
    if ns.bundle and target is None:
        raise UsageError("--bundle DIR writes kernels built for a GPU: add --target cuda (or cuda:sm_XX)")
    return with_target(ns.target, target), ((("bundle", str(Path(ns.bundle).resolve())),) if ns.bundle else ())


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        ns = None
        if not (argv and argv[0] in COMMANDS):
            ns = build_parser().parse_args(argv)  # (--help, a usage error: before TVM loads)
            _check_numbers(ns)
            from passcheck.core.engine.worker import start_early

            start_early()  # (a run: its workers' fork server warms up while this process plans)
        if not {"-h", "--help"} & set(argv):
            # Before any command: a TVM outside the supported line gets one line, not a traceback
            # from deep inside a family that uses an API it does not have.
            from passcheck.core.tvm_build import require_supported

            require_supported()
        if ns is None:
            return COMMANDS.get(argv[0])(argv[1:])
        return _run(ns)
    except UsageError as e:
        print(f"passcheck: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("passcheck: interrupted", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as e:  # noqa: BLE001
        print(f"passcheck: internal error: {type(e).__name__}: {e} (this is a passcheck bug; "
              "set PASSCHECK_DEBUG=1 for the traceback)", file=sys.stderr)
        if os.environ.get("PASSCHECK_DEBUG"):
            traceback.print_exc()
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
