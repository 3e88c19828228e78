"""Each property its own pytest test: ``pytest --passcheck PASS`` and ``passcheck_tests(...)``.

One passcheck run per pass serves all its test items (run on the first item, cached for the
session); an item fails when its property has a finding, and the failure shows the message,
the repro command and the minimal input as TVMScript. The number of examples comes from
``--passcheck-examples``, else from the Hypothesis settings profile (``--hypothesis-profile``,
its ``max_examples``), else 100; ``--hypothesis-seed`` seeds the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

_RUNS: dict[tuple[Any, ...], Any] = {}


def defaults(config: Any) -> dict[str, Any]:
    """``passcheck.check`` arguments the pytest command line decides."""
    out: dict[str, Any] = {}
    examples = config.getoption("--passcheck-examples")
    if examples is None and config.getoption("hypothesis_profile", None):
        from hypothesis import settings

        examples = settings.default.max_examples  # the profile the Hypothesis plugin loaded
    if examples is not None:
        out["examples"] = examples
    seed = config.getoption("hypothesis_seed", None)
    if seed is not None:
        out["seed"] = int(seed)
    shrink = config.getoption("--passcheck-shrink-time", None)
    if shrink is not None:
        out["shrink_seconds"] = float(shrink)
    return out


def shared_run(subject: str, findings_dir: Path, **kwargs: Any) -> Any:
    from passcheck.core.engine.api import check

    key = (subject, *sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in kwargs.items()))
    if key not in _RUNS:
        _RUNS[key] = check(subject, findings_dir=str(findings_dir), **kwargs)
    return _RUNS[key]


def property_names(subject: str, **kwargs: Any) -> list[str]:
    """The properties a run of ``subject`` checks (resolved as the run resolves them)."""
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig

    cfg = RunConfig(subject=subject, ir=kwargs.get("ir", "relax"), impl=kwargs.get("impl"),
                    properties=tuple(kwargs.get("properties", ())),
                    property_files=tuple(kwargs.get("property_files", ())))
    return list(plan(cfg).properties)


def failure_text(result: Any, prop: str) -> str | None:
    """What a failed test item shows, or None when ``prop`` has no finding."""
    f = next((f for f in result.findings if f.property == prop), None)
    if f is None or (f.known_bug and not result.config.strict_known):
        return None
    s = result.stats[prop]
    lines = [f"passcheck {result.subject_name} / {prop} ({f.kind}) on {result.examples} examples "
             f"(held {s.held}, violated {s.violated}, discarded {s.discarded}):", f.message]
    if f.known_bug:
        lines.append(f"known TVM bug, kept repro: {f.known_bug}")
    lines.append(f"repro: python {f.repro}" + ("" if f.shrunk else "  (not shrunk)"))
    if f.input_script:
        lines += ["", "minimal input (TVMScript):", readable(f.input_script)]
    if f.output_script:
        lines += ["", "after the pass (TVMScript):", readable(f.output_script)]
    return "\n".join(lines)


def known_reason(result: Any, prop: str) -> str | None:
    """Why a property whose only findings are known TVM bugs is an expected failure (pytest's
    xfail), or None when it has none or --strict-known counts them."""
    known = [f for f in result.findings if f.property == prop and f.known_bug]
    if not known or result.config.strict_known:
        return None
    names = ", ".join(dict.fromkeys(f.known_bug for f in known))
    return f"known TVM bug ({names}): `passcheck known show {known[0].known_bug}` prints its kept repro"


def readable(script: str) -> str:
    """TVMScript without its embedded tensor-constant blob (the repro directory keeps it)."""
    start = script.find('metadata = tvm.ir.load_json("""')
    end = script.find('""")', start)
    if start < 0 or end < 0:
        return script
    return "# (tensor constants: metadata[...] in input_ir.py / output_ir.py)\n" + script[end + 4:].lstrip()


class PasscheckFailure(Exception):
    pass


class PropertyItem(pytest.Item):
    """One property of one pass (``pytest --passcheck PASS``)."""

    def __init__(self, *, subject: str, prop: str, kwargs: dict[str, Any], **kw: Any) -> None:
        super().__init__(**kw)
        self.subject, self.prop, self.kwargs = subject, prop, kwargs

    def runtest(self) -> None:
        findings = Path(self.config.getoption("--passcheck-findings") or "passcheck-findings")
        result = shared_run(self.subject, findings, **self.kwargs)
        text = failure_text(result, self.prop)
        if text is not None:
            raise PasscheckFailure(text)
        reason = known_reason(result, self.prop)
        if reason is not None:
            pytest.xfail(reason)

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, PasscheckFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[str, int, str]:
        return "passcheck", 0, f"passcheck {self.subject}: {self.prop}"


def command_line_items(session: Any, config: Any) -> list[PropertyItem]:
    """The items ``--passcheck PASS`` (repeatable) asks for."""
    kwargs: dict[str, Any] = {**defaults(config), "ir": config.getoption("--passcheck-ir")}
    if config.getoption("--passcheck-impl"):
        kwargs["impl"] = config.getoption("--passcheck-impl")
    if config.getoption("--passcheck-corpus"):
        kwargs["corpus"] = list(config.getoption("--passcheck-corpus"))
    items = []
    for subject in config.getoption("--passcheck"):
        for prop in property_names(subject, **kwargs):
            items.append(PropertyItem.from_parent(session, name=f"{subject}::{prop}", nodeid=f"passcheck::{subject}"
                                                  f"::{prop}", subject=subject, prop=prop, kwargs=kwargs))
    return items


def passcheck_tests(subject: str, **kwargs: Any) -> Any:
    """A test function, parametrized by property, for a test module::

        test_fold = passcheck_tests("FoldConstant", impl="mypkg.passes:my_fold", examples=50)

    pytest shows ``test_fold[semantics_preserved]``, ... one item per property."""
    names = property_names(subject, **kwargs)

    @pytest.mark.parametrize("passcheck_property", names)
    def test(passcheck_property: str, request: Any, tmp_path_factory: Any) -> None:
        args = {**defaults(request.config), **kwargs}
        result = shared_run(subject, tmp_path_factory.getbasetemp() / "passcheck-findings", **args)
        text = failure_text(result, passcheck_property)
        if text is not None:
            pytest.fail(text, pytrace=False)
        reason = known_reason(result, passcheck_property)
        if reason is not None:
            pytest.xfail(reason)

    test.__name__ = f"test_passcheck_{subject}"
    return test
