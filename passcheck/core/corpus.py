"""Given modules (``--corpus PATH``, ``passcheck verify FILE``): files read into plain data.

A corpus module crosses to the worker as its TVMScript text (``CorpusModule``), like a drawn
example; the subject's family builds a case from it. Three kinds of file are understood:

* a Python file that defines ``mod`` (or ``Before`` / ``before``) with TVMScript decorators,
  as TVM's own pass tests do -- executed here, in the runner, like an ``--impl`` file;
* a TVMScript file (what ``mod.script()`` prints, e.g. a finding's ``input_ir.py``);
* a saved finding (a directory with ``repro.py``): its plain-data example when it was found
  on the subject under test, so it runs exactly as found, else its ``input_ir.py``.

A directory is searched recursively, in name order. A file given by name that cannot be read
is bad input (exit 2); inside a directory it is skipped and listed with the reason.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from passcheck.core.data import NotPlainData, loads, plain_data
from passcheck.core.errors import GeneratorRejected, UsageError

ENTRY_NAMES = ("mod", "Before", "before")
_REPRO_MARK = "from passcheck.core.engine.repro import recheck"


@plain_data("core.CorpusModule")
@dataclass(frozen=True)
class CorpusModule:
    """One given module: its TVMScript, the file (and name) it came from, and the seed of the
    inputs drawn for its signature."""

    script: str
    # where it was read is not what it is: a kept repro read from another checkout is the same example
    origin: str = field(compare=False)
    ir: str = "relax"  # "relax" when it has a Relax function, else "tir"
    seed: int = 0

    def describe(self) -> str:
        return f"corpus module {self.origin}"


@dataclass
class Corpus:
    examples: list[Any] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    # origin -> the IRModule as loaded here (``verify`` checks it in this process, so a module
    # whose TVMScript does not parse back is still checked)
    modules: dict[str, Any] = field(default_factory=dict)


def _first_line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    return f"{type(e).__name__}: {lines[-1][:200] if lines else ''}"


def module_ir(mod: Any) -> str:
    from tvm import relax

    return "relax" if any(isinstance(f, relax.Function) for _, f in mod.functions_items()) else "tir"


def as_irmodule(obj: Any) -> Any:
    """An IRModule for what a file defined (an IRModule, or a function that becomes ``main``)."""
    import tvm
    from tvm import relax, tirx

    if isinstance(obj, tvm.IRModule):
        return obj
    if isinstance(obj, relax.Function):
        return tvm.IRModule({"main": obj.with_attr("global_symbol", "main")})
    if isinstance(obj, tirx.PrimFunc):
        return tvm.IRModule({"main": obj.with_attr("global_symbol", "main")})
    return None


def script_of(mod: Any) -> str:
    """TVMScript that parses back to ``mod`` (tensor constants included)."""
    try:
        return mod.script(show_meta=True)
    except Exception:  # noqa: BLE001 - without constants the plain form is the same text
        return mod.script()


def parse(script: str) -> Any:
    """The IRModule of a TVMScript text, parsed without running any of its Python (a given
    module's script arrives as data: from a file, a saved finding, the example database)."""
    from passcheck.core.tvmscript import NotTVMScript
    from passcheck.core.tvmscript import parse as parse_script

    try:
        return as_irmodule(parse_script(script))
    except NotTVMScript as e:
        raise ValueError(f"not TVMScript alone: {e}") from None


def parse_given(module: CorpusModule) -> Any:
    """The IRModule of a given module, where a case is built (its script arrived as data): a
    script that is not TVMScript alone is an example that cannot be built, never run."""
    try:
        return parse(module.script)
    except ValueError as e:
        raise GeneratorRejected(f"{module.origin}: {e}") from None


_FLOAT_NAME = re.compile(r"([\"'])b?float(16|32)\1")
_FLOAT_CTOR = re.compile(r"\bT\.b?float(16|32)\(")


def widen_floats(script: str) -> str | None:
    """The TVMScript with every float type widened to float64 (the reference a given module's
    outputs are bounded by); None when it holds tensor constants (their bytes are float32)."""
    if "metadata[" in script:
        return None
    return _FLOAT_CTOR.sub("T.float64(", _FLOAT_NAME.sub('"float64"', script))


def _exec_python(path: Path) -> tuple[Any, str]:
    """(the module the file defines under one of ENTRY_NAMES, its name), or (None, why)."""
    name = f"passcheck_corpus_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None, "not a Python file"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - the file is user input
        return None, f"executing it raised {_first_line(e)}"
    finally:
        sys.modules.pop(name, None)
    for entry in ENTRY_NAMES:
        mod = as_irmodule(getattr(module, entry, None))
        if mod is not None:
            return mod, entry
    return None, f"it defines none of {', '.join(ENTRY_NAMES)} as an IRModule or PrimFunc"


def _load_module_file(path: Path, seed: int, round_trip: bool = True,
                      loaded: dict[str, Any] | None = None, script_only: bool = False) -> CorpusModule:
    text = path.read_text()
    origin = str(path)
    if script_only or path.suffix != ".py":  # TVMScript text: parsed, never run as Python
        mod = _parse_text(text, "" if path.suffix != ".py" else
                          "; a Python file runs as code only without --tvmscript-only")
    else:
        mod, why = _exec_python(path)
        if mod is None:
            mod = _parse_text(text, f"; and neither a Python file defining {'/'.join(ENTRY_NAMES)} ({why})")
        else:
            origin = f"{path}:{why}"
    script = script_of(mod)
    if loaded is not None:
        loaded[origin] = mod
    if round_trip:
        try:
            parse(script)
        except Exception as e:  # noqa: BLE001 - the module must cross to the worker as text
            raise ValueError(f"its TVMScript does not parse back ({_first_line(e)})") from None
    return CorpusModule(str(script), origin, module_ir(mod), seed)


def _parse_text(text: str, otherwise: str) -> Any:
    try:
        mod = parse(text)
    except ValueError as e:
        raise ValueError(f"{e}{otherwise}") from None
    except Exception as e:  # noqa: BLE001 - TVM's parser refused it
        raise ValueError(f"not TVMScript TVM parses ({_first_line(e)}){otherwise}") from None
    if mod is None:
        raise ValueError("its TVMScript is neither an IRModule nor a PrimFunc")
    return mod


def _load_finding(directory: Path, subject_names: tuple[str, ...], seed: int, **kw: Any) -> Any:
    """A saved finding, read as data (neither repro.py nor input_ir.py is run): its example
    for the same pass, else its input module as TVMScript."""
    repro = directory / "repro.py"
    text = repro.read_text()
    found = re.search(r"recheck\(subject=('[^']*'|\"[^\"]*\")", text)
    if found is not None and found.group(1)[1:-1].lower() in {n.lower() for n in subject_names}:
        try:
            return read_example(text)
        except NotPlainData as e:
            raise ValueError(f"refused its example: {e}; never loaded") from None
    source = directory / "input_ir.py"
    if not source.is_file():
        raise ValueError("a saved finding of another pass without input_ir.py")
    return _load_module_file(source, seed, **{**kw, "script_only": True})


def read_example(repro_text: str) -> Any:
    """The example a repro.py holds (its ``EXAMPLE_JSON``), read from the file's syntax tree and
    decoded as plain data; ``NotPlainData`` (one line) when it holds none this passcheck reads."""
    try:
        tree = ast.parse(repro_text)
    except (SyntaxError, ValueError) as e:
        raise NotPlainData(f"repro.py does not parse as Python ({type(e).__name__})") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["EXAMPLE_JSON"] \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return loads(node.value.value)
    raise NotPlainData("repro.py holds no EXAMPLE_JSON (written by an older passcheck, or not by passcheck)")


def _is_finding(path: Path) -> bool:
    repro = path / "repro.py"
    return repro.is_file() and _REPRO_MARK in repro.read_text()


def load_corpus(paths: tuple[str, ...] | list[str], ir: str | None, subject_names: tuple[str, ...] = (),
                seed: int = 0, what: str = "--corpus", round_trip: bool = True, script_only: bool = False) -> Corpus:
    """The examples the files under ``paths`` give for a subject of family ``ir`` (modules of
    the other family are skipped, with the reason; ``ir=None`` takes every module).
    ``round_trip=False``: a module whose TVMScript does not parse back is kept (in-process use).
    A ``.py`` file runs as Python (the user's own code) unless ``script_only``; ``.tvmscript``
    files and saved findings are read as data, never run."""
    corpus = Corpus()
    kw = {"round_trip": round_trip, "loaded": corpus.modules, "script_only": script_only}

    def take(item: Any, path: Path) -> None:
        item_ir = getattr(item, "ir", ir)
        if ir is not None and item_ir != ir:
            corpus.skipped.append((str(path), f"a {item_ir} module; the subject is a {ir} transformation"))
        else:
            corpus.examples.append(item)

    for p in paths:
        path = Path(p)
        if not path.exists():
            raise UsageError(f"{what} {p}: no such file or directory")
        if path.is_file() or _is_finding(path):
            try:
                item = (_load_finding(path, subject_names, seed, **kw) if path.is_dir()
                        else _load_module_file(path, seed, **kw))
            except ValueError as e:
                raise UsageError(f"{what} {p}: {e}; give TVMScript, or a Python file that defines "
                                 f"{' / '.join(ENTRY_NAMES)}") from None
            take(item, path)
            continue
        before = len(corpus.examples) + len(corpus.skipped)
        for f in _walk(path):
            try:
                item = (_load_finding(f, subject_names, seed, **kw) if f.is_dir()
                        else _load_module_file(f, seed, **kw))
            except (ValueError, OSError, UnicodeDecodeError) as e:
                corpus.skipped.append((str(f), str(e)))
                continue
            take(item, f)
        if len(corpus.examples) + len(corpus.skipped) == before:
            raise UsageError(f"{what} {p}: no .py or .tvmscript file in it")
    return corpus


def _walk(directory: Path) -> list[Path]:
    out: list[Path] = []
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith((".", "__")):
            continue
        if entry.is_dir():
            out.extend([entry] if _is_finding(entry) else _walk(entry))
        elif entry.suffix in (".py", ".tvmscript") and entry.name not in ("conftest.py",):
            out.append(entry)
    return out


def corpus_for(paths: tuple[str, ...] | list[str], subject: str, ir: str = "relax",
               script_only: bool = False) -> Corpus:
    """``load_corpus`` for the subject named ``subject`` (resolved as the run resolves it)."""
    from passcheck.core.subject import resolve

    s = resolve(subject, ir)
    if not getattr(s, "accepts_corpus", True):
        raise UsageError(f"--corpus: {s.name} draws its own schedule steps and takes no given module; use a "
                         "TIR pass (--ir tir path.py:make_pass) or `passcheck verify FILE`")
    return load_corpus(paths, s.ir, s.names, script_only=script_only)
