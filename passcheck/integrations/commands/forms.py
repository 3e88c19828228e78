"""``passcheck list --forms [PASS]``: the forms a pass's examples exercise and how often -- each
coverage category (ops, each op's attribute forms, the dtypes ops read, input value forms,
structural coincidences; for TIR kernel kinds, primitives...) with the examples that drew each
item, and the forms the drawn ops declare (``OpSpec.forms``) that no example drew. Drawn here with the pass's own strategy and seed (the draws a campaign of that seed
starts from; nothing is compiled or run), or read from a campaign's JSON report (``--report``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from passcheck.core.errors import UsageError


def drawn_coverage(subject_name: str, examples: int, seed: int,
                   draws: str = "hypothesis") -> tuple[int, dict[str, Counter[str]]]:
    """(examples drawn, coverage counts by category) of ``examples`` drawn for the subject."""
    from passcheck.core.draws import examples_of
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    p = plan(RunConfig(subject=subject_name, examples=examples, seed=seed, draws=draws))
    drawn = examples_of(p.strategy(), examples, seed, draws)
    counts: dict[str, Counter[str]] = {}
    for example in drawn:
        for category, items in p.subject.coverage(example, None).items():
            counts.setdefault(category, Counter()).update(set(items))
    return len(drawn), counts


def report_coverage(path: str) -> tuple[str, int, dict[str, Counter[str]]]:
    """(pass, examples, coverage counts) of a campaign's JSON report (``--report json:PATH``)."""
    try:
        data = json.loads(Path(path).read_text())
        coverage = {c: Counter({k: int(v) for k, v in items.items()}) for c, items in data["coverage"].items()}
        return str(data["pass"]), int(data["examples"]), coverage
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise UsageError(f"list --forms --report {path}: not a passcheck JSON report ({type(e).__name__}: {e}); "
                         f"write one with `passcheck PASS --report json:{path}`") from None


def render_forms(out: Any, subject_name: str, examples: int, seed: int, report: str | None,
                 draws: str = "hypothesis") -> None:
    from rich.markup import escape
    from rich.table import Table

    from passcheck.relax.forms import CATEGORIES, unreached

    if report:
        subject_name, n, counts = report_coverage(report)
        source = f"the campaign of {report}"
    else:
        n, counts = drawn_coverage(subject_name, examples, seed, draws)
        source = f"{n} examples drawn at seed {seed}" + (" (independent draws)" if draws != "hypothesis" else "")
    order = [c for c in CATEGORIES if c in counts] + [c for c in counts if c not in CATEGORIES]
    out.print(escape(f"{subject_name}: the forms of {source}"), soft_wrap=True)
    for category in order:
        items = counts[category]
        once = sum(1 for v in items.values() if v == 1)
        # a line of its own: a table's title wraps at the table's width
        out.print(escape(f"{subject_name}: {category}: {len(items)} forms, {once} drawn once"), soft_wrap=True)
        t = Table()
        for col in ("form", "examples", "share"):
            t.add_column(col)
        for item, k in sorted(items.items(), key=lambda kv: (-kv[1], kv[0])):
            t.add_row(escape(item), str(k), f"{100 * k / n:.1f}%" if n else "-")
        out.print(t)
        if category == "op attributes":
            declared, missed = unreached(counts)
            # the declared forms of the drawn ops this run never drew: what its planted bugs miss
            out.print(escape(f"{subject_name}: op attributes: {declared - len(missed)} of the {declared} forms declared "
                             f"by the ops drawn were drawn; never drawn: {', '.join(missed) or 'none'}"), soft_wrap=True)
