"""Properties every TIR transformation must have (schedule primitives and custom TIR passes)."""

from __future__ import annotations

import re
from typing import Any

from passcheck import Discard, IllFormed, Unknown, Violation, prop


def _after(case: Any) -> Any:
    if case.raised is not None or case.after is None:
        raise Discard("the transformation raised; nothing to check")
    return case.after


def _first_line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    # A TVM check's message may go on with printed IR: the failed check says what went wrong.
    line = next((x for x in reversed(lines) if x.startswith("Check failed")), lines[-1] if lines else "")
    return f"{type(e).__name__}: {line[:300]}"


@prop(ir="tir")
def transformation_does_not_raise(case: Any) -> None:
    """The transformation either applies or refuses with its documented error (a
    ``ScheduleError``, which discards the example); any other exception is a bug."""
    if case.raised is not None:
        raise Violation(
            f"{case.subject} raised {_first_line(case.raised)} instead of applying or refusing with a "
            f"ScheduleError; schedule so far:\n{case.trace_text()}"
        )


@prop(ir="tir")
def well_formed_before_after(case: Any) -> None:
    """``s_tir.analysis.verify_well_formed`` accepts the module before and after the
    transformation, and the build's lowering prefix accepts the result.

    (The lowered form is not re-verified: lowering legitimately emits ``pragma_*`` attributes
    whose node is the loop variable outside its loop, which the verifier calls undefined.)"""
    from tvm import s_tir

    after = _after(case)
    if not s_tir.analysis.verify_well_formed(case.before, assert_mode=False):
        raise Discard("the input is not well-formed (generator or preparation problem)")
    if not s_tir.analysis.verify_well_formed(after, assert_mode=False):
        raise IllFormed(f"{case.subject} produced IR that verify_well_formed rejects; schedule:\n{case.trace_text()}")
    try:
        case.lowered("after")
    except Exception as e:  # noqa: BLE001 - failing to lower is itself the finding
        if _before_fails_to_lower(case):
            raise Discard("the module before the transformation does not lower either (e.g. a given module "
                          "whose match_buffer constraints are unmet): the transformation is not to blame") from None
        refuted = getattr(case, "unsafe_refuted", "")
        if refuted and re.search(refuted, str(e)):
            raise Discard(f"lowering refused what an unsafe_ step claimed (the caller's claim, TVM's check "
                          f"is right): {_first_line(e)}") from None
        raise IllFormed(
            f"lowering the output of {case.subject} raised {_first_line(e)}; schedule:\n{case.trace_text()}"
        ) from None


def _before_fails_to_lower(case: Any) -> bool:
    try:
        case.lowered("before")
    except Exception:  # noqa: BLE001
        return True
    return False


def _bounds(case: Any, which: str) -> Any:
    try:
        return case.bounds(which)
    except Exception as e:  # noqa: BLE001
        raise Discard(f"cannot lower/check the {which} module: {_first_line(e)}") from None


@prop(ir="tir")
def bounds_safe_z3(case: Any) -> None:
    """Every load and store of the lowered output is in bounds at every point of its loop nest
    (Z3 over machine integers; a violation comes with a concretely confirmed witness). Z3
    timeouts and unconfirmed models are reported as unknown (counted with the discarded), never as
    violations."""
    _after(case)
    res = _bounds(case, "after")
    if res.violations:
        already = _bounds(case, "before").violations if case.before is not None else []
        if already and case.prefix:
            raise Discard("the preparatory steps already produce out-of-bounds accesses (their own subjects report it)")
        if _preparation_breaks_domain(case):
            # e.g. a cache sized from a producer that a preparation left half-computed: the
            # region analyses of the step under test trust a domain that is already wrong.
            raise Discard("the preparatory steps already break the iteration domain (their own subjects report it)")
        note = " (the input already had out-of-bounds accesses)" if already else ""
        shown = "\n".join("  " + v.describe() for v in res.violations[:4])
        more = f"\n  ... and {len(res.violations) - 4} more" if len(res.violations) > 4 else ""
        raise Violation(
            f"after {case.subject}, the lowered code accesses memory out of bounds{note}:\n{shown}{more}\n"
            f"schedule:\n{case.trace_text()}"
        )
    if res.unknown:
        site, why = res.unknown[0]
        raise Unknown(f"bounds unknown for {len(res.unknown)} access(es), e.g. {site}: {why}")


