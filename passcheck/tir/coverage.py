"""What a TIR example exercised, for the coverage report: the kernel kind and its index dtype,
symbolic and fused-stage variants, the primitives under test and consecutive primitive pairs,
and whether TVM applied the steps or refused them (a ScheduleError)."""

from __future__ import annotations

from typing import Any


def coverage(example: Any, case: Any | None) -> dict[str, tuple[str, ...]]:
    spec = getattr(example, "spec", None)
    steps = getattr(example, "steps", ())
    under_test = [s.prim for s in steps[getattr(example, "prefix", 0):]]
    out: dict[str, tuple[str, ...]] = {}
    if spec is not None:
        variants = [spec.index_dtype] + [v for v, on in (("symbolic", spec.symbolic), ("prologue", spec.prologue),
                                                         ("epilogue", spec.epilogue)) if on]
        out["kernel kinds"] = (spec.kind,)
        out["kernel variants"] = tuple(variants)
    if steps:
        out["primitives"] = tuple(sorted(set(under_test)))
        prims = [s.prim for s in steps]
        out["primitive pairs"] = tuple(sorted({f"{a}->{b}" for a, b in zip(prims, prims[1:])}))
        out["steps"] = (f"{len(steps)} steps",)
        refused = case is None or getattr(case, "after", None) is None
        out["outcome"] = ("refused or raised" if refused else "applied",)
    return out
