"""Declared once, found by import: the registry every extensible kind uses.

Ops, pass subjects, schedule primitives, kernel kinds and properties are each declared where
they are defined (``registry.add(thing)`` or a decorator built on it) and found by importing
the package that defines them; nothing keeps a central list of names.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from passcheck.core.errors import UsageError

T = TypeVar("T")


class Registry(Generic[T]):
    """Name -> declaration, in declaration order (the order feeds Hypothesis strategies, so it
    is part of what a seed means)."""

    def __init__(self, what: str, *, hint: str = "") -> None:
        self.what = what
        self.hint = hint  # how a user lists the names, for the unknown-name message
        self._items: dict[str, T] = {}
        # changes with every add and remove: what is derived from the declarations (a drawing
        # menu) is recomputed only when they change
        self.version = 0

    def add(self, name: str, item: T, *, replace: bool = False) -> T:
        if name in self._items and not replace:
            raise ValueError(f"{self.what} {name!r} is declared twice")
        self._items[name] = item
        self.version += 1
        return item

    def remove(self, name: str) -> None:
        """Forget a declaration (tests that declare a toy one clean up with this)."""
        self._items.pop(name, None)
        self.version += 1

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._items), n=1, cutoff=0.6)
            did = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f"unknown {self.what} {name!r}{did}{'; ' + self.hint if self.hint else ''}") from None

    def find(self, name: str) -> T | None:
        return self._items.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._items)

    def items(self) -> list[tuple[str, T]]:
        return list(self._items.items())

    def values(self) -> list[T]:
        return list(self._items.values())

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def import_submodules(package: str, *, skip: Callable[[str], bool] = lambda name: False) -> list[str]:
    """Import every module of ``package`` (not recursing into subpackages), in name order;
    returns their names. A package whose modules only declare things uses this instead of a
    list of its modules."""
    pkg = importlib.import_module(package)
    names = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__, package + ".") if not m.ispkg)
    for name in names:
        if not skip(name):
            importlib.import_module(name)
    return names
