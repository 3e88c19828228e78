"""The seed-model report (``--seed-model``): how many models imported, built, agreed with the
ONNX oracles before any pass, and held every property of the pass; and why the rest did not --
frontend error, build error, wrong numbers before the pass (frontend or build), or a pass bug.
Printed after the property table and written into the JSON report (``seed_models``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from passcheck.core.outcome import Verdict

_FINDINGS = {v.value for v in Verdict if v.finding}


def _kind(error: str) -> str:
    from passcheck.core.engine.results import message_kind

    return message_kind(error)[:110]


def summarize(result: Any) -> dict[str, Any] | None:
    """The corpus summary of the run's seed models as they are (mutants are counted in the table).
    A model drawn several times (a sequence, the pipeline) counts once: with the findings of all
    its examples."""
    rows = [r for r in result.example_notes if "seed" in r["notes"]]
    if not rows:
        return None
    per_seed: dict[str, dict[str, Any]] = {}
    for r in rows:
        n = r["notes"]
        bad = sorted(p for p, v in r["verdicts"].items() if v in _FINDINGS) if r["rejected"] is None else []
        seen = per_seed.setdefault(n["seed"], {"seed": n["seed"], "status": n.get("status"), "error": n.get("error", ""),
                                               "findings": [], "baked": n.get("baked", ""),
                                               "rejected": r["rejected"] is not None})
        seen["findings"] = sorted(set(seen["findings"]) | set(bad))
    models = list(per_seed.values())
    status = Counter(m["status"] for m in models)
    failures: dict[str, Counter[str]] = {}
    pass_findings: dict[str, list[str]] = {}
    for m in models:
        for p in m["findings"]:
            pass_findings.setdefault(p, []).append(m["seed"])
        if m["status"] != "clean":
            failures.setdefault(m["status"] or "?", Counter())[_kind(m["error"])] += 1
    clean = sum(1 for m in models if not m["rejected"] and not m["findings"] and m["status"] == "clean")
    # a model that does not build is rejected: no property ran on it
    imported = len(models) - status.get("frontend error", 0) - status.get("not a tensor model", 0)
    return {
        "models": len(models),
        "not_tensor_models": status.get("not a tensor model", 0),
        "frontend_errors": status.get("frontend error", 0),
        "imported": imported,
        "built": imported - status.get("build error", 0),
        "agree_with_onnx": status.get("clean", 0),
        "wrong_vs_onnx": status.get("wrong vs ONNX", 0),
        "no_oracle": status.get("no oracle", 0),
        "clean_under_pass": clean,
        "with_findings": sum(1 for m in models if m["findings"]),
        "pass_findings": {p: sorted(v) for p, v in pass_findings.items()},
        "failures": {k: [{"error": e, "models": c} for e, c in v.most_common()] for k, v in failures.items()},
        "per_model": [{k: v for k, v in m.items() if k != "rejected"} for m in models],
    }


def render(result: Any, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    s = summarize(result)
    if s is None:
        return
    t = Table(title=f"seed models ({s['models']})")
    for col in ("not tensors", "frontend errors", "imported", "built", "agree with ONNX", "wrong vs ONNX", "no oracle", "held every property",
                "with findings"):
        t.add_column(col, justify="right")
    t.add_row(*(str(s[k]) for k in ("not_tensor_models", "frontend_errors", "imported", "built", "agree_with_onnx", "wrong_vs_onnx", "no_oracle",
                                    "clean_under_pass", "with_findings")))
    console.print(t)
    for status, kinds in s["failures"].items():
        shown = "; ".join(f"{k['models']}x {k['error']}" for k in kinds[:4])
        more = f" (+{len(kinds) - 4} more kinds)" if len(kinds) > 4 else ""
        console.print(f"{escape(status)}: {sum(k['models'] for k in kinds)} model(s): {escape(shown)}{more}",
                      highlight=False)
    for prop, seeds in s["pass_findings"].items():
        console.print(f"pass finding {escape(prop)}: {len(seeds)} model(s), e.g. {escape(', '.join(seeds[:3]))}",
                      highlight=False)
