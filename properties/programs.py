"""Properties of the program structures (issue 19): memory plans read and poisoned, lifted weights
applied once, purity kept, helper functions still computing what they did."""

from __future__ import annotations

from passcheck import Violation, discard, prop, require


@prop("memory-planning")
def planned_storage_poisoned(case) -> None:
    """With every storage the plan allocates filled with 0xFF bytes (NaN, -1) as soon as it is
    allocated, the outputs still match the float64 reference: no tensor is read before it is written."""
    from passcheck.relax import execution
    from passcheck.relax.memory_plan import poisoned

    if case.after is None:
        discard("the pass raised")
    mod, count = poisoned(case.after)
    if not count:
        discard("the plan allocates no storage of a static size")
    vm = execution.compile_relax(mod, case.pipeline_for.get("after", "default"))
    got = execution.call_all(vm, case.entry, case.calls(), case.tensor_inputs)
    bad = case.compare_with_reference(got)
    if bad is not None:
        i, mm = bad
        raise Violation(f"with its {count} planned storage(s) poisoned before use: " + mm.describe(case.output_label(i)))


@prop("memory-planning")
def no_live_tensors_share_storage(case) -> None:
    """No two tensors the plan places in one storage overlap in bytes while both are live (from the
    binding that allocates each to the last binding that reads it or an alias of it)."""
    from tvm import relax

    from passcheck.relax.memory_plan import overlaps, placements

    if case.after is None:
        discard("the pass raised")
    seen = 0
    for gv, func in case.after.functions_items():
        if not isinstance(func, relax.Function):
            continue
        for group in placements(func):
            seen += len(group)
            for a, b in overlaps(group):
                raise Violation(f"{gv.name_hint}: {a.tensor} (bytes {a.start}..{a.start + a.size} of {a.storage}, live "
                                f"from binding {a.born} to {a.dies}) and {b.tensor} (bytes {b.start}..{b.start + b.size}, "
                                f"live from {b.born} to {b.dies}) share storage while both are live")
    if not seen:
        discard("no tensor placed in a storage")


@prop("lifted-params")
def lifted_params_agree(case) -> None:
    """``main(inputs, transform_params(weights))`` computes what ``main(inputs, weights)`` did: every
    output of the lifted module, called that way, within the float64 reference's bound."""
    if case.after is None:
        discard("the pass raised")
    names = {gv.name_hint for gv in case.after.get_global_vars()}
    if "main_transform_params" not in names:
        discard("no main_transform_params: nothing was lifted")
    bad = case.compare_with_reference(case.run("after"))
    if bad is not None:
        i, mm = bad
        raise Violation("main(inputs, main_transform_params(weights)) differs from main(inputs, weights): "
                        + mm.describe(case.output_label(i)))


@prop()
def purity_kept(case) -> None:
    """Every Relax function the input declares pure is still pure after the pass (unless the pass
    changes the calling convention by design: LazySetOutput's callback is impure)."""
    from tvm import relax

    if case.after is None:
        discard("the pass raised")
    if getattr(case, "conventions", {}).get("after"):
        discard("the pass changes the calling convention by design")
    after = {gv.name_hint: f for gv, f in case.after.functions_items() if isinstance(f, relax.Function)}
    for gv, func in case.before.functions_items():
        if isinstance(func, relax.Function) and func.is_pure and gv.name_hint in after:
            require(after[gv.name_hint].is_pure, f"{gv.name_hint} was pure and is no longer")


@prop("functions")
def functions_agree(case) -> None:
    """Every public function of the input other than the entry (found by its global_symbol, whatever
    the pass renamed, inlined or lifted) computes bitwise what it did, on the arguments ``main``
    hands it (a helper may be defined only there: gather_nd's indices, a divisor)."""
    from passcheck.relax import execution

    if case.after is None:
        discard("the pass raised")
    public = _public(case.before, case.entry)
    after = _public(case.after, case.entry)
    shared = [s for s in public if s in after and _static(public[s])]
    arguments = {s: getattr(case, "helper_arguments", lambda _: [])(s) for s in shared}
    shared = [s for s in shared if arguments[s]]
    if not shared:
        discard("no public function besides the entry (with static parameter types) that main calls")
    before_vm, after_vm = execution.compile_relax(case.before), execution.compile_relax(case.after)
    for symbol in shared:
        for args in arguments[symbol]:
            want = execution.call_main(before_vm, symbol, args)
            got = execution.call_main(after_vm, symbol, args)
            require(len(want) == len(got) and all(execution.bitwise_equal(a, b) for a, b in zip(want, got)),
                    f"{symbol} computes something else after the pass")


def _public(mod, entry: str) -> dict:
    from tvm import relax

    out = {}
    for _, func in mod.functions_items():
        symbol = func.attrs.get("global_symbol") if isinstance(func, relax.Function) and func.attrs else None
        if symbol is not None and str(symbol) != entry:
            out[str(symbol)] = func
    return out


def _static(func) -> bool:
    from tvm import relax

    return all(isinstance(p.ty, relax.TensorType) and p.ty.shape is not None
               and all(hasattr(d, "value") for d in p.ty.shape.values) for p in func.params)
