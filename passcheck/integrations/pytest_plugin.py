"""pytest plugin (auto-registered through the ``pytest11`` entry point).

Gives a ``passcheck`` fixture whose ``check`` fails the test with the findings and their
repro paths, writing repros under pytest's temporary directory::

    def test_my_fusion(passcheck):
        passcheck.check("FuseOps", impl="mypkg.passes:my_fuse_ops", examples=50)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


class PasscheckFixture:
    def __init__(self, findings_dir: Path, default_examples: int | None) -> None:
        self.findings_dir = findings_dir
        self.default_examples = default_examples

    def check(self, subject: str, **kwargs: Any) -> Any:
        from passcheck.core.engine.api import check

        kwargs.setdefault("findings_dir", str(self.findings_dir))
        if self.default_examples is not None:
            kwargs.setdefault("examples", self.default_examples)
        kwargs.setdefault("raise_on_findings", True)
        return check(subject, **kwargs)


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("passcheck")
    group.addoption("--passcheck-examples", type=int, default=None,
                    help="default number of examples for passcheck.check in tests")


@pytest.fixture
def passcheck(request: Any, tmp_path: Path) -> PasscheckFixture:
    return PasscheckFixture(tmp_path / "passcheck-findings", request.config.getoption("--passcheck-examples"))
