"""pytest plugin (auto-registered through the ``pytest11`` entry point).

Gives a ``passcheck`` fixture whose ``check`` fails the test with the findings and their
repro paths, writing repros under pytest's temporary directory::

    def test_my_fusion(passcheck):
        passcheck.check("FuseOps", impl="mypkg.passes:my_fuse_ops", examples=50)

and each property as its own test item (``pytest_items``): ``pytest --passcheck FuseOps``, or
``test_fuse = passcheck_tests("FuseOps", ...)`` in a test module.
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
    group.addoption("--passcheck", action="append", default=[], metavar="PASS",
                    help="run passcheck on PASS, each property its own test item (repeatable); other test "
                         "files are then not collected")
    group.addoption("--passcheck-impl", default=None, metavar="SPEC", help="with --passcheck: --impl")
    group.addoption("--passcheck-ir", default="relax", help="with --passcheck: --ir")
    group.addoption("--passcheck-corpus", action="append", default=[], metavar="PATH",
                    help="with --passcheck: --corpus")
    group.addoption("--passcheck-findings", default=None, metavar="DIR",
                    help="with --passcheck: where repros go (default passcheck-findings)")
    group.addoption("--passcheck-shrink-time", type=float, default=None, metavar="SECONDS",
                    help="seconds each run spends shrinking its findings (default 120, as --shrink-time)")


def pytest_ignore_collect(config: Any) -> bool | None:
    # ``pytest --passcheck PASS`` runs passcheck's items alone, wherever it is started.
    return True if config.getoption("--passcheck") else None


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    if config.getoption("--passcheck"):
        from passcheck.core.errors import UsageError
        from passcheck.integrations.pytest_items import command_line_items

        try:
            items.extend(command_line_items(session, config))
        except UsageError as e:
            raise pytest.UsageError(f"--passcheck: {e}") from None


@pytest.fixture
def passcheck(request: Any, tmp_path: Path) -> PasscheckFixture:
    return PasscheckFixture(tmp_path / "passcheck-findings", request.config.getoption("--passcheck-examples"))
