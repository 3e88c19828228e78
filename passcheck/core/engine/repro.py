"""Standalone repro scripts: ``python repro.py`` exits 1 while the finding still reproduces."""

from __future__ import annotations

import base64
import pickle
import re
from collections import Counter
from pathlib import Path
from typing import Any

from passcheck.core.subject import Options, Subject

TEMPLATE = '''#!/usr/bin/env python
"""passcheck repro: {subject} / property {prop} ({kind})

{message}

Run `python {fname}`: exit 1 while the property still fails, 0 once it holds.
The input IR (TVMScript) is in input_ir.py beside this file; the example below is the
plain-data description passcheck rebuilds it from.
"""

import sys

{imports}
from passcheck.core.engine.repro import recheck

EXAMPLE = {example}

if __name__ == "__main__":
    sys.exit(recheck(subject={subject!r}, prop={prop!r}, example=EXAMPLE, impl={impl!r}, ir={ir!r},
                     property_files={files!r}, timeout={timeout!r}))
'''


def example_source(example: Any) -> tuple[str, str]:
    """(imports, expression) that rebuild ``example``: its repr when that round-trips, else a pickle."""
    text = repr(example)
    classes = sorted({type(x) for x in _walk(example) if hasattr(x, "__dataclass_fields__")},
                     key=lambda c: (c.__module__, c.__name__))
    ns: dict[str, Any] = {}
    imports = []
    for c in classes:
        ns[c.__name__] = c
        imports.append(f"from {c.__module__} import {c.__name__}")
    try:
        if eval(text, ns) == example:  # noqa: S307 - our own repr
            wrapped = _wrap(text)
            try:  # a break inside a string literal (a given module's script) does not parse
                same = eval(wrapped, ns) == example  # noqa: S307
            except SyntaxError:
                same = False
            return "\n".join(imports), wrapped if same else text
    except Exception:  # noqa: BLE001
        pass
    blob = base64.b64encode(pickle.dumps(example)).decode()
    return "import base64\nimport pickle", f"pickle.loads(base64.b64decode({blob!r}))"


def _wrap(text: str) -> str:
    # break long reprs after commas so the file stays readable
    return re.sub(r"(\), )", "),\n    ", text)


def _walk(obj: Any) -> Any:
    yield obj
    if hasattr(obj, "__dataclass_fields__"):
        for f in obj.__dataclass_fields__:
            yield from _walk(getattr(obj, f))
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _walk(x)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(k)
            yield from _walk(v)


def write_repros(result: Any, impl: str | None, subject: Subject) -> None:
    base = Path(result.config.findings_dir) / _slug(result.subject_name)
    cfg = result.config
    impl_abs = absolute_impl(impl)
    files = [str(Path(f).resolve()) for f in cfg.property_files]
    # A property may fail twice the same way: a known TVM bug first, a new finding later.
    twice = Counter((f.property, f.kind) for f in result.findings)
    for f in result.findings:
        known = "-known" if f.known_bug and twice[(f.property, f.kind)] > 1 else ""
        d = base / f"{f.property}-{f.kind}{known}"
        d.mkdir(parents=True, exist_ok=True)
        imports, expr = example_source(f.example)
        # (not ``subject``: that is the Subject whose save_inputs runs below)
        name = absolute_impl(cfg.subject) if ":" in cfg.subject else result.subject_name
        text = TEMPLATE.format(subject=name, prop=f.property, kind=f.kind,
                               message=f.message.replace('"""', "'''"), fname="repro.py", imports=imports,
                               example=expr, impl=impl_abs, ir=result.subject_ir, files=files,
                               timeout=_repro_timeout(result, f.kind))
        (d / "repro.py").write_text(text)
        if f.input_script:
            (d / "input_ir.py").write_text(f.input_script)
        if f.output_script:
            (d / "output_ir.py").write_text(f.output_script)
        try:
            subject.save_inputs(f.example, d)
        except Exception:  # noqa: BLE001 - inputs are a convenience; the repro rebuilds them
            pass
        f.repro = str(d / "repro.py")


def _repro_timeout(result: Any, kind: str) -> float:
    """The repro's time limit: the run's --timeout; without one, for a hang, the longer limit
    that confirmed it (``timeouts.CONFIRM``), else recheck's generous default."""
    from passcheck.core.engine.timeouts import CONFIRM, START

    if result.config.timeout is not None:
        return float(result.config.timeout)
    if kind == "timeout":
        return round(CONFIRM * (result.timeout_s or START), 1)
    return 600.0


def absolute_impl(impl: str | None) -> str | None:
    if impl is None or ":" not in impl:
        return impl
    mod, _, attr = impl.rpartition(":")
    if mod.endswith(".py") or "/" in mod:
        return f"{Path(mod).resolve()}:{attr}"
    return impl


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)[-80:]


def recheck(subject: str, prop: str, example: Any, impl: str | None = None, ir: str = "relax",
            property_files: list[str] | tuple[str, ...] = (), timeout: float = 600.0) -> int:
    """Re-run one property on one example in an isolated worker; 1 if it still fails."""
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.engine.worker import Worker, WorkerDied

    config = RunConfig(subject=subject, ir=ir, impl=impl, properties=(prop,), property_files=tuple(property_files),
                       options=Options(impl=impl))
    w = Worker(plan(config).worker_config(), timeout)
    try:
        res = w.run(example)
    except WorkerDied as d:
        print(f"{prop}: {d.kind}: {d.detail}")
        return 1
    finally:
        w.close()
    if res.rejected:
        print(f"the example can no longer be built: {res.rejected}")
        return 2
    o = res.outcomes[prop]
    if o.verdict.finding:
        print(f"{prop}: {o.verdict}: {o.message}")
        return 1
    print(f"{prop}: {o.verdict}" + (f" ({o.message})" if o.message else ""))
    return 0
