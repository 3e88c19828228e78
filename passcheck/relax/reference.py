"""Float64 reference execution of a ``GraphSpec``, with rounding-error bounds.

Every op's ``reference`` returns the float64 value and a first-order bound on the error that a
correct implementation in the graph's dtype may make; the bounds compose through the graph, so
a tolerance for each output element falls out of the computation rather than a fixed atol.
"""

from __future__ import annotations

import numpy as np

from passcheck.core import timing
from passcheck.core.rounding import Approx, unit_roundoff
from passcheck.relax.ops.base import op_registry
from passcheck.relax.spec import GraphSpec, const_array


def parts_of(value: Approx | list[Approx]) -> list[Approx]:
    """A tuple-valued op's reference is a list of parts; anything else is one value."""
    return value if isinstance(value, list) else [value]


def evaluate(spec: GraphSpec, params: list[np.ndarray]) -> list[Approx]:
    """The reference outputs of ``spec`` on the parameter arrays ``params`` (in order)."""
    ops = op_registry()
    vals: list[Approx] = []
    it = iter(params)
    for decl in spec.inputs:
        arr = const_array(decl) if decl.const else next(it)
        vals.append(Approx.exact(arr))
    with np.errstate(all="ignore"), timing.stage("reference"):
        for node in spec.nodes:
            # ``u`` of the node's own (output) dtype: 0 for integers and bool, which are exact
            out = ops[node.op].reference([vals[a] for a in node.args], dict(node.attrs), unit_roundoff(node.dtype))
            for part in parts_of(out):
                part.dtype = node.dtype
            vals.append(out)
    return [vals[o] for o in spec.outputs]
