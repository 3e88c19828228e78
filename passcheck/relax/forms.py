"""The forms a drawn graph exercises, beyond which ops it holds: each op's attribute form (an
axis given or left to its default, negative or not, over every axis or some, keepdims on or
off...), the dtype each op reads, the values its inputs hold (a dtype's edge values, NaN/Inf,
a near-constant tensor), and structural coincidences (equal extents on two axes of an operand,
a tuple-valued op read by its later fields).

A form is a short label derived from the drawn spec alone, so the same example always has the
same forms; the coverage report counts them (``passcheck list --forms`` prints them per pass,
drawn or from a campaign's JSON report), which is how a rare form that no campaign reaches is
seen at all.
"""

from __future__ import annotations

from typing import Any

from passcheck.core.rounding import INT_RANGE
from passcheck.relax.spec import GraphSpec

# coverage categories these are reported under (passcheck list --forms prints them in this order)
CATEGORIES = ("attribute forms", "op dtypes", "value forms", "structures")
_AXES = ("axis", "axes", "dim", "dims")


def _scalar(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int | float):
        return "neg" if v < 0 else "0" if v == 0 else "1" if v == 1 else "pos"
    if isinstance(v, str):
        return v if len(v) <= 16 else "str"
    return type(v).__name__


def attribute_form(key: str, value: Any, rank: int) -> str:
    """``key=kind`` where kind says what matters of the value, not the value: an axis list is
    ``all``, ``some`` or empty and says when it holds a negative axis; scalars are their sign."""
    if isinstance(value, tuple | list):
        if not value:
            return f"{key}=()"
        if key in _AXES and all(isinstance(a, int) for a in value):
            cover = "all" if rank and len({a % rank for a in value}) == rank else "some"
            return f"{key}={cover}{',neg' if any(a < 0 for a in value) else ''}"
        kinds = sorted({_scalar(x) for x in value})
        return f"{key}=[{','.join(kinds)}]"
    return f"{key}={_scalar(value)}"


def forms(spec: GraphSpec) -> dict[str, tuple[str, ...]]:
    """The forms of one drawn graph, by category (``CATEGORIES``)."""
    n_in = len(spec.inputs)
    shapes = [d.shape for d in spec.inputs] + [n.shape for n in spec.nodes]
    dtypes = [d.dtype for d in spec.inputs] + [n.dtype for n in spec.nodes]
    attrs, op_dtypes, structures = set(), set(), set()
    for node in spec.nodes:
        first = node.args[0] if node.args else None
        rank = len(shapes[first]) if first is not None and first < len(shapes) else 0
        shown = ", ".join(attribute_form(k, v, rank) for k, v in sorted(node.attrs)) or "defaults"
        attrs.add(f"{node.op}({shown})")
        if first is not None and first < len(dtypes):
            op_dtypes.add(f"{node.op}@{dtypes[first]}")
        for a in node.args:
            extents = [d for d in shapes[a] if isinstance(d, int) and d > 1] if a < len(shapes) else []
            if len(extents) != len(set(extents)):
                structures.add("equal extents on two axes of an operand")
        if node.op == "tuple_get_item" and first is not None and first >= n_in:
            producer = spec.nodes[first - n_in].op
            structures.add(f"tuple field {'0' if node.attr.get('index') == 0 else '>0'} of {producer}")
    values = set()
    for d in spec.inputs:
        values.add(f"{d.dtype} {'constant' if d.const else 'parameter'} {d.style}")
        if d.dtype in INT_RANGE and d.dtype != "bool":
            lo, hi = INT_RANGE[d.dtype]
            if d.lo <= lo or d.hi >= hi:
                values.add(f"{d.dtype} edge values")
    return {"attribute forms": tuple(sorted(attrs)), "op dtypes": tuple(sorted(op_dtypes)),
            "value forms": tuple(sorted(values)), "structures": tuple(sorted(structures))}
