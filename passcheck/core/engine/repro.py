"""Standalone repro scripts: ``python repro.py`` exits 1 while the finding still reproduces."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from passcheck.core.data import dumps
from passcheck.core.subject import Options, Subject

TEMPLATE = '''#!/usr/bin/env python
"""passcheck repro: {subject} / property {prop} ({kind})

{message}

Run `python {fname}`: exit 1 while the property still fails, 0 once it holds.
The input IR (TVMScript) is in input_ir.py beside this file; EXAMPLE_JSON below is the
plain-data description passcheck rebuilds it from (JSON that builds only passcheck's declared
plain-data classes: editing it is how to try a variant).
"""

import sys

from passcheck.core.data import loads
from passcheck.core.engine.repro import recheck

EXAMPLE_JSON = {data}
EXAMPLE = loads(EXAMPLE_JSON)
{python}
if __name__ == "__main__":
    sys.exit(recheck(subject={subject!r}, prop={prop!r}, example=EXAMPLE, impl={impl!r}, ir={ir!r},
                     property_files={files!r}, timeout={timeout!r}))
'''


def example_literal(example: Any) -> str:
    """A Python string literal holding ``example`` as a passcheck-data JSON document (indented,
    so a repro shows the example one field a line); a TypeError when it is not plain data."""
    text = _pretty(json.loads(dumps(example)), "")
    return f"r'''{text}'''" if "'''" not in text else repr(text)


def _pretty(value: Any, indent: str) -> str:
    """JSON with one field a line, and arrays of plain values (a shape, attributes) on one."""
    flat = json.dumps(value)
    if len(flat) <= 100 and not (isinstance(value, dict) and len(value) > 3):
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_pretty(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list):
        return "[\n" + ",\n".join(f"{inner}{_pretty(v, inner)}" for v in value) + f"\n{indent}]"
    return flat


def example_comment(example: Any) -> str:
    """``example`` as Python (its repr, for reading and for copying into a test), as comment lines."""
    text = re.sub(r"(\), )", "),\n", repr(example))
    return "\n# EXAMPLE, as Python (for reading; the JSON above is what runs):\n" + "\n".join(
        f"#   {line}" for line in text.splitlines()) + "\n"


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
        # (not ``subject``: that is the Subject whose save_inputs runs below)
        name = absolute_impl(cfg.subject) if ":" in cfg.subject else result.subject_name
        try:
            data = example_literal(f.example)
        except TypeError as e:  # a third party's example class not declared plain data
            (d / "repro.py").write_text(f"raise SystemExit({f'passcheck could not write this repro: {e}'!r})\n")
            f.repro = str(d / "repro.py")
            continue
        text = TEMPLATE.format(subject=name, prop=f.property, kind=f.kind,
                               message=f.message.replace('"""', "'''"), fname="repro.py", data=data,
                               python=example_comment(f.example), impl=impl_abs, ir=result.subject_ir,
                               files=files, timeout=_repro_timeout(result, f.kind))
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
