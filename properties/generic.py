"""Generic properties: they hold for every Relax pass."""

from __future__ import annotations

from passcheck import IllFormed, Violation, discard, prop
from passcheck.core.errors import PrerequisiteRaised
from passcheck.relax.types import compare_signatures


@prop()
def pass_does_not_raise(case) -> None:
    """The pass returns a module for every well-formed input instead of raising; so do the
    passes run before it (LegalizeOps before FuseOps): one of those raising is a finding of
    kind ``prerequisite-raised``."""
    from passcheck.core.errors import without_op_reprs

    if getattr(case, "prerequisite_raised", ""):
        raise PrerequisiteRaised(without_op_reprs(case.prerequisite_raised))
    if case.raised is not None:
        raise Violation(f"the pass raised {without_op_reprs(case.raised_traceback)}")


@prop()
def well_formed(case) -> None:
    """Input and output are well-formed Relax (relax.analysis.check_well_formed)."""
    from tvm import relax

    if case.after is None:
        discard("the pass raised")
    def normalized(mod):  # noqa: ANN001, ANN202
        return relax.transform.NormalizeGlobalVar()(relax.transform.Normalize()(mod))

    # An input only out of normal form is drawn on purpose (a call nested in another's arguments
    # for Normalize, a public function named other than its global_symbol for NormalizeGlobalVar):
    # the output is then checked in normal form too.
    input_ok = relax.analysis.check_well_formed(case.before)
    if not input_ok and not relax.analysis.check_well_formed(normalized(case.before)):
        discard("input not well-formed (a generator problem, reported by the validity tests)")
    after = case.after if input_ok else normalized(case.after)
    if not relax.analysis.check_well_formed(after):
        try:
            relax.analysis.well_formed(after)
            detail = ""
        except ValueError as e:
            detail = ": " + str(e).strip().splitlines()[-1]
        raise IllFormed("the output module is not well-formed" + detail)


@prop()
def signature_preserved(case) -> None:
    """``main`` (a given module's entry function) keeps its parameter and return types; symbolic shapes are proved equal with Z3
    (on failure, the dims assignment that separates them is reported)."""
    if case.after is None:
        discard("the pass raised")
    entry = case.entry
    convention = getattr(case, "conventions", {}).get("after")
    if convention:
        discard(f"the pass changes {entry}'s calling convention by design ({convention}; semantics_preserved "
                "calls it that way)")
    declared = case.before[entry].ret_ty
    if declared is not None and not declared.is_base_of(case.before[entry].body.body.ty):
        discard("the input's declared return type does not admit its own body (`passcheck verify` reports it)")
    if entry not in [g.name_hint for g in case.after.get_global_vars()]:
        raise IllFormed(f"the output module has no function `{entry}`")
    m = compare_signatures(case.before[entry], case.after[entry])
    if m is not None:
        raise IllFormed(f"signature of {entry} changed: " + m.describe())


@prop()
def semantics_preserved(case) -> None:
    """The output computes what the input graph means: compiled on CPU and run on the same inputs,
    every output is within the float64 reference's dtype- and accumulation-aware error bound, and
    so is every output of a second call on the same inputs."""
    if case.after is None:
        discard("the pass raised")
    got = case.run("after")
    bad = case.compare_with_reference(got)
    if bad is not None:
        i, mm = bad
        raise Violation("wrong numbers: " + mm.describe(case.output_label(i)))
    # a program that changes its own state (an in-place call writing into a constant) is right the
    # first time it is called and wrong the next: the VM runs every call twice (execution.call_all)
    again = getattr(got, "again", None)
    bad = case.compare_with_reference(again) if again is not None else None
    if bad is not None:
        i, mm = bad
        raise Violation("wrong numbers on the second call (the same inputs; the first call's outputs were right): "
                        + mm.describe(case.output_label(i)))
