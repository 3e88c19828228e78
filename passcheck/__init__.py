"""passcheck: property-based testing for Apache TVM compiler passes.

Write a property::

    from passcheck import prop, require

    @prop("FoldConstant")
    def my_invariant(case):
        "What must hold."
        require(..., "what went wrong")

and run it: ``passcheck FoldConstant --properties my_props.py`` or, from Python/pytest,
``passcheck.check("FoldConstant", examples=100)``.
"""

from passcheck.core.errors import (
    Discard,
    Drift,
    IllFormed,
    Unknown,
    UsageError,
    Violation,
    discard,
    drift,
    require,
    unknown,
)
from passcheck.core.property import prop
from passcheck.core.timing import stage

__all__ = ["Discard", "Drift", "IllFormed", "Unknown", "UsageError", "Violation", "check", "discard", "drift", "prop",
           "require", "stage", "unknown"]
__version__ = "0.1.0"


def check(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Run passcheck from Python; see ``passcheck.core.engine.api.check``."""
    from passcheck.core.engine.api import check as _check

    return _check(*args, **kwargs)
