"""Float64 reference execution of a ``GraphSpec``, with rounding-error bounds.

Every op's ``reference`` returns the float64 value and a first-order bound on the error that a
correct implementation in the graph's dtype may make; the bounds compose through the graph, so
a tolerance for each output element falls out of the computation rather than a fixed atol.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from passcheck.core import timing
from passcheck.core.rounding import DTYPE_MAX, Approx, underflow, unit_roundoff
from passcheck.relax.ops.base import op_registry
from passcheck.relax.spec import GraphSpec, const_array


def parts_of(value: Approx | list[Approx]) -> list[Approx]:
    """A tuple-valued op's reference is a list of parts; anything else is one value."""
    return value if isinstance(value, list) else [value]


def evaluate(spec: GraphSpec, params: list[np.ndarray], computed_in: Mapping[str, str] | None = None) -> list[Approx]:
    """The reference outputs of ``spec`` on the parameter arrays ``params`` (in order).

    ``computed_in`` maps a dtype to the one a pass computes it in by design (ToMixedPrecision:
    float32 in float16): inputs of that dtype get the bound of their cast, each op the roundoff of
    the compute dtype, and an element outside its range is unknown (e = inf) from there on."""
    ops = op_registry()
    widen = dict(computed_in or {})
    vals: list[Approx] = []
    it = iter(params)
    for decl in spec.inputs:
        arr = const_array(decl) if decl.const else next(it)
        a = Approx.exact(arr)
        if decl.dtype in widen:
            a.e = _cast_bound(a.v, widen[decl.dtype])
        vals.append(a)
    with np.errstate(all="ignore"), timing.stage("reference"):
        for node in spec.nodes:
            # ``u`` of the node's own (output) dtype: 0 for integers and bool, which are exact
            computed = widen.get(node.dtype, node.dtype)
            out = ops[node.op].reference([vals[a] for a in node.args], dict(node.attrs), unit_roundoff(computed))
            for part in parts_of(out):
                part.dtype = node.dtype
                # 0 * inf in a bound (an exact zero times an operand of unknown error) is NaN, and
                # NaN compares false: a comparison of it would count as decided. Unknown is inf.
                nan = np.isnan(part.e)
                if nan.any():
                    part.e = np.where(nan, np.inf, part.e)
                if computed != node.dtype:
                    part.e = np.where(np.abs(part.v) + part.e < 0.5 * DTYPE_MAX[computed], part.e, np.inf)
            vals.append(out)
    return [vals[o] for o in spec.outputs]


def _cast_bound(v: np.ndarray, dtype: str) -> np.ndarray:
    """How far a cast of exact values ``v`` into ``dtype`` may move them (inf: out of its range)."""
    e = np.abs(v) * unit_roundoff(dtype) + underflow(unit_roundoff(dtype))
    return np.where(np.abs(v) < 0.5 * DTYPE_MAX[dtype], e, np.inf)


def allowing(refs: list[Approx], equivalent: Callable[[GraphSpec], GraphSpec | None] | None, spec: GraphSpec,
             params: list[np.ndarray], computed_in: Mapping[str, str] | None = None) -> list[Approx]:
    """``refs`` (``spec``'s reference on ``params``) with each bound widened to the bound of the
    same output computed the way the pass rewrites it by design (``equivalent(spec)``), where it
    rewrites anything."""
    other = equivalent(spec) if equivalent is not None else None
    if other is None:
        return refs
    for ref, alt in zip(refs, evaluate(other, params, computed_in), strict=True):
        if np.shape(ref.e) == np.shape(alt.e):
            ref.e = np.maximum(ref.e, alt.e)
    return refs
