"""Load a user's implementation given as ``module:attr`` or ``path/to/file.py:attr``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from passcheck.core.errors import UsageError


def looks_like_spec(text: str) -> bool:
    return ":" in text or text.endswith(".py")


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
            name = f"passcheck_impl_{abs(hash(str(path.resolve())))}"
            ispec = importlib.util.spec_from_file_location(name, path)
            if ispec is None or ispec.loader is None:
                raise UsageError(f"{what} {spec}: {mod_part} is not a Python file")
            module = importlib.util.module_from_spec(ispec)
            sys.modules[name] = module
            ispec.loader.exec_module(module)
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
