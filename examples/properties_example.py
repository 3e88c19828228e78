"""A user-written property for ``passcheck``: load it with ``--properties``.

    passcheck FoldConstant --properties examples/properties_example.py

A property is a plain function of one *case* (one generated example after the pass ran),
registered with ``@prop("PassName")``. It returns when the invariant holds, calls
``require(condition, message)`` / raises ``Violation`` when it does not, and calls
``discard(reason)`` when the example is not one it has an opinion on. The case gives:

* ``case.before``  the IRModule handed to the pass (after the pass's prerequisites),
* ``case.after``   the IRModule the pass returned (``None`` if it raised),
* ``case.raised``  the exception the pass raised, or ``None``,
* ``case.run("after")`` / ``case.reference()``  compiled outputs and the float64 reference.
"""

from __future__ import annotations

from typing import Any

from passcheck import discard, prop, require


def count_bindings(func: Any) -> int:
    """Bindings (``lv = ...`` lines) in every block of a Relax function."""
    return sum(len(block.bindings) for block in func.body.blocks)


@prop("FoldConstant")
def fold_never_adds_bindings(case: Any) -> None:
    """FoldConstant never increases the number of bindings in ``main``: folding replaces
    constant-only computations by constants, it never introduces new ones."""
    if case.after is None:
        discard("the pass raised (pass_does_not_raise reports that)")
    before = count_bindings(case.before["main"])
    after = count_bindings(case.after["main"])
    require(after <= before, f"main had {before} bindings before FoldConstant and {after} after")
