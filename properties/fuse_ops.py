"""FuseOps (Relax FuseOps + FuseTIR, after LegalizeOps and AnnotateTIROpPattern)."""

from __future__ import annotations

import numpy as np

from passcheck import Violation, discard, prop
from passcheck.relax.execution import bitwise_equal

# TVM's OpPatternKind values (AnnotateTIROpPattern writes them as the PrimFunc attr "op_pattern").
ELEMWISE, BROADCAST, INJECTIVE, COMM_REDUCE, OUT_EWISE_FUSABLE, TUPLE, OPAQUE = 0, 1, 2, 3, 4, 7, 8
PATTERN_NAMES = {ELEMWISE: "elemwise", BROADCAST: "broadcast", INJECTIVE: "injective", COMM_REDUCE: "reduce",
                 OUT_EWISE_FUSABLE: "out-ewise-fusable", TUPLE: "tuple", OPAQUE: "opaque"}


# Calls FuseOps leaves in main by design: the PrimFunc calls it makes, and opaque packed calls
# (a given module may have them; generated graphs do not).
# calls that are not ops left unfused: kernel calls, and tensor_to_shape, which LegalizeOps emits
# to read a data-dependent shape (dynamic_strided_slice) and the VM lowers to a builtin
_NOT_FUSABLE = ("relax.call_tir", "relax.call_pure_packed", "relax.call_packed", "relax.call_dps_packed",
                "relax.tensor_to_shape")


def _calls(func):  # noqa: ANN001, ANN202
    import tvm_ffi
    from tvm import relax

    found = []
    tvm_ffi.structural_walk(func, [(relax.Call, found.append)])
    return found


@prop("FuseOps")
def every_op_fused(case) -> None:
    """After FuseOps + FuseTIR, ``main`` does nothing but call PrimFuncs: every op sits inside a
    fused (or single-op) PrimFunc and no Relax-level primitive function is left uncalled-through."""
    if case.after is None:
        discard("the pass raised")
    from tvm import relax

    main = case.after[case.entry]
    for call in _calls(main):
        op = call.op
        if isinstance(op, relax.GlobalVar):
            raise Violation(f"main still calls the Relax function {op.name_hint} (not turned into a PrimFunc)")
        name = getattr(op, "name", "")
        if name and name not in _NOT_FUSABLE:
            raise Violation(f"main still calls the high-level op {name} outside any fused function")


@prop("FuseOps")
def groups_respect_op_patterns(case) -> None:
    """Every fused group obeys TVM's op-pattern rules: an opaque op is never fused with anything,
    and a group holds at most one anchor (a reduction or an out-elementwise-fusable op such as
    conv2d/matmul); the rest are elementwise, broadcast or injective ops."""
    stage = case.stages.get("FuseOps")
    if stage is None:
        discard("no FuseOps stage (the pass raised)")
    from tvm import relax, tirx

    for gv in stage.get_global_vars():
        func = stage[gv]
        if not isinstance(func, relax.Function) or not func.attrs or "Primitive" not in func.attrs:
            continue
        members = []
        for call in _calls(func):
            if getattr(call.op, "name", "") != "relax.call_tir":
                continue
            callee = stage[call.args[0]]
            if isinstance(callee, tirx.PrimFunc):
                pat = int(callee.attrs["op_pattern"]) if callee.attrs and "op_pattern" in callee.attrs else OPAQUE
                members.append((call.args[0].name_hint, pat))
        if len(members) < 2:
            continue
        desc = ", ".join(f"{n} ({PATTERN_NAMES.get(p, p)})" for n, p in members)
        if any(p >= OPAQUE for _, p in members):
            raise Violation(f"group {gv.name_hint} fuses an opaque op: {desc}")
        anchors = [n for n, p in members if p in (COMM_REDUCE, OUT_EWISE_FUSABLE)]
        if len(anchors) > 1:
            raise Violation(f"group {gv.name_hint} has {len(anchors)} anchors ({', '.join(anchors)}): {desc}")


# Dtypes the llvm target has no arithmetic for. TVM lowers them with BF16/FP8ComputeLegalize, which
# computes in float32 and promotes a kernel's own buffers of that dtype to float32: such a value is
# rounded where it crosses a kernel boundary and not inside one (measured on 0.27,
# tests/test_fuse_ops_widened_dtypes.py). Fusing two kernels removes that rounding by design.
WIDENED_IN_KERNELS = ("bfloat16", "float8", "float6", "float4")


def widened_intermediates(main) -> list[str]:  # noqa: ANN001
    """Values of ``main`` that one kernel call writes and another reads, in a dtype that TVM
    computes in float32 inside a kernel (the places where fusion may change rounding)."""
    from tvm import relax

    produced: set = set()
    for block in main.body.blocks:
        for b in block.bindings:
            if isinstance(b.value, relax.Call) and getattr(b.value.op, "name", "") == "relax.call_tir":
                produced.add(b.var)
            elif isinstance(b.value, relax.TupleGetItem) and b.value.tuple_value in produced:
                produced.add(b.var)
    found = []
    for call in _calls(main):
        if getattr(call.op, "name", "") != "relax.call_tir":
            continue
        for arg in call.args[1].fields if isinstance(call.args[1], relax.Tuple) else [call.args[1]]:
            dtypes = [getattr(s, "dtype", "") for s in _tensor_types(arg.ty)]
            if arg in produced and any(str(d).startswith(WIDENED_IN_KERNELS) for d in dtypes):
                found.append(arg.name)
    return found


def _tensor_types(ty) -> list:  # noqa: ANN001
    from tvm import relax

    if isinstance(ty, relax.TupleType):
        return [t for f in ty.fields for t in _tensor_types(f)]
    return [ty] if isinstance(ty, relax.TensorType) else []


@prop("FuseOps")
def matches_unfused_bitwise(case) -> None:
    """On the same target, the fused module's outputs are bit-for-bit those of the unfused
    (legalized) module: fusion only moves where values are computed, not how. Not claimed when a
    bfloat16/float8 value passes between two kernels of the unfused module: TVM rounds it there
    and not inside a fused kernel (see WIDENED_IN_KERNELS); semantics_preserved checks those."""
    if case.after is None:
        discard("the pass raised")
    widened = widened_intermediates(case.before[case.entry])
    if widened:
        discard(f"{widened[0]} passes between kernels in a dtype TVM computes in float32 inside one")
    got, want = case.run("after"), case.run("before")
    if len(got) != len(want):
        raise Violation(f"fused module returns {len(got)} tensors, unfused {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if not bitwise_equal(g, w):
            if g.shape != w.shape or g.dtype != w.dtype:
                raise Violation(f"output {i}: fused {g.dtype}{list(g.shape)} vs unfused {w.dtype}{list(w.shape)}")
            first, count = first_difference(g, w)
            raise Violation(f"output {i} differs from the unfused module at {list(first)}: "
                            f"fused {g[first]!r} vs unfused {w[first]!r} ({count} elements)")


def first_difference(g: np.ndarray, w: np.ndarray) -> tuple[tuple[int, ...], int]:
    """Where two same-shaped arrays first differ (in value, or only in bits: -0.0 vs 0.0, NaN
    payloads), and in how many elements; 0-d arrays too (their index is ())."""
    diff = (g.astype("float64") != w.astype("float64")) & ~((g != g) & (w != w))
    if not diff.any():
        diff = np.ones_like(diff)
    return tuple(int(i) for i in np.argwhere(diff)[0]), int(diff.sum())
