"""Kernel kinds: the PrimFuncs passcheck draws (TE computes and LegalizeOps of single Relax ops).

Outside this package, import from here: the modules inside are free to move."""

from passcheck.tir.kernels.legalized import legalized_specs
from passcheck.tir.kernels.primfuncs import (
    EXTENTS,
    KINDS,
    SHAPE_VAR,
    PrimFuncSpec,
    StageInfo,
    build_primfunc,
    input_arrays,
    primfunc_specs,
    shape_var_value,
    stages,
)

__all__ = ["EXTENTS", "KINDS", "SHAPE_VAR", "PrimFuncSpec", "StageInfo", "build_primfunc", "input_arrays",
           "legalized_specs", "primfunc_specs", "shape_var_value", "stages"]
