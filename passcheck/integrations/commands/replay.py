"""``passcheck replay``: re-run every failure saved in the example database, one by one, and say
which still fail and which are fixed."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from passcheck.core.errors import UsageError
from passcheck.integrations.commands import EXIT_FINDINGS, EXIT_OK, command, console


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"replay: {message}; see `passcheck replay --help`")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="passcheck replay", description="Re-run every saved failure of the example database.")
    p.add_argument("--db", default="", metavar="PATH",
                   help="the example database (default .passcheck/examples; redis://[USER@]HOST:PORT[/DB], "
                        "rediss://; the password in $PASSCHECK_REDIS_PASSWORD)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per example before it counts as a hang")
    p.add_argument("--forget-fixed", action="store_true", help="delete the failures that are fixed")
    p.add_argument("--forget-refused", action="store_true",
                   help="delete the values that are not passcheck's plain data (an older passcheck's pickles)")
    return p


@command("replay")
def replay_command(args: list[str]) -> int:
    """passcheck replay [--db PATH] [--forget-fixed]: which saved failures still fail."""
    from rich.markup import escape
    from rich.table import Table

    from passcheck.core.engine.database import FailureStore, open_database, redacted

    ns = _parser().parse_args(args)
    store = FailureStore(open_database(ns.db))
    saved = store.everything()
    out = console()
    for line in store.refused:
        out.print(f"refused: {escape(line)}", highlight=False, soft_wrap=True)
    if ns.forget_refused and store.unreadable:
        out.print(f"deleted {store.forget_refused()} refused value(s)", highlight=False)
    if not saved:
        out.print(f"no saved failures in {escape(redacted(ns.db) or '.passcheck/examples')}")
        return EXIT_OK
    table = Table(title=f"{len(saved)} saved failure(s)")
    for col in ("pass", "property", "was", "now", "message"):
        table.add_column(col)
    still = 0
    for (value, failure), (status, message) in zip(saved, _recheck_all(saved, ns.timeout)):
        still += status == "still fails"
        if status == "fixed" and ns.forget_fixed:
            store.delete(failure, value)
        style = "red" if status == "still fails" else ""
        table.add_row(escape(failure.subject), escape(failure.property), failure.kind, status,
                      escape(message[:160]), style=style)
    out.print(table)
    out.print(f"{still} still fail, {len(saved) - still} do not", highlight=False)
    return EXIT_FINDINGS if still else EXIT_OK


def _recheck_all(saved: list[tuple[bytes, Any]], timeout: float) -> list[tuple[str, str]]:
    """(status, message) per saved failure: each runs in a worker of its own subject, with the
    property it failed (one worker per subject and implementation)."""
    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.subject import Options

    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, (_, f) in enumerate(saved):
        groups.setdefault((f.subject, f.ir, f.impl, f.property_files), []).append(i)
    status: list[tuple[str, str]] = [("", "")] * len(saved)
    for (subject, ir, impl, files), members in groups.items():
        props = tuple(dict.fromkeys(saved[i][1].property for i in members))
        try:
            p = plan(RunConfig(subject=subject, ir=ir, impl=impl, properties=props, property_files=files,
                               timeout=timeout, options=Options(impl=impl)))
        except UsageError as e:
            for i in members:
                status[i] = ("cannot run", str(e))
            continue
        with Evaluator(p) as evaluate:
            for i in members:
                f = saved[i][1]
                res = evaluate(f.example)
                o = res.outcomes.get(f.property)
                if res.rejected is not None:
                    status[i] = ("cannot build", res.rejected)
                elif o is not None and o.verdict.finding:
                    status[i] = ("still fails", f"{o.verdict}: {o.message}")
                else:
                    status[i] = ("fixed", str(o.verdict) if o else "")
    return status
