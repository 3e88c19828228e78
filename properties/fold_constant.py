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


@prop("FoldConstant")
def no_constant_only_calls(case) -> None:
    """No call whose arguments are all constants survives in ``main``."""
    if case.after is None:
        discard("the pass raised")
    import tvm_ffi
    from tvm import relax

    left = []

    def visit(call) -> None:  # noqa: ANN001
        if isinstance(call.op, relax.GlobalVar) or not call.args:
            return
        if all(_is_const(a) for a in call.args):
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
