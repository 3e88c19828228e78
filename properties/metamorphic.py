"""Metamorphic testing (MT-DLCOMP): a mutant T(m) computes what m computes, so a pass must give
the same numbers on both, up to rounding. Needs mutants: ``--mutate K`` (or seed models)."""

from __future__ import annotations

from passcheck import Drift, Violation, discard, prop
from passcheck.relax.drift import DRIFT, LOGIC, classify


def _pass_on_base(case):  # noqa: ANN001, ANN202
    """The pass under test (with its prerequisites and follow-ups) on the unmutated graph; the
    case's own stages (read by the pass's other properties) are left as they were."""
    saved = dict(case.stages)
    try:
        return case.apply(case.prepare(case.base_module()))
    finally:
        case.stages.clear()
        case.stages.update(saved)


@prop(requires=("mutate",))
def mutant_agrees(case) -> None:
    """pass(m) and pass(T(m)) agree: each within its own float64 reference's rounding bound (T(m)'s
    reference is m's plus what the mutations add), and where they differ, by rounding only:
    drift, reported apart with its error and bound. Beyond a bound it is a logic error."""
    if getattr(case, "base_module", None) is None:
        discard("not a mutant (run with --mutate K)")
    if not case.applied:
        discard("no mutation applied (none found a value to mutate)")
    if case.after is None:
        discard("the pass raised on the mutant (pass_does_not_raise reports it)")
    try:
        base_after = case.memo("base_after", lambda: _pass_on_base(case))
    except Exception as e:  # noqa: BLE001 - the pass raising on m but not on T(m) is a finding
        lines = str(e).strip().splitlines()
        raise Violation(f"the pass raised on the unmutated graph but not on its mutant: {type(e).__name__}: "
                        f"{lines[-1][:300] if lines else ''}") from None
    case.stages["base_after"] = base_after
    diff = classify(case.run("base_after"), case.run("after"), case.base_reference(), case.reference(),
                    ("pass(m)", "pass(T(m))"))
    if diff.kind == LOGIC:
        raise Violation(diff.message)
    if diff.kind == DRIFT:
        raise Drift(diff.message)
