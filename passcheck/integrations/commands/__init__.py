"""Subcommands of ``passcheck`` beside the default one (``passcheck PASS [options]``): one
module per command in this package, each declared with ``@command("name")`` on a function
``(argv) -> exit code``; importing this package imports every module in it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from passcheck.core.registry import Registry, import_submodules

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

Command = Callable[[list[str]], int]
COMMANDS: Registry[Command] = Registry("passcheck command")


def command(name: str) -> Callable[[Command], Command]:
    def declare(fn: Command) -> Command:
        return COMMANDS.add(name, fn)

    return declare


def console() -> Any:
    from rich.console import Console

    probe = Console()
    # Piped output (CI logs, files) gets a wide table instead of rich's 80-column default.
    return probe if probe.is_terminal else Console(width=140)


import_submodules(__name__)
