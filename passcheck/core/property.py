"""Properties are plain functions; this module is how they are declared and found.

A property takes one *case* (an example after the pass ran: see ``passcheck.case``) and
returns normally when its invariant holds, raises ``Violation`` when it does not, and
``Discard`` when it does not apply to that example::

    from passcheck import prop, require

    @prop("FoldConstant")
    def folds_everything(case):
        "No call whose arguments are all constants survives."
        require(not case.constant_only_calls(case.after), "a constant-only call survived")

A name may also be a group of subjects (``@prop("schedule-primitives", ir="tir")``: every
schedule primitive and ``schedule``). ``@prop()`` with no pass names declares a *generic* property: it runs for every pass of its IR
kind (``ir="relax"`` or ``ir="tir"``).

Properties are found by import: the packages registered under the ``passcheck.properties``
entry point group (passcheck's shipped ``passcheck.properties`` is one; see ``core.plugins``),
and the files given with ``--properties``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from passcheck.core.errors import UsageError
from passcheck.core.loading import module_from_path, module_name_for

PropertyFn = Callable[..., object]

GENERIC = "*"


@dataclass(frozen=True)
class Property:
    name: str
    func: PropertyFn
    passes: tuple[str, ...]  # canonical pass names, or (GENERIC,)
    ir: str
    doc: str
    module: str
    origin: str = field(default="module")  # "module" (importable by name) or the file it was loaded from
    # run options (``Options.extra`` keys, e.g. "mutate") without which the property has nothing
    # to check: a run that does not set them does not select it (naming it still does)
    requires: tuple[str, ...] = ()

    @property
    def generic(self) -> bool:
        return GENERIC in self.passes

    def applies_to(self, pass_names: Iterable[str], ir: str) -> bool:
        if self.ir != ir:
            return False
        if self.generic:
            return True
        wanted = {n.lower() for n in pass_names}
        return any(p.lower() in wanted for p in self.passes)


_REGISTRY: dict[str, Property] = {}


def prop(*passes: str, ir: str = "relax", name: str | None = None,
         requires: tuple[str, ...] = ()) -> Callable[[PropertyFn], PropertyFn]:
    """Register the decorated function as a property of ``passes`` (none: of every pass);
    ``requires``: run options it needs (e.g. ``("mutate",)``), else it is not selected."""
    from passcheck.core.subject import family_irs

    irs = family_irs()
    if ir not in irs:
        raise UsageError(f"@prop(ir={ir!r}): ir must be one of the installed IR families ({', '.join(irs)})")
    for p in passes:
        if not isinstance(p, str):
            raise UsageError(f"@prop({p!r}): pass names are strings, e.g. @prop('FoldConstant')")

    def decorate(func: PropertyFn) -> PropertyFn:
        if not callable(func):
            raise UsageError(f"@prop decorates a function, got {type(func).__name__}")
        params = [p for p in inspect.signature(func).parameters.values() if p.default is p.empty]
        if len(params) != 1:
            raise UsageError(
                f"property {func.__qualname__} must take exactly one argument (the case), "
                f"it takes {len(params)}"
            )
        pname = name or func.__name__
        register(
            Property(
                name=pname,
                func=func,
                passes=tuple(passes) or (GENERIC,),
                ir=ir,
                doc=inspect.getdoc(func) or "",
                module=func.__module__,
                requires=tuple(requires),
            )
        )
        return func

    return decorate


def register(p: Property) -> None:
    """Add (or replace, when reloaded from the same module) a property."""
    old = _REGISTRY.get(p.name)
    if old is not None and old.module != p.module:
        raise UsageError(
            f"property name {p.name!r} is defined twice ({old.module} and {p.module}); "
            "rename one or pass name= to @prop"
        )
    _REGISTRY[p.name] = p


def all_properties() -> list[Property]:
    return list(_REGISTRY.values())


def get(name: str) -> Property:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UsageError(
            f"unknown property {name!r}; `passcheck list --properties` shows the names"
        ) from None


def load_builtin() -> list[str]:
    """Import the installed property packages (idempotent); returns their package names."""
    from passcheck.core.plugins import load_property_packages

    return load_property_packages()


def importable(p: Property, packages: list[str]) -> bool:
    """Can a worker load ``p`` by importing its module (it comes from a property package)?"""
    return p.origin == "module" and any(p.module == pkg or p.module.startswith(pkg + ".") for pkg in packages)


def load_file(path: str | Path) -> list[str]:
    """Load a user's property module by path; returns the names it registered."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"--properties {path}: no such file; give the path to a .py file with @prop functions")
    before = set(_REGISTRY)
    modname = module_name_for(p, "passcheck_user_properties")
    try:
        module_from_path(p, "passcheck_user_properties", "not a Python module; give a .py file")
    except UsageError as e:
        raise UsageError(f"--properties {path}: {e}") from None
    except Exception as e:  # noqa: BLE001 - any error in user code is bad input
        line = _error_line(e, p)
        raise UsageError(
            f"--properties {path}{line}: {type(e).__name__}: {e}; fix the module so it imports"
        ) from None
    added = sorted(set(_REGISTRY) - before)
    for n in list(_REGISTRY):
        if _REGISTRY[n].module == modname:
            object.__setattr__(_REGISTRY[n], "origin", str(p))
    if not added and not any(v.module == modname for v in _REGISTRY.values()):
        raise UsageError(
            f"--properties {path}: defines no property; decorate functions with @passcheck.prop(...)"
        )
    return added or [n for n, v in _REGISTRY.items() if v.module == modname]


def _error_line(e: BaseException, path: Path) -> str:
    tb = e.__traceback__
    lineno = None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path.resolve():
            lineno = tb.tb_lineno
        tb = tb.tb_next
    if lineno is None and isinstance(e, SyntaxError):
        lineno = e.lineno
    return f" line {lineno}" if lineno else ""
