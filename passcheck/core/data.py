"""Plain data on disk and on the wire: what passcheck writes and reads back is JSON that builds
only the classes declared for it, never code.

A class that may appear in a saved example (a ``GraphSpec``, a ``Mutant``, a ``ScheduleExample``,
a given module, ...) or in what a campaign sends between machines is declared where it is
defined, under a tag that stays the same when the class moves::

    @plain_data("relax.GraphSpec")
    @dataclass(frozen=True)
    class GraphSpec: ...

``dumps(value)`` writes a versioned JSON document (``{"format": "passcheck-data/1", "value":
...}``); ``loads(text)`` reads one back. Reading looks each tag up in the declarations (the IR
families are imported first, through their entry points, so their declarations are there),
checks every field against the class's annotations, and builds the value; anything else -- a
pickle, an unknown tag, a field the class does not have, a value of the wrong type, JSON that
does not parse -- raises ``NotPlainData`` with one line that says what it was. Nothing in the
document is imported or executed.

Encoding: ``None``, bools, ints, strings and finite floats are JSON's own; a tuple is a JSON
array (most of an example is tuples); everything else is an object with a ``"$"`` tag: a
declared class (``{"$": "relax.Node", "op": ..., ...}``, fields equal to their default left
out), a list, a dict, bytes, or a float JSON cannot write (nan, inf).
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
import math
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from passcheck.core.registry import Registry

FORMAT = "passcheck-data/1"
MAX_DEPTH = 200  # deeper than any example passcheck draws; a deeper document is refused unread
T = TypeVar("T")


class NotPlainData(ValueError):
    """A document that is not plain data this passcheck can read: the message is one line."""


_CLASSES: Registry[type] = Registry("plain-data class")
_TAGS: dict[type, str] = {}
_HINTS: dict[type, dict[str, Any]] = {}


def plain_data(tag: str) -> Callable[[type[T]], type[T]]:
    """Declare a dataclass (or an Enum) as plain data under ``tag``: ``dumps`` may write it and
    ``loads`` may build it. The tag is part of the saved format: keep it when the class moves."""

    def declare(cls: type[T]) -> type[T]:
        if not (dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum)):
            raise TypeError(f"@plain_data({tag!r}): {cls.__name__} is neither a dataclass nor an Enum")
        _CLASSES.add(tag, cls)
        _TAGS[cls] = tag
        return cls

    return declare


def forget_plain_data(tag: str) -> None:
    """Take a declaration back out (tests that declare a toy class clean up with this)."""
    cls = _CLASSES.find(tag)
    _CLASSES.remove(tag)
    _TAGS.pop(cls, None)  # type: ignore[arg-type]
    _HINTS.pop(cls, None)  # type: ignore[arg-type]


def declared() -> dict[str, type]:
    """Every declared class, by tag (after the families are imported)."""
    _load_families()
    return dict(_CLASSES.items())


# ------------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------------


def encode(value: Any) -> Any:
    """``value`` as JSON-able data; a TypeError names what is not declared plain data."""
    if value is None or type(value) in (bool, str, int):
        return value
    if isinstance(value, (str, int)) and not isinstance(value, enum.Enum):  # TVM's String, ...: as str/int
        return str(value) if isinstance(value, str) else int(value)
    if type(value) is float:
        return value if math.isfinite(value) else {"$": "float", "value": repr(value)}
    if type(value) is tuple:
        return [encode(x) for x in value]
    if type(value) is list:
        return {"$": "list", "items": [encode(x) for x in value]}
    if type(value) is dict:
        return {"$": "dict", "items": [[encode(k), encode(v)] for k, v in value.items()]}
    if type(value) is bytes:
        return {"$": "bytes", "base64": base64.b64encode(value).decode()}
    tag = _TAGS.get(type(value))
    if tag is None:
        raise TypeError(f"{type(value).__module__}.{type(value).__qualname__} is not plain data: declare it "
                        "with @plain_data(TAG) where it is defined (docs/architecture.md)")
    if isinstance(value, enum.Enum):
        return {"$": tag, "value": encode(value.value)}
    out: dict[str, Any] = {"$": tag}
    for f in dataclasses.fields(value):
        v = getattr(value, f.name)
        if f.default is not dataclasses.MISSING and type(v) is type(f.default) and v == f.default:
            continue  # left out: read back as the default
        out[f.name] = encode(v)
    return out


def document(value: Any) -> dict[str, Any]:
    """``value`` as a versioned document (a dict for ``json.dumps``, or to nest in other JSON)."""
    return {"format": FORMAT, "value": encode(value)}


def dumps(value: Any) -> str:
    """``value`` as a versioned JSON document (compact, the same text for equal values)."""
    return json.dumps(document(value), separators=(",", ":"), allow_nan=False)


# ------------------------------------------------------------------------------------------------
# Reading
# ------------------------------------------------------------------------------------------------


def loads(text: str | bytes) -> Any:
    """The value a ``dumps`` document holds; ``NotPlainData`` (one line) for anything else."""
    if isinstance(text, bytes):
        if text[:1] == b"\x80":
            raise NotPlainData("a pickle (written by an older passcheck): never loaded")
        try:
            text = text.decode()
        except UnicodeDecodeError:
            raise NotPlainData("binary data, not a passcheck-data JSON document") from None
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise NotPlainData(f"not JSON ({_line(e)})") from None
    return load_document(doc)


def load_document(doc: Any) -> Any:
    """The value of a ``document`` (JSON already parsed); ``NotPlainData`` for anything else."""
    if not isinstance(doc, dict) or "format" not in doc or "value" not in doc:
        raise NotPlainData("JSON, but not a passcheck-data document (no format and value)")
    if doc["format"] != FORMAT:
        raise NotPlainData(f"format {str(doc['format'])[:40]!r}, not {FORMAT} (written by another passcheck version)")
    return decode(doc["value"])


def decode(data: Any, depth: int = 0) -> Any:
    """The value ``encode`` wrote as ``data``; ``NotPlainData`` for anything else."""
    if depth > MAX_DEPTH:
        raise NotPlainData(f"nested deeper than {MAX_DEPTH} levels")
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        return tuple(decode(x, depth + 1) for x in data)
    if not isinstance(data, dict) or not isinstance(data.get("$"), str):
        raise NotPlainData(f"a {type(data).__name__} without a '$' tag where a value was expected")
    tag = data["$"]
    if tag in _BUILTIN:
        return _BUILTIN[tag](data, depth)
    cls = _class(tag)
    if issubclass(cls, enum.Enum):
        _fields_are(data, {"value"}, tag)
        try:
            return cls(decode(data["value"], depth + 1))
        except (ValueError, TypeError):
            raise NotPlainData(f"{tag}: {str(data['value'])[:60]!r} is not one of its values") from None
    return _build(cls, tag, data, depth)


def _build(cls: type, tag: str, data: dict[str, Any], depth: int) -> Any:
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    given = set(data) - {"$"}
    unknown = sorted(given - set(fields))
    if unknown:
        raise NotPlainData(f"{tag} has no field {unknown[0][:40]!r}")
    hints = _hints(cls)
    kwargs = {}
    for name, f in fields.items():
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise NotPlainData(f"{tag} without its field {name!r}")
            continue
        value = decode(data[name], depth + 1)
        if not _conforms(value, hints[name]):
            raise NotPlainData(f"{tag}.{name}: {_short(value)} is not {_type_name(hints[name])}")
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except Exception as e:  # noqa: BLE001 - a class that checks its own fields refused them
        raise NotPlainData(f"{tag}: {_line(e)}") from None


def _class(tag: str) -> type:
    cls = _CLASSES.find(tag)
    if cls is None:
        _load_families()
        cls = _CLASSES.find(tag)
    if cls is None:
        raise NotPlainData(f"unknown type tag {tag[:60]!r} (not declared plain data by this passcheck)")
    return cls


def _load_families() -> None:
    from passcheck.core.plugins import load_families

    load_families()


def _fields_are(data: dict[str, Any], names: set[str], tag: str) -> None:
    if set(data) - {"$"} != names:
        raise NotPlainData(f"a {tag} value has the fields {sorted(set(data) - {'$'})}, not {sorted(names)}")


def _float(data: dict[str, Any], depth: int) -> float:
    _fields_are(data, {"value"}, "float")
    if data["value"] not in ("nan", "inf", "-inf"):
        raise NotPlainData(f"float {str(data['value'])[:40]!r}: only nan, inf and -inf are written so")
    return float(data["value"])


def _list(data: dict[str, Any], depth: int) -> list[Any]:
    _fields_are(data, {"items"}, "list")
    if not isinstance(data["items"], list):
        raise NotPlainData("a list whose items are not a JSON array")
    return [decode(x, depth + 1) for x in data["items"]]


def _dict(data: dict[str, Any], depth: int) -> dict[Any, Any]:
    _fields_are(data, {"items"}, "dict")
    items = data["items"]
    if not isinstance(items, list) or not all(isinstance(kv, list) and len(kv) == 2 for kv in items):
        raise NotPlainData("a dict whose items are not [key, value] pairs")
    out = {}
    for k, v in items:
        key = decode(k, depth + 1)
        try:
            out[key] = decode(v, depth + 1)
        except TypeError:
            raise NotPlainData(f"a dict key that cannot be one: {_short(key)}") from None
    return out


def _bytes(data: dict[str, Any], depth: int) -> bytes:
    _fields_are(data, {"base64"}, "bytes")
    try:
        return base64.b64decode(str(data["base64"]), validate=True)
    except ValueError:
        raise NotPlainData("bytes that are not base64") from None


_BUILTIN: dict[str, Callable[[dict[str, Any], int], Any]] = {
    "float": _float, "list": _list, "dict": _dict, "bytes": _bytes}


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# ------------------------------------------------------------------------------------------------
# Field types: every field is checked against the class's annotation
# ------------------------------------------------------------------------------------------------


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _conforms(value: Any, hint: Any) -> bool:
    if hint is Any or hint is object:
        return True
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_conforms(value, a) for a in args)
    if origin is typing.Literal:
        return value in args
    if hint is None or hint is type(None):
        return value is None
    if hint is float:
        return type(value) in (int, float)
    if hint in (int, str, bool, bytes):
        return type(value) is hint
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(x, args[0]) for x in value)
        return not args or (len(args) == len(value) and all(_conforms(x, a) for x, a in zip(value, args)))
    if origin is list:
        return isinstance(value, list) and all(_conforms(x, args[0]) for x in value) if args else isinstance(value, list)
    if origin is dict:
        return isinstance(value, dict) and (not args or all(
            _conforms(k, args[0]) and _conforms(v, args[1]) for k, v in value.items()))
    if hint is tuple or hint is list or hint is dict:
        return isinstance(value, hint)
    if isinstance(hint, type) and hint in _TAGS:
        return isinstance(value, hint)
    raise TypeError(f"a plain-data field annotated {hint!r}: passcheck cannot check that type; use "
                    "None, bool, int, float, str, bytes, tuples, lists, dicts, unions, Any or a declared class")


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    return f"{type(e).__name__}: {lines[0][:160] if lines else ''}"
