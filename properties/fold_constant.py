"""FoldConstant: constant-only subgraphs are evaluated at compile time."""

from __future__ import annotations

from passcheck import Violation, discard, prop


def _is_const(expr) -> bool:  # noqa: ANN001
    import tvm
    from tvm import relax

    if isinstance(expr, tvm.ir.GenericConst):  # Relax constants (relax.Constant before 0.27)
        return True
    if isinstance(expr, relax.Tuple):
        return all(_is_const(f) for f in expr.fields)
    return False


def _foldable(call) -> bool:  # noqa: ANN001
    """Could FoldConstant evaluate ``call``? It legalizes the call and builds the PrimFunc it
    lowers to for llvm: ops tvm.compile dispatches otherwise (cumsum, sort, topk:
    DispatchSortScan), those lowered to a packed call with a data-dependent shape (nonzero), and
    op/dtype pairs that type-check but do not build (kept TVM bugs, reported by
    semantics_preserved) are out of its reach."""
    import tvm
    from tvm import relax

    if getattr(call.op, "name", "") == "relax.call_tir":
        return True
    bb = relax.BlockBuilder()
    with bb.function("f", []):
        with bb.dataflow():
            out = bb.emit_output(call)
        bb.emit_func_output(out)
    lowered = relax.transform.LegalizeOps()(bb.get())
    calls = [b.value for b in lowered["f"].body.blocks[0].bindings
             if isinstance(b.value, relax.Call) and getattr(b.value.op, "name", "") == "relax.call_tir"]
    if not calls:
        return False
    for c in calls:
        try:
            func = lowered[c.args[0]].with_attr("global_symbol", "main")
            tvm.compile(tvm.IRModule({"main": func}), target="llvm")
        except Exception:  # noqa: BLE001 - any build failure: FoldConstant cannot evaluate it either
            return False
    return True


@prop("FoldConstant")
def no_constant_only_calls(case) -> None:
    """No call whose arguments are all constants survives in ``main``, among the calls FoldConstant
    can evaluate (those LegalizeOps lowers to a PrimFunc call that builds)."""
    if case.after is None:
        discard("the pass raised")
    import tvm_ffi
    from tvm import relax

    left = []

    def visit(call) -> None:  # noqa: ANN001
        if isinstance(call.op, relax.GlobalVar) or not call.args:
            return
        if all(_is_const(a) for a in call.args) and _foldable(call):
            left.append(call)

    tvm_ffi.structural_walk(case.after[case.entry], [(relax.Call, visit)])
    if left:
        c = left[0]
        raise Violation(f"{len(left)} constant-only call(s) left, e.g. {getattr(c.op, 'name', c.op)} "
                        f"on {len(c.args)} constant argument(s)")


@prop("FoldConstant")
def fold_is_idempotent(case) -> None:
    """Folding an already folded module changes nothing (structurally)."""
    if case.after is None:
        discard("the pass raised")
    import tvm_ffi

    again = case.apply(case.after)
    if not tvm_ffi.structural_equal(again, case.after, map_free_vars=True):
        path = tvm_ffi.get_first_structural_mismatch(case.after, again)
        raise Violation(f"a second FoldConstant changed the module (first difference at {path})")
