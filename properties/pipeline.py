"""The whole pipeline (``passcheck pipeline``): every build of one module -- pipeline, opt level,
CPU -- builds, runs and computes the graph's numbers; builds apart by rounding only are drift."""

from __future__ import annotations

from passcheck import Drift, Violation, discard, prop
from passcheck.core.errors import error_line
from passcheck.relax.drift import DRIFT, LOGIC, classify
from passcheck.relax.pipeline import run_build


def _outputs(case, build):  # noqa: ANN001, ANN202
    return case.memo(("build", build), lambda: run_build(case.built, build, case.params(), case.misaligned))


@prop("pipeline")
def every_build_runs(case) -> None:
    """Every build (pipeline x opt level x CPU) of a well-formed module compiles and runs."""
    builds = getattr(case, "builds", None)
    if builds is None:
        discard("not a pipeline example")
    for b in builds:
        try:
            _outputs(case, b)
        except Exception as e:  # noqa: BLE001 - a build failing is a finding, blamed on its config
            raise Violation(f"the {b.describe()} build fails: {type(e).__name__}: {error_line(e, 300)}") from None


@prop("pipeline")
def builds_agree(case) -> None:
    """Every build computes the graph's numbers within the float64 reference's rounding bound
    (the build that does not is blamed); builds that differ by rounding only are drift."""
    builds = getattr(case, "builds", None)
    if builds is None:
        discard("not a pipeline example")
    got = {}
    for b in builds:
        try:
            got[b] = _outputs(case, b)
        except Exception:  # noqa: BLE001 - every_build_runs reports it
            continue
    if not got:
        discard("no build ran (every_build_runs reports it)")
    refs = case.reference()
    for b, outs in got.items():
        bad = case.compare_with_reference(outs)
        if bad is not None:
            raise Violation(f"the {b.describe()} build is wrong: " + bad[1].describe(f"output {bad[0]}"))
    base, *others = list(got.items())
    worst = None
    for b, outs in others:
        d = classify(base[1], outs, refs, refs, (base[0].describe(), b.describe()))
        if d.kind == LOGIC:
            raise Violation(d.message)
        if d.kind == DRIFT and (worst is None or d.error > worst.error):
            worst = d
    if worst is not None:
        raise Drift(worst.message)
