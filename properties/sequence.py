"""Pass sequences (``passcheck sequence``): the generic properties hold after every step, and
the first step that breaks one is blamed (prerequisites included: they are steps too)."""

from __future__ import annotations

from passcheck import Drift, IllFormed, Violation, discard, prop
from passcheck.relax.drift import DRIFT, LOGIC, classify
from passcheck.relax.sequence.execute import run_after
from passcheck.relax.sequence.steps import kind
from passcheck.relax.types import compare_signatures


def _ran(case):  # noqa: ANN001, ANN202
    ran = getattr(case, "ran", None)
    if ran is None:
        discard("not a pass sequence")
    if not ran.modules:
        discard("the first step raised (pass_does_not_raise reports it)")
    return ran


def _detail(mod) -> str:  # noqa: ANN001
    from tvm import relax

    try:
        relax.analysis.well_formed(mod)
    except ValueError as e:
        return ": " + str(e).strip().splitlines()[-1][:300]
    return ""


@prop("sequence")
def every_step_well_formed(case) -> None:
    """The module after every step is well-formed Relax; the first step that is not is blamed."""
    from tvm import relax

    ran = _ran(case)
    n = len(ran.applied)
    for i, mod in enumerate(ran.modules):
        if not relax.analysis.check_well_formed(mod):
            raise IllFormed(f"{ran.applied[i].label(i, n)} left an ill-formed module{_detail(mod)}")


@prop("sequence")
def every_step_keeps_signature(case) -> None:
    """``main`` keeps its parameter and return types after every step (symbolic dims proved
    equal with Z3); the first step that changes them is blamed."""
    ran = _ran(case)
    n = len(ran.applied)
    for i, mod in enumerate(ran.modules):
        if "main" not in [g.name_hint for g in mod.get_global_vars()]:
            raise IllFormed(f"{ran.applied[i].label(i, n)} removed main")
        m = compare_signatures(case.before["main"], mod["main"])
        if m is not None:
            raise IllFormed(f"{ran.applied[i].label(i, n)} changed main's signature: {m.describe()}")


@prop("sequence")
def every_step_preserves_semantics(case) -> None:
    """After every step that changed the module, it builds (with the rest of tvm.compile's
    lowering) and computes the graph's numbers within the rounding bound; the first step that
    breaks that is blamed. Numbers that moved along the sequence by rounding only are drift."""
    import tvm_ffi

    ran = _ran(case)
    n = len(ran.applied)
    params = case.params()
    first = case.run("before")
    last, prev = first, case.before
    for i, mod in enumerate(ran.modules):
        if not kind(ran.applied[i].name).exact_numbers:
            break  # float16 by design from here on: the float32 reference no longer applies
        if tvm_ffi.structural_equal(prev, mod):
            continue
        prev = mod
        label = ran.applied[i].label(i, n)
        try:
            outs = run_after(mod, params, ran.applied[:i + 1])
        except Exception as e:  # noqa: BLE001 - a well-formed module that no longer builds: blamed on the step
            lines = str(e).strip().splitlines()
            raise Violation(f"after {label} the module does not build or run: {type(e).__name__}: "
                            f"{lines[-1][:300] if lines else ''}") from None
        bad = case.compare_with_reference(outs)
        if bad is not None:
            raise Violation(f"{label} broke the numbers: " + bad[1].describe(f"output {bad[0]}"))
        last = outs
    refs = case.reference() if not case.no_reference else None
    if refs is None:
        return
    diff = classify(first, last, refs, refs, ("before the sequence", "after it"))
    if diff.kind == LOGIC:
        raise Violation(diff.message)
    if diff.kind == DRIFT:
        raise Drift(diff.message)
