"""A *case* is one example after the transformation under test ran: what properties inspect."""

from passcheck.cases.base import Case  # noqa: F401
