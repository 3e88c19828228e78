"""Finding what is installed: IR families and property packages, through entry points.

The core knows no IR family by name. A family (passcheck's own ``relax`` and ``tir``, or a
third party's) is a package registered under the ``passcheck.families`` entry point group;
importing it declares its subjects, ops, primitives and kernel kinds. Property packages
register under ``passcheck.properties`` (passcheck's shipped properties are one), the way
pytest finds ``pytest11`` plugins; a package is imported with every module in it::

    [project.entry-points."passcheck.properties"]
    my_props = "my_package.passcheck_properties"
"""

from __future__ import annotations

import importlib
from importlib.metadata import EntryPoint, entry_points

from passcheck.core.errors import UsageError
from passcheck.core.registry import import_submodules

FAMILY_GROUP = "passcheck.families"
PROPERTY_GROUP = "passcheck.properties"

_loaded: set[str] = set()


def _load(group: str) -> list[str]:
    """Import every package registered under ``group`` (once); returns their module names."""
    # passcheck's own entries first, so a third party's can build on them.
    eps = sorted(entry_points(group=group), key=lambda ep: (not ep.value.startswith("passcheck."), ep.name))
    if group == FAMILY_GROUP and not eps:
        raise UsageError("no IR family is installed: passcheck finds its own through its package metadata; "
                         'install passcheck (pip install -e . in a checkout, or pip install passcheck)')
    for ep in eps:
        if ep.value in _loaded:
            continue
        _import(ep, group)
        _loaded.add(ep.value)
    return [ep.value for ep in eps]


def _import(ep: EntryPoint, group: str) -> None:
    try:
        module = importlib.import_module(ep.value)
        if group == PROPERTY_GROUP and hasattr(module, "__path__"):
            import_submodules(ep.value)  # a property package: every module in it declares properties
    except UsageError as e:
        raise UsageError(f"the {group} plugin {ep.name} ({ep.value}): {e}") from None
    except Exception as e:  # noqa: BLE001 - a broken plugin is the user's environment, not passcheck
        raise UsageError(f"the {group} plugin {ep.name} ({ep.value}) failed to import: {type(e).__name__}: "
                         f"{e}; fix or uninstall the package that provides it") from None


def load_families() -> list[str]:
    return _load(FAMILY_GROUP)


def load_property_packages() -> list[str]:
    """Import every registered property package, with all its modules (or property module)."""
    load_families()
    return _load(PROPERTY_GROUP)
