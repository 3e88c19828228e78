"""Measured activity: how often each Relax pass changed what passcheck draws for it, from the
checked-in table ``pass_activity.json`` that ``benchmarks/pass_activity.py --write`` rewrites
(never edited by hand), and what each pass acts on."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def measured_activity() -> dict[str, Any]:
    """The checked-in table: ``{"examples_each", "seed", "tvm", "summary", "passes": {name:
    {"changed", "examples", "needs"}}}`` (empty when it was never written)."""
    try:
        text = resources.files("passcheck.relax").joinpath("pass_activity.json").read_text()
    except FileNotFoundError:
        return {}
    return json.loads(text)


def what_it_needs(name: str) -> str:
    """What the pass ``name`` acts on (or why passcheck cannot make it act), as its subject
    declares it."""
    from passcheck.core.subject import resolve

    return resolve(name).needs
