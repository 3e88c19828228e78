"""``passcheck known``: the known TVM bugs passcheck keeps, their repros, and whether the installed
TVM still has them.

``passcheck known`` lists the registry (name, where it shows up, a one-line note, the TVM it was
seen on); ``passcheck known show NAME`` prints a bug's kept repro as a runnable script (shipped
with passcheck: it needs no checkout); ``passcheck known --check [NAME...]`` runs every kept
repro on the installed TVM, each in a worker process, and says which still reproduce, which
are fixed (reported as pytest reports an XPASS: never silently) and which now fail in another
way.
"""

from __future__ import annotations

import argparse
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NoReturn

from passcheck.core.errors import UsageError
from passcheck.integrations.commands import EXIT_FINDINGS, EXIT_OK, command, console

REPRODUCES, FIXED, CHANGED, UNBUILDABLE = "REPRODUCES", "XPASS", "CHANGED", "CANNOT BUILD"
UNDECIDED, NOT_SHOWN = "UNDECIDED", "NOT SHOWN"
# Z3 per query in a check: a repro is one example, and a loaded machine must not turn a witness
# into an unknown
Z3_TIMEOUT_MS = 60_000
# What the groups' threads do in this process (plan a subject, build an example's IR to judge it)
# one at a time: TVM's TE keeps its op-tag scope in process-wide state, so two legalizations at
# once raised "nested op_tag is not allowed" (an internal error of `known --check --jobs 2`)
_IN_PROCESS = threading.Lock()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"known: {message}; see `passcheck known --help`")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="passcheck known", description="The known TVM bugs passcheck keeps: list them, print one's "
                                                    "repro, or check which still reproduce on the installed TVM.")
    p.add_argument("names", nargs="*", metavar="NAME", help="known bugs (default: all); `show NAME` prints the kept "
                                                            "repro of NAME as a runnable script")
    p.add_argument("--check", action="store_true", help="run the kept repros on the installed TVM: which still "
                                                        "reproduce, which are fixed (XPASS), which changed")
    p.add_argument("--strict", action="store_true", help="with --check: a fixed bug (XPASS) exits 1 too, as "
                                                         "pytest's xfail_strict")
    p.add_argument("--jobs", type=int, default=0, metavar="N", help="with --check: worker processes (default: "
                                                                    "one per core)")
    p.add_argument("--timeout", type=float, default=300.0, help="with --check: seconds per repro")
    p.add_argument("--tvmscript", action="store_true", help="with show: the input module of each repro as TVMScript "
                                                            "(built in a worker process), with what the property says")
    return p


@command("known")
def known_command(args: list[str]) -> int:
    """passcheck known [show NAME | --check [NAME...]]: the known TVM bugs, their repros, and
    which the installed TVM still has."""
    from passcheck.core import plugins
    from passcheck.core.known import KNOWN_BUGS, load_repros

    ns = _parser().parse_args(args)
    show = ns.names[:1] == ["show"]
    names = ns.names[1:] if show else ns.names
    if ns.jobs < 0:
        raise UsageError("known: --jobs must be 0 (one per core) or more")
    plugins.load_families()
    repros = load_repros()
    if show and (len(names) != 1 or ns.check):
        raise UsageError("known show takes one NAME (`passcheck known` lists them)")
    bugs = [KNOWN_BUGS.get(n) for n in names] if names else list(KNOWN_BUGS.values())
    if show:
        mine = repros.get(bugs[0].name, [])
        print(_tvmscript(mine, ns.timeout) if ns.tvmscript else repro_script(bugs[0], mine))
        return EXIT_OK
    if ns.check:
        return _check(bugs, repros, ns)
    _list(bugs, repros)
    return EXIT_OK


def _list(bugs: list[Any], repros: dict[str, list[Any]]) -> None:
    """One entry per bug: its name (what findings are marked with), where it shows up, a note."""
    from rich.markup import escape

    from passcheck.core.tvm_build import tvm_build

    out = console()
    out.print(f"{len(bugs)} known TVM bugs; this run's {tvm_build().describe()}", highlight=False)
    for b in bugs:
        where = dict.fromkeys(f"{r.subject}: {r.prop}" if not r.script else "a TVM program" for r in repros.get(b.name, []))
        shown = "; ".join(where) or f"{', '.join(b.subjects) or 'any'}: {', '.join(b.properties) or 'any'}"
        out.print(f"[bold]{escape(b.name)}[/bold]  {escape(shown)}", highlight=False)
        out.print(f"    {escape(_clip(b.note))} (seen on TVM {escape(b.seen_on)})", highlight=False)
    out.print("`passcheck known show NAME` prints a kept repro; `passcheck known --check` runs them all on this TVM.",
              highlight=False)


def _clip(note: str, width: int = 200) -> str:
    return note if len(note) <= width else note[:width - 1].rstrip() + "…"


