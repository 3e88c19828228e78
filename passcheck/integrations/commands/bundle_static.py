"""What the static checks say about the examples a GPU run disagreed with (``passcheck bundle
check DIR --static``): each anomaly's example is rebuilt and every property of its subject that
needs no GPU is asked again, in a worker process (a crash is a finding, not the end); the
share of anomalies some static check flags is the agreement of the static model with the
hardware. Every finding, the GPU's and the static ones, is recognised against the known TVM
bugs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The properties that need a GPU (here, or through a bundle): not static.
DEVICE_PROPERTIES = ("gpu_matches_cpu", "relax_gpu_matches_cpu")


@dataclass
class Anomaly:
    entry: Any
    subject: Any
    verdict: Any
    message: str
    known: str | None
    static: dict[str, tuple[Any, str, str | None]] = field(default_factory=dict)  # prop -> (verdict, message, known)
    error: str = ""  # why the static checks could not be asked
    # Rebuilt here, the example gives another kernel than the one that ran (a fix to passcheck's
    # own schedule completion since): the schedule it gives now.
    changed: str = ""

    @property
    def flagged(self) -> list[str]:
        return [p for p, (v, _, _) in self.static.items() if v.finding]


def recognise_entry(subject: Any, entry: Any, message: str, input_script: str = "",
                    output_script: str = "") -> str | None:
    """The kept repro the GPU's finding on ``entry`` matches, or None."""
    from passcheck.core.known import recognise_example

    prop = str(entry.meta.get("property", "gpu_matches_cpu"))
    # entries written since keep the scripts; the first GPU run's need --static to rebuild them
    input_script = input_script or str(entry.meta.get("input_script", ""))
    output_script = output_script or str(entry.meta.get("output_script", ""))
    bug = recognise_example(subject, prop, entry.example(), message, input_script, output_script)
    return bug.name if bug else None


def static_properties(subject_name: str, ir: str) -> tuple[str, ...]:
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    p = plan(RunConfig(subject=subject_name, ir=ir))
    return tuple(n for n in p.properties if n not in DEVICE_PROPERTIES)


def recheck(anomalies: list[Anomaly], timeout: float = 600.0) -> list[Anomaly]:
    """Ask each anomaly's example every static property of its subject (filled in place)."""
    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.known import recognise_example
    from passcheck.core.subject import Options

    by_subject: dict[tuple[str, str], list[Anomaly]] = {}
    for a in anomalies:
        by_subject.setdefault((a.subject.name, a.subject.ir), []).append(a)
    for (name, ir), group in by_subject.items():
        names = static_properties(name, ir)
        opts = Options(extra=(("note_schedule", True),))
        p = plan(RunConfig(subject=name, ir=ir, properties=names, timeout=timeout, options=opts))
        with Evaluator(p) as evaluate:
            for a in group:
                example = a.entry.example()
                res = evaluate(example)
                if res.rejected:
                    a.error = f"the example no longer builds: {res.rejected}"
                for n, o in res.outcomes.items():
                    known = None
                    if o.verdict.finding:
                        bug = recognise_example(p.subject, n, example, o.message, res.input_script, res.output_script)
                        known = bug.name if bug else None
                    a.static[n] = (o.verdict, o.message, known)
                if a.known is None:
                    a.known = recognise_entry(a.subject, a.entry, a.message, res.input_script, res.output_script)
                if a.known is None:  # explained by what a static check found on the same example
                    a.known = next((k for v, _, k in a.static.values() if v.finding and k), None)
                now, then = res.notes.get("schedule"), a.entry.meta.get("describe")
                if now is not None and then and now.strip() != str(then).strip():
                    a.changed = now
    return anomalies


def agreement(anomalies: list[Anomaly]) -> tuple[int, int]:
    """(anomalies some static check flags, anomalies), over those whose example still gives the
    kernel that ran."""
    same = [a for a in anomalies if not a.changed]
    return sum(bool(a.flagged) for a in same), len(same)


def report_agreement(out: Any, anomalies: list[Anomaly]) -> None:
    from rich.markup import escape

    for a in anomalies:
        flagged = ", ".join(f"{n} ({a.static[n][0]}{', known: ' + a.static[n][2] if a.static[n][2] else ''})"
                            for n in a.flagged) or a.error or "no static check flags it"
        out.print(f"  {escape(a.entry.id)} {escape(a.subject.name)}: GPU {a.verdict}"
                  f"{' (known: ' + escape(a.known) + ')' if a.known else ' ([red]new[/red])'}; "
                  f"static: {escape(flagged)}", highlight=False)
    gone = [a for a in anomalies if a.changed]
    for a in gone:
        shown = escape(" | ".join(a.changed.splitlines()[1:])[:300])
        out.print(f"  {escape(a.entry.id)}: rebuilt here it gives another kernel than the one that ran (schedule now: "
                  f"{shown}); flagged now: {escape(', '.join(a.flagged) or 'nothing')}", highlight=False)
    hit, n = agreement(anomalies)
    share = f" ({100 * hit / n:.0f}%)" if n else ""
    out.print(f"static checks flagged {hit} of {n} GPU anomalies{share}"
              + (f"; {len(gone)} more no longer build the kernel that ran" if gone else ""), highlight=False)
