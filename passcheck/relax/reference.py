"""Float64 reference execution of a ``GraphSpec``, with rounding-error bounds.

Every op's ``reference`` returns the float64 value and a first-order bound on the error that a
correct implementation in the graph's dtype may make; the bounds compose through the graph, so
a tolerance for each output element falls out of the computation rather than a fixed atol.
"""

from __future__ import annotations

import numpy as np

from passcheck.core import timing
from passcheck.core.rounding import UNIT_ROUNDOFF, Approx
from passcheck.relax.ops.base import op_registry
from passcheck.relax.spec import GraphSpec, const_array


def graph_dtype(spec: GraphSpec) -> str:
    """The float dtype the graph computes in: its first float input's (index inputs are
    integers, and a shrunk graph may start with one)."""
    return next((d.dtype for d in spec.inputs if d.dtype in UNIT_ROUNDOFF), "float32")


def evaluate(spec: GraphSpec, params: list[np.ndarray]) -> list[Approx]:
    """The reference outputs of ``spec`` on the parameter arrays ``params`` (in order)."""
    ops = op_registry()
    u = UNIT_ROUNDOFF[graph_dtype(spec)]
    vals: list[Approx] = []
    it = iter(params)
    for decl in spec.inputs:
        arr = const_array(decl) if decl.const else next(it)
        vals.append(Approx.exact(arr))
    with np.errstate(all="ignore"), timing.stage("reference"):
        for node in spec.nodes:
            vals.append(ops[node.op].reference([vals[a] for a in node.args], dict(node.attrs), u))
    return [vals[o] for o in spec.outputs]
