"""The property ``benchmarks/pass_activity.py`` runs with (``--properties`` file): it checks
nothing, so a run counts the pass's activity (before any property runs) without compiling."""

from typing import Any

from passcheck import discard, prop


@prop(name="activity_only")
def activity_only(case: Any) -> None:
    """Checks nothing: the run counts the pass's activity before any property runs."""
    discard("activity benchmark")
