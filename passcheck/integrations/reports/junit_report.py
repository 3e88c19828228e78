"""``--report junit:PATH``: JUnit XML, the format CI systems render (Jenkins, GitLab, GitHub
Actions test reporters, Azure, Buildkite).

One ``<testsuite>`` per run (``passcheck.<PASS>``), one ``<testcase>`` per property. A property
with a finding has a ``<failure>`` (``type`` = the kind: violation, raised, crash, timeout,
ill-formed; ``message`` = the message's first line; the text = the whole message, the repro
command and the minimal input TVMScript). A finding matching a known TVM bug is ``<skipped>``
with the kept repro's name, as the exit code does not count it (pytest reports an xfail so);
with ``--strict-known`` it is a failure. A property that held on no example (every one
discarded) is ``<skipped>``. ``<system-out>`` carries the property's counts. The suite's
``<properties>`` name the TVM the run used (``tvm.version``, ``tvm.commit``) and the pass's
activity (``changed``: examples it changed, ``activity``: their share); under 5%, the suite's
``<system-err>`` carries the warning that it acted on almost nothing.
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from passcheck.integrations.reports import report_format

# Characters XML 1.0 cannot carry (control characters other than tab and newlines).
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(s: Any) -> str:
    return _INVALID.sub("?", str(s))


def _first_line(s: str) -> str:
    lines = [x for x in s.strip().splitlines() if x.strip()]
    return (lines[0] if lines else "")[:500]


def junit_tree(result: Any) -> ET.Element:
    """The ``<testsuites>`` element of ``result`` (a ``RunResult``)."""
    cfg = result.config
    suite_name = f"passcheck.{result.subject_name}"
    findings: dict[str, Any] = {}
    for f in result.findings:
        findings.setdefault(f.property, f)  # a new finding comes before a known bug of the same property
    root = ET.Element("testsuites", name="passcheck")
    suite = ET.SubElement(root, "testsuite", name=_text(suite_name), timestamp=datetime.now(UTC)
                          .strftime("%Y-%m-%dT%H:%M:%S"), hostname=_text(socket.gethostname()))
    props = ET.SubElement(suite, "properties")
    for name, value in (("pass", result.subject_name), ("ir", result.subject_ir), ("impl", cfg.impl or ""),
                        ("seed", cfg.seed), ("examples", result.examples),
                        ("given_modules", len(cfg.explicit_examples)),
                        ("tvm.version", (result.tvm or {}).get("version") or ""),
                        ("tvm.commit", (result.tvm or {}).get("commit") or "not recorded"),
                        *((("changed", result.changed), ("activity", f"{result.activity:.4f}"))
                          if result.activity is not None else ())):
        ET.SubElement(props, "property", name=name, value=_text(value))
    failures = skipped = 0
    for name in result.properties:
        stats = result.stats[name]
        case = ET.SubElement(suite, "testcase", name=_text(name), classname=_text(suite_name), time="0")
        f = findings.get(name)
        if f is not None and f.known_bug and not cfg.strict_known:
            skipped += 1
            ET.SubElement(case, "skipped", type="known-tvm-bug",
                          message=_text(f"known TVM bug (kept repro: {f.known_bug}): {_first_line(f.message)}"))
        elif f is not None:
            failures += 1
            known = f"\nknown TVM bug, kept repro: {f.known_bug}" if f.known_bug else ""
            body = f"{f.message}{known}\n\nrepro: python {f.repro}" + ("" if f.shrunk else " (not shrunk)")
            if f.input_script:
                body += f"\n\ninput IR (TVMScript):\n{f.input_script}"
            el = ET.SubElement(case, "failure", type=str(f.kind), message=_text(_first_line(f.message)))
            el.text = _text(body)
        elif stats.held == 0:
            skipped += 1
            ET.SubElement(case, "skipped", type="discarded",
                          message=f"held on no example: {stats.discarded} discarded ({stats.unknown} unknown)")
        out = ET.SubElement(case, "system-out")
        out.text = (f"held {stats.held}, violated {stats.violated} ({stats.known_violations} known TVM bugs), "
                    f"discarded {stats.discarded} "
                    f"(unknown {stats.unknown}) of {result.examples} examples")
    warning = result.activity_warning()
    if warning:
        ET.SubElement(suite, "system-err").text = _text("warning: " + warning)
    counts = {"tests": len(result.properties), "failures": failures, "errors": 0, "skipped": skipped,
              "time": f"{result.duration_s:.3f}"}
    for el in (root, suite):
        for k, v in counts.items():
            el.set(k, str(v))
    return root


@report_format("junit")
def write_junit(result: Any, path: Path) -> None:
    tree = ET.ElementTree(junit_tree(result))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
