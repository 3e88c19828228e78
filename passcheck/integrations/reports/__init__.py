"""Report formats: ``--report FORMAT:PATH`` (repeatable), one module per format in this package.

A format is declared where it is written, with ``@report_format("name")`` on a function
``(result, path) -> None``; importing this package imports every module in it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from passcheck.core.errors import UsageError
from passcheck.core.registry import Registry, import_submodules

Writer = Callable[[Any, Path], None]
FORMATS: Registry[Writer] = Registry("report format")


def report_format(name: str) -> Callable[[Writer], Writer]:
    def declare(writer: Writer) -> Writer:
        return FORMATS.add(name, writer)

    return declare


def parse_report_spec(spec: str) -> tuple[str, Path]:
    fmt, sep, path = spec.partition(":")
    if not sep or fmt not in FORMATS or not path:
        shown = ", ".join(f"{f}:PATH" for f in FORMATS.names())
        raise UsageError(f"--report {spec}: expected FORMAT:PATH, one of {shown} (e.g. --report json:report.json)")
    return fmt, Path(path)


def write_report(result: Any, spec: str) -> Path:
    fmt, path = parse_report_spec(spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    FORMATS.get(fmt)(result, path)
    return path


import_submodules(__name__)
