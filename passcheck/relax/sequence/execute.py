"""Compiling a module part-way through ``tvm.compile``'s lowering: with the rest of the lowering
only (a sequence that ran CallTIRRewrite must not be lowered from the start again)."""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.relax import execution
from passcheck.relax.sequence.apply import Applied, remaining_lowering
from passcheck.relax.sequence.steps import lowering_order


def pipeline_after(applied: list[Applied]) -> Any:
    """The Relax pipeline that finishes a module after ``applied``: tvm.compile's default one, or
    the lowering passes the sequence has not run."""
    import tvm
    from tvm import relax

    rest = remaining_lowering(applied)
    return "default" if rest == lowering_order() else tvm.transform.Sequential([getattr(relax.transform, n)() for n in rest])


def run_after(mod: Any, params: list[np.ndarray], applied: list[Applied]) -> list[np.ndarray]:
    """Outputs of ``mod`` (the module after ``applied``) compiled with the lowering it still needs."""
    return execution.run_relax(mod, params, pipeline=pipeline_after(applied))
