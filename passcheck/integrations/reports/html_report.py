"""``--report html:PATH``: one self-contained page (plots embedded as PNG data, no outside
resource): the property table, each finding with its TVMScript, coverage and time per stage."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

from passcheck.integrations.reports import report_format
from passcheck.integrations.reports.breakdown import stages, tvm_line

STYLE = """
body{font-family:sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.3em .7em;text-align:right}
td:first-child,th:first-child{text-align:left}tr.bad td{background:#fbe3e3}
pre{background:#f6f6f6;padding:.8em;overflow:auto;max-height:30em;font-size:12px}
.finding{border-left:4px solid #c33;padding-left:1em;margin:1.5em 0}.known{border-left-color:#d90}
img{max-width:100%}h2{border-bottom:1px solid #ddd}
"""


def _plot_png(draw: Any, height: float) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, height), dpi=90)
    draw(ax)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _stage_plot(result: Any) -> str:
    spent = stages(result)
    n = max(1, result.examples + result.rejected)

    def draw(ax: Any) -> None:
        names = [k for k, _ in spent][::-1]
        ax.barh(names, [1000 * v / n for _, v in spent][::-1], color="#4477aa")
        ax.set_xlabel("ms per example")
        ax.set_title("time per example, by stage")

    return _plot_png(draw, 0.35 * len(spent) + 1.2)


def _coverage_plot(category: str, items: dict[str, int], examples: int) -> str:
    top = sorted(items.items(), key=lambda kv: (-kv[1], kv[0]))[:25]

    def draw(ax: Any) -> None:
        ax.barh([k for k, _ in top][::-1], [v for _, v in top][::-1], color="#228833")
        ax.set_xlabel(f"examples (of {examples})")
        ax.set_title(f"{category}: {len(items)} seen" + (", 25 most frequent shown" if len(items) > 25 else ""))

    return _plot_png(draw, 0.28 * len(top) + 1.2)


def render(result: Any) -> str:
    e = html.escape
    cfg = result.config
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>passcheck {e(result.subject_name)}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>passcheck {e(result.subject_name)}</h1>",
             f"<p class='tvm'>{e(tvm_line(result))}</p>",
             f"<p>{result.examples} examples, seed {cfg.seed}, {cfg.workers} worker(s), {result.duration_s:.1f} s; "
             f"{len(result.new_findings)} new finding(s), {len(result.known_bugs_hit())} known TVM bug(s) hit "
             f"(not counted{', --strict-known: counted' if cfg.strict_known else ''})"
             + (f"; {result.replayed} saved failure(s) replayed first" if result.replayed else "")
             + (f"; {result.rejected} drawn example(s) could not be built" if result.rejected else "") + "</p>",
             (f"<p class='activity'>{e(result.activity_line())}</p>" if result.activity_line() else ""),
             (f"<p class='finding known'>warning: {e(result.activity_warning())}</p>"
              if result.activity_warning() else ""),
             "<h2>Properties</h2><table><tr><th>property</th><th>held</th><th>violated</th><th>known</th>"
             "<th>discarded</th>"
             "<th>of which unknown</th></tr>"]
    for n, s in result.stats.items():
        cls = " class='bad'" if s.violated > s.known_violations else ""
        parts.append(f"<tr{cls}><td>{e(n)}</td><td>{s.held}</td><td>{s.violated - s.known_violations}</td>"
                     f"<td>{s.known_violations}</td><td>{s.discarded}</td>"
                     f"<td>{s.unknown}</td></tr>")
    parts.append("</table>")
    if result.timings:
        parts.append(f"<h2>Time</h2><img alt='time per stage' src='{_stage_plot(result)}'>")
    if result.coverage:
        parts.append("<h2>Coverage</h2>")
        for category, items in result.coverage.items():
            parts.append(f"<img alt='coverage of {e(category)}' src='{_coverage_plot(category, items, result.examples)}'>")
    parts.append(f"<h2>Findings ({len(result.findings)})</h2>" if result.findings else "<h2>Findings</h2><p>none</p>")
    for f in result.findings:
        known = f" — known TVM bug (kept repro: {e(f.known_bug)})" if f.known_bug else ""
        parts.append(f"<div class='finding{' known' if f.known_bug else ''}'><h3>{e(f.property)} ({e(str(f.kind))})"
                     f"{known}</h3><pre>{e(f.message)}</pre><p>repro: <code>python {e(str(f.repro))}</code>"
                     f"{'' if f.shrunk else ' (not shrunk)'}</p>")
        for title, script in (("input (TVMScript)", f.input_script), ("output (TVMScript)", f.output_script)):
            if script:
                parts.append(f"<details open><summary>{title}</summary><pre>{e(script)}</pre></details>")
        parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts)


@report_format("html")
def write_html(result: Any, path: Path) -> None:
    path.write_text(render(result))
