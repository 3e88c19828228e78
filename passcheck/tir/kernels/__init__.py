"""Kernel kinds: the PrimFuncs passcheck draws (TE computes and LegalizeOps of single Relax ops).

Each kind is a ``KernelKind`` declared once, in its module, with ``@register_kind``; each
Relax op of the legalized kind is a ``LegalizedOp`` declared with ``register_op``. A new kind
or op is one more declaration (and, for passcheck's own, one more module imported below).

Outside this package, import from here: the modules inside are free to move."""

# isort: off
# The kinds register as their modules are imported, and registration order is draw order
# (KINDS feeds st.sampled_from): elementwise, broadcast, transpose, reshape, pad, reduce,
# matmul, conv2d, pool, legalized, then the kinds that branch (branch2, reduce_beside, fanout).
# Keep this order.
from passcheck.tir.kernels import pointwise, reductions, windows, legalized, legalized_ops  # noqa: F401
from passcheck.tir.kernels import branches  # noqa: F401
# isort: on
from passcheck.tir.kernels.legalized import LegalizedOp, legalized_op_names, legalized_specs, register_op
from passcheck.tir.kernels.spec import (
    EXTENTS,
    SHAPE_VAR,
    KernelKind,
    PrimFuncSpec,
    StageInfo,
    build_primfunc,
    input_arrays,
    kernel_kind,
    kind_names,
    kind_of,
    primfunc_specs,
    register_kind,
    shape_var_value,
    stages,
    unregister_kind,
)
from passcheck.tir.kernels.te_builder import TeBuilder, TeKind

# The kinds and ops passcheck declares (a kind registered later is drawn by default too, but
# is not in KINDS).
KINDS = kind_names()
LEGALIZED_OPS = legalized_op_names()

__all__ = ["EXTENTS", "KINDS", "LEGALIZED_OPS", "SHAPE_VAR", "KernelKind", "LegalizedOp", "PrimFuncSpec",
           "StageInfo", "TeBuilder", "TeKind", "build_primfunc", "input_arrays", "kernel_kind", "kind_names",
           "kind_of", "legalized_op_names", "legalized_specs", "primfunc_specs", "register_kind", "register_op",
           "shape_var_value", "stages", "unregister_kind"]
