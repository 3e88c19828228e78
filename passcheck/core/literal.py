"""Plain data as Python source that reads back equal: the kept repros passcheck ships and prints
(``passcheck known show``). Dataclass fields equal to their defaults are left out, and items are
packed into lines of at most ``width`` characters, so a drawn example reads like the code one
would write for it."""

from __future__ import annotations

import dataclasses
from typing import Any


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def _parts(obj: Any) -> tuple[str, list[tuple[str | None, Any]], str] | None:
    """(opening, [(keyword or None, item)], closing) of a dataclass, tuple or list; None else."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        items: list[tuple[str | None, Any]] = []
        for f in dataclasses.fields(obj):
            if not f.init:
                continue
            value, default = getattr(obj, f.name), _default(f)
            if default is not dataclasses.MISSING and type(value) is type(default) and value == default:
                continue
            items.append((f.name, value))
        return type(obj).__name__ + "(", items, ")"
    if type(obj) is tuple:
        return "(", [(None, v) for v in obj], ",)" if len(obj) == 1 else ")"
    if type(obj) is list:
        return "[", [(None, v) for v in obj], "]"
    return None


def _flat(obj: Any) -> str:
    parts = _parts(obj)
    if parts is None:
        return repr(obj)
    opening, items, closing = parts
    return opening + ", ".join(f"{k}={_flat(v)}" if k else _flat(v) for k, v in items) + closing


def literal(obj: Any, indent: int = 0, width: int = 108) -> str:
    """``obj`` as Python source (the caller imports the dataclasses it names), its first line
    starting at column ``indent``."""
    flat = _flat(obj)
    parts = _parts(obj)
    if indent + len(flat) <= width or parts is None:
        return flat
    opening, items, closing = parts
    pad = " " * (indent + 4)
    lines: list[str] = []
    line = ""
    for key, value in items:
        head = f"{key}=" if key else ""
        one = head + _flat(value)
        if len(pad) + len(line) + len(one) + 2 <= width:
            line = f"{line} {one}," if line else f"{one},"
            continue
        if line:
            lines.append(pad + line)
            line = ""
        if len(pad) + len(one) + 1 <= width:
            line = f"{one},"
        else:
            lines.append(pad + head + literal(value, indent + 4, width) + ",")
    if line:
        lines.append(pad + line)
    return opening + "\n" + "\n".join(lines) + "\n" + " " * indent + (")" if closing == ",)" else closing)


def imports_for(obj: Any) -> list[str]:
    """``from MODULE import NAME`` lines for every dataclass ``obj`` is made of."""
    found: dict[str, set[str]] = {}

    def walk(x: Any) -> None:
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            found.setdefault(type(x).__module__, set()).add(type(x).__name__)
            for f in dataclasses.fields(x):
                walk(getattr(x, f.name))
        elif isinstance(x, (tuple, list)):
            for v in x:
                walk(v)
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)

    walk(obj)
    return [f"from {m} import {', '.join(sorted(names))}" for m, names in sorted(found.items())]
