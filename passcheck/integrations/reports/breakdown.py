"""Where the time went and what was exercised: lines under the closing table (and the data the
HTML report plots)."""

from __future__ import annotations

from typing import Any

# The order stages happen in for one example (others, e.g. a family's own, follow by size).
STAGE_ORDER = ("generate", "build", "prerequisites", "pass", "lower", "codegen", "run", "reference", "z3",
               "check", "report")


def stages(result: Any) -> list[tuple[str, float]]:
    """(stage, seconds over all examples), in pipeline order."""
    t = dict(result.timings)
    known = [(k, t.pop(k)) for k in STAGE_ORDER if k in t]
    return known + sorted(t.items(), key=lambda kv: -kv[1])


def time_line(result: Any) -> str:
    spent = stages(result)
    total = sum(v for _, v in spent)
    n = max(1, result.examples + result.rejected)
    if not total:
        return ""
    parts = ", ".join(f"{k} {1000 * v / n:.1f} ms ({100 * v / total:.0f}%)" for k, v in spent if v / total >= 0.005)
    return f"time per example by stage: {parts}; {1000 * total / n:.1f} ms of CPU per example"


# Vocabularies whose items the coverage line names (with how many examples exercised each),
# however many there are: which ops or primitives a run drew is what one reads it for. The
# combinations (op pairs, fusion groups, primitive pairs) are counted beyond a few.
NAMED = ("ops", "dtypes", "shapes", "kernel kinds", "primitives", "mutations")


def coverage_line(result: Any) -> str:
    cov = result.coverage
    if not cov:
        return ""
    parts = []
    for category, items in cov.items():
        ranked = sorted(items.items(), key=lambda kv: (-kv[1], kv[0]))
        if len(items) <= 4 or category in NAMED:
            parts.append(f"{category} ({len(items)}): " + ", ".join(f"{k} ({v})" for k, v in ranked))
        else:
            parts.append(f"{len(items)} {category}")
    return "coverage: " + "; ".join(parts)


def tested_line(result: Any) -> str:
    """How many examples tested the pass (no property's verdict decided by a known TVM bug), and
    the examples with findings per 1,000."""
    n = result.examples
    if not n:
        return ""
    known, new = getattr(result, "known_examples", 0), getattr(result, "new_examples", 0)
    return (f"tested the pass: {n - known} of {n} examples ({100 * (n - known) / n:.1f}%), {known} decided by "
            f"known TVM bugs; examples with findings per 1,000: {1000 * new / n:.1f} new, {1000 * known / n:.1f} known")


def unknown_line(result: Any) -> str:
    """Per property, how often the check could not decide (Z3 gave up, ...)."""
    n = max(1, result.examples)
    parts = [f"{name} {s.unknown} of {result.examples} ({100 * s.unknown / n:.1f}%)"
             for name, s in result.stats.items() if getattr(s, "unknown", 0)]
    return "undecided (unknown, counted with the discarded): " + ", ".join(parts) if parts else ""


def tvm_line(result: Any) -> str:
    """``TVM 0.27.0.post1 (commit ...)``: the TVM the run used, as every report names it."""
    from passcheck.core.tvm_build import TVMBuild

    info = getattr(result, "tvm", None) or {}
    return TVMBuild(**info).describe() if info.get("version") else "TVM version not recorded"
