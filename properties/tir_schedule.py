"""Properties of schedule primitives: the iteration domain of every block is preserved.

They compare each block of the scheduled PrimFunc with the block of the same name in the
unscheduled one (see ``passcheck.tir.analysis.domain``), symbolically with Z3 (each witness
replayed concretely) and, for concrete extents, by enumerating the loop nests.
"""

from __future__ import annotations

from typing import Any

from passcheck import Discard, Unknown, Violation, prop, stage

# Steps that relocate a producer: it may recompute instances, and computes only what its
# consumers read.
RELOCATING = {"compute_at", "sample_compute_location"}
# Steps that relocate a consumer: it must still execute every instance; a spatial one may be
# re-run (it rewrites the same values), a reduction may not (it would double count).
RELOCATING_CONSUMER = {"reverse_compute_at"}
# Steps after which a block legitimately executes only part of its domain (another block
# computes the rest).
RESTRICTING = {"decompose_padding", "rolling_buffer"}


def _applied(case: Any) -> list[Any]:
    """The steps that applied, each naming the block it acted on: a step given a reference
    (``compute_at('conv<0')``: conv's producer) moved the block it resolved to (``pad``)."""
    applied = getattr(case, "applied", None)
    return list(applied) if applied else list(getattr(case.example, "steps", ()))


def _domains(case: Any, which: str = "after") -> Any:
    from passcheck.tir.analysis import check_domains
    from passcheck.tir.kernels import shape_var_value

    if case.raised is not None or case.after is None:
        raise Discard("the transformation raised; nothing to check")
    steps = _applied(case)
    if which == "before":
        steps = steps[: case.prefix]
    moved = {s.block for s in steps if s.prim in RELOCATING}
    consumers = {s.block for s in steps if s.prim in RELOCATING_CONSUMER}
    restricted = {s.block for s in steps if s.prim in RESTRICTING}

    def compute() -> Any:
        with stage("z3"):  # the time-per-stage report counts it as Z3's
            return check_domains(case.original, getattr(case, which), moved=moved, consumers=consumers,
                                 restricted=restricted, sizes=shape_var_value(case.spec),
                                 timeout_ms=case.z3_timeout_ms)

    return case.memo(("domains", which), compute)


def _padded_blocks(case: Any) -> set[str]:
    """Blocks whose buffer got a layout with ``pad_value``: TVM writes the padding from the
    producer block itself, so it legitimately runs instances beyond its original domain."""
    return {s.block for s in _applied(case) if s.prim == "transform_layout" and s.arg.get("pad_value") is not None}


def _domain_issues(case: Any, which: str = "after") -> list[Any]:
    """The domain issues of ``which``, less the padding instances a ``pad_value`` layout runs."""
    padded = _padded_blocks(case)
    return [i for i in _domains(case, which).issues if not (i.kind == "outside" and i.block in padded)]


def _report(case: Any, kinds: tuple[str, ...], what: str) -> None:
    res = _domains(case)
    issues = [i for i in _domain_issues(case) if i.kind in kinds]
    if issues and case.prefix and any(i.kind in kinds for i in _domains(case, "before").issues):
        raise Discard("the preparatory steps already break the domain (their own subjects report it)")
    if issues:
        shown = "\n".join("  " + i.describe() for i in issues[:4])
        raise Violation(f"after {case.subject}, {what}:\n{shown}\nschedule:\n{case.trace_text()}")
    if res.unknown and not res.blocks_checked:
        raise Unknown(f"domain check unknown: {res.unknown[0][1]}")
    # a question of this property's kind that Z3 left open (gave up, its budget spent) is not a
    # proof: the verdict says so instead of "held"
    open_ = [(block, why) for block, why in res.unknown if why.split(":", 1)[0] in kinds]
    if open_:
        raise Unknown(f"domain check unknown for {len(open_)} question(s), e.g. {open_[0][0]!r}: {open_[0][1]}")
    if not res.blocks_checked:
        raise Discard("no block of the result corresponds to an original block")


@prop("schedule-primitives", ir="tir")
def block_instances_within_domain(case: Any) -> None:
    """Every block that keeps its iterators executes only instances of its original iteration
    domain, at every point of its loop nest where its predicates hold (Z3, symbolic shapes
    included). A dropped tail predicate after a non-dividing split shows up here."""
    _report(case, ("outside",), "a block executes instances outside its original domain")


@prop("schedule-primitives", ir="tir")
def block_instances_exactly_once(case: Any) -> None:
    """Split/fuse/reorder and every other loop transformation keep the iteration domain: each
    original instance of a block is executed exactly once (no two loop points bind the same
    instance -- Z3; none is missing -- enumeration of concrete loop nests). Relocated producers
    (compute_at) may recompute and need full coverage only when they write an output; relocated
    spatial consumers (reverse_compute_at) may be re-run but must cover their domain."""
    _report(case, ("twice", "missing"), "the iteration domain is not preserved")


@prop("schedule-primitives", ir="tir")
def removed_guards_reproved(case: Any) -> None:
    """A condition of the original block body (``if_then_else`` or ``if``) that the scheduled
    block no longer has must hold at every instance the scheduled block executes."""
    _report(case, ("guard",), "a guard was removed although it can be false")


@prop("schedule-primitives", ir="tir")
def block_access_region_contained(case: Any) -> None:
    """Every access a scheduled block makes to a buffer its original block also accessed
    (same name and shape) lies within the region the original block accessed over its
    iteration domain (Z3 over the scheduled instance set, witness replayed): a schedule never
    makes a block touch data it did not touch before."""
    _report(case, ("region",), "a block accesses data outside its original access region")