SCRIPT = '''#!/usr/bin/env python
"""Known TVM bug {name}

{note}

Seen on TVM {seen}. Each repro below is an example passcheck draws, the subject (pass or
schedule primitive) it runs and the property it fails. Run `python {fname}`: exit 1 while the
bug reproduces on the installed TVM, 0 once it is fixed (`passcheck known --check {name}` also
says whether the failure is still this bug's).
"""

import sys

{imports}
from passcheck.core.engine.repro import recheck

REPROS = [
{repros}
]

if __name__ == "__main__":
    sys.exit(max(recheck(subject=s, prop=p, example=e, ir=ir) for s, p, ir, e in REPROS))
'''


def repro_script(bug: Any, repros: list[Any]) -> str:
    """A kept repro as a standalone Python script (it needs passcheck and TVM, no checkout)."""
    from passcheck.core.literal import imports_for, literal

    if not repros:
        raise UsageError(f"known bug {bug.name} ships no repro; its test is {bug.repro}")
    seen = bug.seen_on + (f" (commit {bug.seen_commit})" if bug.seen_commit else " (a build that records no commit)")
    scripts = [r.script for r in repros if r.script]
    if scripts:  # a TVM program: exit 1 while it reproduces
        note = bug.note.replace('"' * 3, "'" * 3)
        return (f'"""Known TVM bug {bug.name}\n\n{note}\n\nSeen on TVM {seen}. Exit 1 while it reproduces, 0 once '
                f'fixed.\n"""\n{scripts[0].strip()}\n')
    imports: dict[str, None] = {}
    entries = []
    for r in repros:
        imports.update(dict.fromkeys(imports_for(r.example)))
        entries.append(f"    ({r.subject!r}, {r.prop!r}, {r.ir!r},\n        {literal(r.example, 8)}),")
    return SCRIPT.format(name=bug.name, note=bug.note.replace('"""', "'''"), seen=seen, fname=f"{bug.name}.py",
                         imports="\n".join(sorted(imports)), repros="\n".join(entries))


@dataclass
class Verdict:
    """What one kept repro did on this TVM."""

    status: str
    detail: str = ""


def _check(bugs: list[Any], repros: dict[str, list[Any]], ns: argparse.Namespace) -> int:
    from rich.markup import escape

    from passcheck.core.engine.results import cpu_count
    from passcheck.core.tvm_build import tvm_build

    out = console()
    todo = [r for b in bugs for r in repros.get(b.name, [])]
    out.print(f"passcheck known --check: {len(todo)} kept repros of {len(bugs)} known bugs on "
              f"{tvm_build().describe()}", highlight=False)
    groups: dict[tuple[str, str], list[Any]] = {}
    for r in todo:  # a TVM program each on its own; examples by subject, one worker each
        groups.setdefault(_group(r), []).append(r)
    start = time.perf_counter()
    counts = {REPRODUCES: 0, FIXED: 0, CHANGED: 0, UNBUILDABLE: 0, UNDECIDED: 0, NOT_SHOWN: 0, "no repro": 0}
    with ThreadPoolExecutor(ns.jobs or cpu_count(), thread_name_prefix="passcheck-known") as ex:
        futures = {key: ex.submit(_run_group, key, rs, ns.timeout) for key, rs in groups.items()}
        for b in bugs:
            mine = repros.get(b.name, [])
            verdicts = [_verdict_of(futures, r) for r in mine]
            status = _bug_status(verdicts)
            if status == FIXED and b.shows_on:
                status = NOT_SHOWN  # it shows only on some machines or runs: holding here is no fix
            counts[status] += 1
            style = {REPRODUCES: "", FIXED: "bold green", CHANGED: "bold red", UNBUILDABLE: "bold red"}.get(status, "")
            line = f"{status:<12} {b.name}"
            if status == REPRODUCES and len(verdicts) > 1 and any(v.status != REPRODUCES for v in verdicts):
                line += f" ({sum(v.status == REPRODUCES for v in verdicts)} of {len(verdicts)} repros)"
            out.print(f"[{style}]{escape(line)}[/{style}]" if style else escape(line), highlight=False)
            for r, v in zip(mine, verdicts):
                if v.status != REPRODUCES:
                    out.print(f"    {escape(r.subject)} / {escape(r.prop)}: {escape(v.detail)}", highlight=False)
            if status == FIXED:
                out.print(f"    fixed since TVM {escape(b.seen_on)}: turn its test into a regression test and "
                          "drop the declaration", highlight=False)
            elif status == NOT_SHOWN:
                out.print(f"    it shows only on {escape(b.shows_on)}", highlight=False)
    parts = [f"{counts[REPRODUCES]} reproduce", f"{counts[FIXED]} fixed (XPASS)", f"{counts[CHANGED]} changed"]
    parts += [f"{counts[k]} {k.lower()}" for k in (UNBUILDABLE, UNDECIDED, NOT_SHOWN, "no repro") if counts[k]]
    out.print(f"== {', '.join(parts)} in {time.perf_counter() - start:.1f} s ==", highlight=False)
    failed = counts[CHANGED] + counts[UNBUILDABLE] + counts["no repro"] + (counts[FIXED] if ns.strict else 0)
    return EXIT_FINDINGS if failed else EXIT_OK


