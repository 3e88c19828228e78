"""The forms a drawn graph exercises, beyond which ops it holds: each op's attribute form (an
axis given or left to its default, negative or not, over every axis or some, keepdims on or
off...), the dtype each op reads, the values its inputs hold (a dtype's edge values, NaN/Inf,
a near-constant tensor), and structural coincidences (equal extents on two axes of an operand,
a tuple-valued op read by its later fields).

A form is a short label derived from the drawn spec alone, so the same example always has the
same forms; the coverage report counts them (``passcheck list --forms`` prints them per pass,
drawn or from a campaign's JSON report), which is how a rare form that no campaign reaches is
seen at all. Each op declares the forms of its attributes one by one (``OpSpec.forms``), so
a campaign's report also names the declared forms of the ops it drew that it never reached
(``unreached``): a form no campaign reaches is a feature no planted bug could be caught on.
"""

from __future__ import annotations

from typing import Any

from passcheck.core.rounding import INT_RANGE
from passcheck.relax.spec import GraphSpec

# coverage categories these are reported under (passcheck list --forms prints them in this order)
CATEGORIES = ("attribute forms", "op attributes", "op dtypes", "value forms", "structures")
_AXES = ("axis", "axes", "dim", "dims")


def _scalar(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int | float):
        return "neg" if v < 0 else "0" if v == 0 else "1" if v == 1 else "pos"
    if isinstance(v, str):
        return v if len(v) <= 24 else "str"
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


def attribute_kinds(key: str, value: Any, rank: int) -> tuple[str, ...]:
    """The forms one attribute value exercises, each alone: ``attribute_form``'s label, except that
    a list of numbers that is not an axis list gives one ``key has kind`` per kind of element it
    holds (``padding has 0``, ``strides has neg``), so an op's forms are a short list its spec can
    declare (``OpSpec.forms``) rather than every combination of element kinds."""
    if isinstance(value, tuple | list) and value and (key not in _AXES or not all(isinstance(a, int) for a in value)):
        # (a name in a list of numbers is a symbolic extent: its name does not matter)
        return tuple(sorted({f"{key} has {'sym' if isinstance(x, str) else _scalar(x)}" for x in value}))
    return (attribute_form(key, value, rank),)


def forms(spec: GraphSpec) -> dict[str, tuple[str, ...]]:
    """The forms of one drawn graph, by category (``CATEGORIES``)."""
    n_in = len(spec.inputs)
    shapes = [d.shape for d in spec.inputs] + [n.shape for n in spec.nodes]
    dtypes = [d.dtype for d in spec.inputs] + [n.dtype for n in spec.nodes]
    attrs, each, op_dtypes, structures = set(), set(), set(), set()
    for node in spec.nodes:
        first = node.args[0] if node.args else None
        rank = len(shapes[first]) if first is not None and first < len(shapes) else 0
        shown = ", ".join(attribute_form(k, v, rank) for k, v in sorted(node.attrs)) or "defaults"
        attrs.add(f"{node.op}({shown})")
        each |= {f"{node.op}: {kind}" for k, v in node.attrs for kind in attribute_kinds(k, v, rank)}
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
    return {"attribute forms": tuple(sorted(attrs)), "op attributes": tuple(sorted(each)), "op dtypes": tuple(sorted(op_dtypes)),
            "value forms": tuple(sorted(values)), "structures": tuple(sorted(structures))}


def unreached(counts: dict[str, Any]) -> tuple[int, list[str]]:
    """(forms declared, those never drawn) over the ops a campaign drew: each drawn op's declared
    forms (``OpSpec.forms``) missing from its ``op attributes`` counts, as ``op: form``."""
    from passcheck.relax.ops.base import op_registry

    ops = op_registry()
    drawn = set(counts.get("op attributes", {}))
    declared = [f"{op}: {f}" for op in sorted(counts.get("ops", {})) if op in ops for f in ops[op].forms]
    return len(declared), [f for f in declared if f not in drawn]
