"""Resolve what the user typed (a pass name, alias, primitive, or import spec) to a subject."""

from __future__ import annotations

import difflib
from typing import Any

from passcheck.core.errors import UsageError
from passcheck.core.loading import looks_like_spec
from passcheck.core.subject import Subject


def tir_subjects() -> dict[str, Subject]:
    try:
        from passcheck.tir.subjects import TIR_SUBJECTS
    except ImportError:
        return {}
    return dict(TIR_SUBJECTS)


def known_subjects() -> dict[str, Subject]:
    from passcheck.relax.passes import SUBJECTS

    out: dict[str, Subject] = dict(SUBJECTS)
    out.update(tir_subjects())
    return out


def resolve(name: str, ir: str = "relax") -> Subject:
    """The subject for ``name``; raises UsageError with a suggestion when unknown."""
    subjects = known_subjects()
    low = name.lower()
    for s in subjects.values():
        if low in (n.lower() for n in s.names):
            return s
    if looks_like_spec(name):
        if ir == "tir":
            from passcheck.tir.subjects import custom_tir_subject

            return custom_tir_subject(name, None)
        from passcheck.relax.passes import custom_subject

        return custom_subject(name)
    from tvm import relax

    if hasattr(relax.transform, name):
        from passcheck.relax.passes import generic_subject

        return generic_subject(name)
    names = sorted({n for s in subjects.values() for n in s.names if "." not in n})
    close = difflib.get_close_matches(name, names + dir(relax.transform), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise UsageError(f"unknown pass {name!r}{hint}; `passcheck list` shows the passes and primitives, "
                     "or give an implementation as module:attr")


def load_impl(spec: str | None) -> Any:
    if spec is None:
        return None
    import tvm

    from passcheck.core.loading import load_object

    obj = load_object(spec)
    if isinstance(obj, tvm.transform.Pass) or callable(obj):
        return obj
    raise UsageError(f"--impl {spec}: is a {type(obj).__name__}, not a tvm.transform.Pass or a function returning one")
