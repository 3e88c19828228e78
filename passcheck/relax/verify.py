"""``passcheck verify`` for Relax functions: well-formedness and types of one given module.

Types: every binding's annotated type must admit the type TVM infers again for its value (a
call re-normalized from its operator and arguments), and the function's declared return type
must admit its body's. A value TVM cannot re-infer is unknown, never an error of the command.
"""

from __future__ import annotations

from typing import Any

from passcheck.core.verdicts import Check


def _line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    return f"{type(e).__name__}: {lines[-1][:300] if lines else ''}"


def _well_formed(mod: Any) -> Check:
    from tvm import relax

    try:
        if relax.analysis.check_well_formed(mod):
            return Check("(module)", "well-formed", "ok", "well-formed Relax")
        relax.analysis.well_formed(mod)
        detail = ""
    except Exception as e:  # noqa: BLE001 - the checker's own message says what is wrong
        detail = f": {_line(e)}"
    return Check("(module)", "well-formed", "ill-formed", f"relax.analysis.well_formed rejects it{detail}")


def _types(mod: Any, name: str, func: Any) -> Check:
    from tvm import relax

    bb = relax.BlockBuilder(mod)
    bad: list[str] = []
    unknown: list[str] = []
    checked = 0
    for block in func.body.blocks:
        for binding in block.bindings:
            value = binding.value
            if not isinstance(value, relax.Call):
                continue
            try:
                again = bb.normalize(relax.Call(value.op, value.args, value.attrs, value.ty_args)).ty
            except Exception as e:  # noqa: BLE001
                unknown.append(f"{binding.var.name}: not re-inferred ({_line(e)})")
                continue
            checked += 1
            if not binding.var.ty.is_base_of(again):
                bad.append(f"{binding.var.name}: annotated {binding.var.ty}, its value is {again}")
    if func.ret_ty is not None and not func.ret_ty.is_base_of(func.body.body.ty):
        bad.append(f"returns {func.body.body.ty}, declared {func.ret_ty}")
    status = "ill-formed" if bad else "unknown" if unknown else "ok"
    summary = f"{checked} bindings re-inferred" + (f", {len(bad)} type(s) wrong" if bad else "") + (
        f", {len(unknown)} unknown" if unknown else "")
    return Check(name, "types", status, summary, [f"wrong type: {b}" for b in bad] + [f"unknown: {u}" for u in unknown])


def verify_relax(mod: Any) -> list[Check]:
    """Well-formedness of the module and the types of each Relax function."""
    from tvm import relax

    out = [_well_formed(mod)]
    for gv, func in sorted(mod.functions_items(), key=lambda kv: kv[0].name_hint):
        if isinstance(func, relax.Function):
            try:
                out.append(_types(mod, gv.name_hint, func))
            except Exception as e:  # noqa: BLE001
                out.append(Check(gv.name_hint, "types", "unknown", f"not checked: {_line(e)}"))
    return out