@prop(ir="tir")
def reads_initialised(case: Any) -> None:
    """Every load of a buffer the transformed function allocates reads an element that a store
    wrote before it, in the same life of the allocation (Z3 on the load's trail, the stores'
    loop variables quantified, at the run-time sizes; each witness replayed concretely). A read
    of an intermediate, a cache or a padded copy before it is written shows here even when
    the value read never reaches the output. Where TVM's unscheduled kernel already leaves its
    output unwritten, a copy of it reads nothing written whatever the schedule: the finding says
    so (the unscheduled kernel's defect, as equivalent_by_execution reports it)."""
    _after(case)
    if not _bounds(case, "after").safe:
        raise Discard("not proved in bounds: an out-of-bounds read is the bounds property's finding")
    try:
        res = case.uninitialised("after")
    except Exception as e:  # noqa: BLE001
        raise Discard(f"cannot lower/check the after module: {_first_line(e)}") from None
    if res.reads:
        if case.before is not None and _reads_before_init(case, "before"):
            raise Discard("the module before the transformation already reads memory no store wrote")
        broken = _unscheduled_output_undefined(case)
        if broken:
            # TVM's own kernel leaves its result unwritten (a reduction over an empty axis): a copy
            # of that result reads what nobody wrote, whatever the schedule (a known TVM bug
            # matches this message, as under equivalent_by_execution)
            raise Violation(f"{broken}, and the output of {case.subject} reads it:\n  {res.reads[0].describe()}\n"
                            f"schedule:\n{case.trace_text()}")
        shown = "\n".join("  " + r.describe() for r in res.reads[:4])
        raise Violation(f"after {case.subject}, the lowered code reads memory no store wrote before:\n{shown}\n"
                        f"schedule:\n{case.trace_text()}")
    if res.unknown and not res.loads_checked:
        raise Unknown(f"initialised reads unknown: {res.unknown[0][0]}: {res.unknown[0][1]}")
    if not res.loads_checked:
        raise Discard("the function reads no buffer it allocates")


def _unscheduled_output_undefined(case: Any) -> str | None:
    """Why the unscheduled kernel's output is undefined (run only when it is proved in bounds
    and runs on this CPU), else None."""
    if not getattr(case, "executable", False):
        return None
    try:
        return case.unwritten_note() if case.bounds("original").safe else None
    except Exception:  # noqa: BLE001 - no verdict on the original: the read stands as found
        return None


def _reads_before_init(case: Any, which: str) -> bool:
    try:
        return bool(case.uninitialised(which).reads)
    except Exception:  # noqa: BLE001
        return False


@prop(ir="tir")
def equivalent_by_execution(case: Any) -> None:
    """The transformed kernel computes the same output as the unscheduled one on the same
    inputs: bit for bit, or within the float32 rounding bound of a float64 reference when a
    step may reassociate a reduction (a given module: every buffer, against the module before
    the pass). Only code Z3 proved in bounds is ever executed."""
    _after(case)
    if not case.executable:
        raise Discard("not executable on CPU (e.g. bind to GPU threads)")
    if case.unsafe:
        raise Discard("an unsafe_ primitive voids the semantic contract")
    if getattr(case, "semantics_note", None):
        raise Discard(case.semantics_note)
    for which in ("original", "after"):
        res = _bounds(case, which)
        if not res.safe:
            # Out-of-bounds kernels corrupt the heap: the bounds property reports these.
            raise Discard(f"not executed: the {which} module is not proved in bounds ({res.summary()})")
    broken = case.unwritten_note()
    if broken:
        # TVM's own kernel is wrong before any step ran: reported (a known TVM bug matches it
        # by this message), never compared with.
        raise Violation(f"{broken}: no defined output to compare the output of {case.subject} with; schedule:\n"
                        f"{case.trace_text()}")
    try:
        got = case.execute("after")
    except Discard:
        raise
    except Exception as e:  # noqa: BLE001 - failing to compile proved-safe code is a bug
        if _preparation_fails_to_build(case):
            raise Discard("the preparatory steps alone already fail to build (their own subjects report it)") from None
        raise Violation(f"compiling/running the output of {case.subject} raised {_first_line(e)}; schedule:\n"
                        f"{case.trace_text()}") from None
    bad = case.compare_outputs(got)
    if bad is not None:
        if _preparation_already_wrong(case):
            raise Discard("the preparatory steps alone already compute different values (their own subjects "
                          "report it)")
        raise Violation(f"after {case.subject} the kernel computes different values: {bad.describe()}; "
                        f"schedule:\n{case.trace_text()}")


def _preparation_fails_to_build(case: Any) -> bool:
    from passcheck.tir import execution as tir_exec

    if not case.prefix or case.before is None or not _bounds(case, "before").safe:
        return False
    try:
        tir_exec.run_scheduled(case.spec, case.before, case.lowered("before"))
    except Exception:  # noqa: BLE001
        return True
    return False


def _preparation_breaks_domain(case: Any) -> bool:
    """Do the preparatory steps alone already execute some block instance zero or several times
    (or outside its domain)?"""
    if not case.prefix or case.before is None:
        return False
    from .tir_schedule import _domain_issues

    try:
        return bool(_domain_issues(case, "before"))
    except Discard:
        return False


def _preparation_already_wrong(case: Any) -> bool:
    """Did the preparatory steps (not the step under test) already break the kernel?"""
    from passcheck.tir import execution as tir_exec

    if not case.prefix or case.before is None or not _bounds(case, "before").safe:
        return False
    # A preparation that leaves instances unexecuted reads uninitialised memory: its output is
    # right or wrong by chance from run to run, so one lucky run must not clear it.
    if _preparation_breaks_domain(case):
        return True
    try:
        got = tir_exec.run_scheduled_fills(case.spec, case.before, case.lowered("before"))
    except Exception:  # noqa: BLE001
        return False
    return tir_exec.compare_fills(case.spec, got, exact=not case.reassociates) is not None