def _group(repro: Any) -> tuple[str, str]:
    return ("", str(id(repro))) if repro.script else (repro.subject, repro.ir)


def _verdict_of(futures: dict[tuple[str, str], Future[dict[int, Verdict]]], repro: Any) -> Verdict:
    try:
        return futures[_group(repro)].result()[id(repro)]
    except UsageError as e:  # the subject or property no longer resolves
        return Verdict(UNBUILDABLE, str(e))


def _bug_status(verdicts: list[Verdict]) -> str:
    """A bug reproduces while any of its repros does; it is fixed once every one holds."""
    if not verdicts:
        return "no repro"
    statuses = {v.status for v in verdicts}
    for status in (REPRODUCES, CHANGED, UNBUILDABLE, UNDECIDED):
        if status in statuses:
            return status
    return FIXED


def _run_group(key: tuple[str, str], repros: list[Any], timeout: float) -> dict[int, Verdict]:
    """The repros of one subject, in one worker process (a repro may crash it: the evaluator
    turns that into a crash finding and starts another)."""
    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.subject import Options

    subject, ir = key
    if not subject:
        return {id(r): _run_script(r, timeout) for r in repros}
    props = tuple(dict.fromkeys(r.prop for r in repros))
    with _IN_PROCESS:
        p = plan(RunConfig(subject=subject, ir=ir, properties=props, timeout=timeout,
                           options=Options(extra=(("z3_timeout_ms", Z3_TIMEOUT_MS),))))
    out = {}
    with Evaluator(p) as evaluate:
        for r in repros:
            res = evaluate(r.example)  # (in the worker process: groups' workers run at once)
            with _IN_PROCESS:
                out[id(r)] = judge(p.subject, r, res)
    return out


def _run_script(repro: Any, timeout: float) -> Verdict:
    """A TVM program: exit 1 while the bug reproduces, 0 once fixed; anything else changed."""
    import subprocess
    import sys

    try:
        proc = subprocess.run([sys.executable, "-c", repro.script], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Verdict(CHANGED, f"the program ran past {timeout:g} s")
    said = (proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines() or [""])[-1][:200]
    status = {1: REPRODUCES, 0: FIXED}.get(proc.returncode, CHANGED)
    return Verdict(status, f"exit {proc.returncode}: {said}")


def judge(subject: Any, repro: Any, res: Any) -> Verdict:
    """Did ``res`` (the repro's example, evaluated) show the repro's bug?"""
    from passcheck.core.known import recognise_example
    from passcheck.core.outcome import Verdict as PropertyVerdict

    if res.rejected is not None:
        return Verdict(UNBUILDABLE, f"the example can no longer be built: {res.rejected}")
    o = res.outcomes[repro.prop]
    if o.verdict.finding:
        found = recognise_example(subject, repro.prop, repro.example, o.message, res.input_script, res.output_script)
        if found is not None and found.name == repro.bug:
            return Verdict(REPRODUCES)
        what = f"now the known bug {found.name}" if found is not None else "a finding no known bug explains"
        return Verdict(CHANGED, f"{what}: {o.verdict}: {o.message.splitlines()[0][:200] if o.message else ''}")
    status = UNDECIDED if o.verdict == PropertyVerdict.UNKNOWN else FIXED  # held, or now discarded (refused)
    return Verdict(status, f"{o.verdict}" + (f" ({o.message.splitlines()[0][:160]})" if o.message else ""))


def _tvmscript(repros: list[Any], timeout: float) -> str:
    """Each repro's input module as TVMScript, as the worker builds it, with what the property
    says of it on this TVM (comments)."""
    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    parts = []
    for r in repros:
        if r.script:
            parts.append(f"# a TVM program, not a module: `passcheck known show {r.bug}` prints it")
            continue
        with Evaluator(plan(RunConfig(subject=r.subject, ir=r.ir, properties=(r.prop,), timeout=timeout))) as ev:
            res = ev(r.example)
        o = res.outcomes.get(r.prop)
        said = f"{o.verdict}: {o.message.splitlines()[0][:300]}" if o is not None and o.message else str(o and o.verdict)
        script = res.input_script or "# (this TVM raised no finding: the example's module is printed with a failure only)"
        parts.append(f"# {r.subject} / {r.prop}: {said}\n{script}")
    return "\n\n".join(parts)
