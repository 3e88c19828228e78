"""Seeded draws in tests repeat whatever ran before them, and tests run side by side
(``pytest -n auto``), each in a folder of its own (``_own_working_directory`` below).

Several tests draw with their own ``@given`` and ``@seed`` and assert on what came out (shares
of an op, a crash at a given example). Hypothesis mixes constants from every local module
loaded so far into its draws, so without this the same test drew other examples in the full run
than alone (see ``passcheck.core.draws``); passcheck's own runs pin that pool the same way.
"""

from collections.abc import Iterator

import pytest

from passcheck.core.draws import seed_only


@pytest.fixture(autouse=True, scope="session")
def _seed_only_draws() -> Iterator[None]:
    with seed_only():
        yield


@pytest.fixture(autouse=True)
def _own_working_directory(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in a folder of its own: what a run writes where it is started (the
    findings folder, the example database .passcheck/examples, Hypothesis's .hypothesis) is
    never shared by two tests running at once (pytest-xdist) or read back by a later one, and
    the checkout stays clean. Tests name the files they read by absolute path."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
