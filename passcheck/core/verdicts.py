"""What ``passcheck verify`` says about one check of one function of a given module."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Check:
    """One check of one function: ``status`` is ``ok``, ``violation``, ``ill-formed`` or
    ``unknown``; ``lines`` the details (witnesses, reasons)."""

    function: str
    check: str
    status: str
    summary: str
    lines: list[str] = field(default_factory=list)
