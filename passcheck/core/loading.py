"""Load a user's implementation given as ``module:attr`` or ``path/to/file.py:attr``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from passcheck.core.errors import UsageError


def looks_like_spec(text: str) -> bool:
    return ":" in text or text.endswith(".py")


def module_name_for(path: Path, prefix: str) -> str:
    """The module name a user's file is loaded under (one per file, stable within a process)."""
    return f"{prefix}_{abs(hash(str(path.resolve())))}"


def module_from_path(path: Path, prefix: str, not_python: str) -> ModuleType:
    """Execute a user's Python file as a module (registered in ``sys.modules`` first, so its
    classes pickle); ``not_python`` is the usage error when it is not loadable as Python.
    Exceptions its code raises propagate: the caller words them for its option."""
    name = module_name_for(path, prefix)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(not_python)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_object(spec: str, what: str = "--impl") -> Any:
    if ":" not in spec:
        raise UsageError(f"{what} {spec}: expected module:attr or path/to/file.py:attr (e.g. mypasses:make_pass)")
    mod_part, _, attr = spec.rpartition(":")
    if not attr.isidentifier():
        raise UsageError(f"{what} {spec}: {attr!r} is not a Python name; expected module:attr")
    try:
        if mod_part.endswith(".py") or "/" in mod_part or "\\" in mod_part:
            path = Path(mod_part)
            if not path.is_file():
                raise UsageError(f"{what} {spec}: no such file {mod_part}")
            module = module_from_path(path, "passcheck_impl", f"{what} {spec}: {mod_part} is not a Python file")
        else:
            module = importlib.import_module(mod_part)
    except UsageError:
        raise
    except ModuleNotFoundError as e:
        raise UsageError(f"{what} {spec}: cannot import {e.name!r}; check the module name and PYTHONPATH") from None
    except Exception as e:  # noqa: BLE001 - user code failing to import is bad input
        raise UsageError(f"{what} {spec}: importing {mod_part} raised {type(e).__name__}: {e}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise UsageError(f"{what} {spec}: {mod_part} has no attribute {attr!r}") from None


def load_impl(spec: str | None) -> Any:
    """The user's implementation: a ``tvm.transform.Pass`` or a callable (a factory or a function
    over modules; the subject decides how to use it)."""
    if spec is None:
        return None
    import tvm

    obj = load_object(spec)
    if isinstance(obj, tvm.transform.Pass) or callable(obj):
        return obj
    raise UsageError(f"--impl {spec}: is a {type(obj).__name__}, not a tvm.transform.Pass or a function returning one")
