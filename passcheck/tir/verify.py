"""``passcheck verify`` for PrimFuncs: well-formedness and the Z3 bounds check of one given
module, with no pass.

Block-form functions are lowered first, with the build's lowering prefix, as the bounds property
does. When that prefix cannot run -- TVM's simplifier refuses to fold int32 constants that
overflow ("Literal value ... exceeds range of int32") -- the prefix without its simplifications
is used, and the index arithmetic is checked as the machine computes it (wrapping). A function
already in loop form is checked as written. Whatever cannot be modelled is *unknown*, never an
error of the command.
"""

from __future__ import annotations

from typing import Any

from passcheck.core.verdicts import Check
from passcheck.tir.analysis import check_bounds
from passcheck.tir.lowering import has_blocks, lower_to_loops


def _line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    last = lines[-1].split(" is false: ")[-1] if lines else ""  # TVM's check text, then its message
    return f"{type(e).__name__}: {last[:300]}"


def _lower(mod: Any) -> tuple[Any, str]:
    """(the block-free module, how it was lowered)."""
    try:
        return lower_to_loops(mod), "lowered"
    except Exception as first:  # noqa: BLE001 - e.g. the simplifier refusing an int32 overflow
        return lower_to_loops(mod, simplify=False), f"lowered without simplification ({_line(first)})"


def _well_formed(name: str, func: Any) -> Check:
    import tvm
    from tvm import s_tir, tirx

    mod = tvm.IRModule({name: func})
    verify = s_tir.analysis.verify_well_formed if has_blocks(mod) else tirx.analysis.verify_well_formed
    try:
        ok = verify(mod, assert_mode=False)
    except Exception as e:  # noqa: BLE001
        return Check(name, "well-formed", "unknown", f"the verifier raised {_line(e)}")
    if ok:
        return Check(name, "well-formed", "ok", "well-formed")
    try:
        verify(mod, assert_mode=True)
        detail = ""
    except Exception as e:  # noqa: BLE001 - the verifier's own message says what is wrong
        detail = f": {_line(e)}"
    return Check(name, "well-formed", "ill-formed", f"verify_well_formed rejects it{detail}")


def _bounds(name: str, func: Any, timeout_ms: int) -> Check:
    import tvm
    from tvm import tirx

    mod = tvm.IRModule({name: func})
    how = "as written"
    try:
        if has_blocks(mod):
            mod, how = _lower(mod)
        funcs = [f for _, f in mod.functions_items() if isinstance(f, tirx.PrimFunc)]
        res = check_bounds(funcs[0], timeout_ms)
    except Exception as e:  # noqa: BLE001 - a module the checker cannot model is unknown
        return Check(name, "bounds", "unknown", f"not checked: {_line(e)}")
    lines = [f"out of bounds: {w.describe()}" for w in res.violations]
    lines += [f"unknown: {site}: {why}" for site, why in res.unknown]
    status = "violation" if res.violations else "unknown" if res.unknown else "ok"
    by_z3 = res.accesses - res.by_intervals
    summary = (f"{res.accesses} accesses ({res.by_intervals} by intervals, {by_z3} by Z3; {how}): "
               + ("every one in bounds" if status == "ok" else
                  f"{len(res.violations)} out of bounds, {len(res.unknown)} unknown"))
    return Check(name, "bounds", status, summary, lines)


def verify_primfuncs(mod: Any, timeout_ms: int = 2000) -> list[Check]:
    """Well-formedness and bounds of every PrimFunc of ``mod``."""
    from tvm import tirx

    out = []
    for gv, func in sorted(mod.functions_items(), key=lambda kv: kv[0].name_hint):
        if isinstance(func, tirx.PrimFunc):
            out += [_well_formed(gv.name_hint, func), _bounds(gv.name_hint, func, timeout_ms)]
    return out
