"""``passcheck verify FILE...``: the symbolic checks of given modules, with no pass.

Every PrimFunc: well-formed, and every load and store proved in bounds by Z3 (block form
lowered first), or a concrete out-of-bounds witness. Every Relax function: well-formed, types
re-inferred. Exit 0 when everything is proved (unknowns are reported apart, with a warning
line), 1 on any violation (or, with ``--strict``, any unknown), 2 on bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

from passcheck.core.errors import UsageError
from passcheck.integrations.commands import EXIT_FINDINGS, EXIT_OK, command, console

_STYLE = {"ok": "green", "violation": "red", "ill-formed": "red", "unknown": "yellow"}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise UsageError(f"verify: {message}; see `passcheck verify --help`")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="passcheck verify", description="Z3 bounds, well-formedness and types of given modules.")
    p.add_argument("files", nargs="+", metavar="FILE", help="TVMScript, a Python file defining mod/Before/before, "
                   "a saved finding, or a directory of them")
    p.add_argument("--tvmscript-only", action="store_true",
                   help="read every file as TVMScript text, never running Python (a .py file otherwise runs as code)")
    p.add_argument("--strict", action="store_true", help="exit 1 when some access is unknown (not proved either way)")
    p.add_argument("--z3-timeout", type=int, default=2000, metavar="MS", help="Z3 timeout per query (default 2000)")
    return p


def verify_module(module: Any, timeout_ms: int, mod: Any = None) -> list[Any]:
    """Every check of one ``CorpusModule`` (``mod``: the IRModule itself, when loaded here)."""
    from passcheck.core.corpus import parse
    from passcheck.relax.verify import verify_relax
    from passcheck.tir.verify import verify_primfuncs

    mod = parse(module.script) if mod is None else mod
    return (verify_relax(mod) if module.ir == "relax" else []) + verify_primfuncs(mod, timeout_ms)


@command("verify")
def verify_command(args: list[str]) -> int:
    """passcheck verify FILE... [--strict] [--z3-timeout MS]"""
    from rich.markup import escape

    from passcheck.core.corpus import load_corpus

    ns = _parser().parse_args(args)
    if ns.z3_timeout < 1:
        raise UsageError("verify: --z3-timeout must be a positive number of milliseconds")
    corpus = load_corpus(ns.files, ir=None, what="verify", round_trip=False, script_only=ns.tvmscript_only)
    out = console()
    totals = {"violation": 0, "ill-formed": 0, "unknown": 0, "ok": 0}
    for path, why in corpus.skipped:
        out.print(f"[yellow]skipped[/yellow] {escape(path)}: {escape(why)}", highlight=False)
    for module in corpus.examples:
        checks = verify_module(module, ns.z3_timeout, corpus.modules.get(module.origin))
        out.print(f"[bold]{escape(module.origin)}[/bold] ({module.ir})", highlight=False)
        for c in checks:
            totals[c.status] += 1
            out.print(f"  [{_STYLE[c.status]}]{c.status}[/{_STYLE[c.status]}] {escape(c.function)} {c.check}: "
                      f"{escape(c.summary)}", highlight=False)
            for line in c.lines[:20]:
                out.print(f"    {escape(line)}", highlight=False)
            if len(c.lines) > 20:
                out.print(f"    ... and {len(c.lines) - 20} more", highlight=False)
    bad = totals["violation"] + totals["ill-formed"]
    out.print(f"verify: {len(corpus.examples)} module(s): {totals['ok']} checks proved, {bad} failed, "
              f"{totals['unknown']} unknown", highlight=False)
    if totals["unknown"] and not bad:
        out.print("[yellow]warning[/yellow]: some checks are unknown (neither proved nor refuted)"
                  + ("; --strict makes that exit 1" if not ns.strict else ""), highlight=False)
    return EXIT_FINDINGS if bad or (ns.strict and totals["unknown"]) else EXIT_OK
