"""The TVM passcheck runs on: its version and git commit, read once per process, and the versions
passcheck supports (the 0.27 line).

passcheck uses whatever ``import tvm`` finds: the PyPI wheel its dependencies bring on a fresh
machine, or a pass author's own build (installed with ``pip install --no-deps passcheck`` beside
it, or put on ``PYTHONPATH``). Every run names that TVM (the table's header, every report), and a
TVM outside the supported line is refused before anything is drawn: its Python API differs
(``tvm.tirx``, ``tvm.s_tir``, Relax's types) and every result would be noise.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from passcheck.core.errors import UsageError

# The 0.27 line: 0.27.0.dev* (main before the release), 0.27.0, its post-releases, 0.27.x. The
# dependency in pyproject.toml says the same as a PEP 440 range (a test keeps the two together).
SUPPORTED_LINE = (0, 27)
SUPPORTED_RANGE = ">=0.27.0.dev0,<0.28.0.dev0"
_LINE = re.compile(r"(\d+)\.(\d+)(?![\d])")
# The wheels' distribution names (the source tree's pyproject.toml names it ``tvm``).
_DISTRIBUTIONS = ("apache-tvm", "tvm")


@dataclass(frozen=True)
class TVMBuild:
    """One TVM: its version, its git commit (None when the build does not record it, as the PyPI
    wheel does not) and where its Python package is."""

    version: str
    commit: str | None = None
    path: str = ""

    def describe(self) -> str:
        """``TVM 0.27.0.post1 (commit 1a2b3c4d5e6f)``: the header line every report carries."""
        return f"TVM {self.version} ({f'commit {self.commit[:12]}' if self.commit else 'commit not recorded'})"

    def as_dict(self) -> dict[str, str | None]:
        return {"version": self.version, "commit": self.commit, "path": self.path}


def supported(version: str) -> bool:
    """Is ``version`` on the supported line (``0.27.0.post1``, ``0.27.dev123+g1a2b``: yes)?"""
    m = _LINE.match(version.strip().lstrip("v"))
    return m is not None and (int(m.group(1)), int(m.group(2))) == SUPPORTED_LINE


def supported_text() -> str:
    major, minor = SUPPORTED_LINE
    return (f"passcheck {_own_version()} supports TVM {major}.{minor} ({SUPPORTED_RANGE}: the {major}.{minor} "
            f"wheel, or a source build of the {major}.{minor} line)")


def _own_version() -> str:
    try:
        return metadata.version("passcheck")
    except metadata.PackageNotFoundError:
        return "(not installed)"


@cache
def tvm_build() -> TVMBuild:
    """The TVM ``import tvm`` gives this process. Raises ``UsageError`` (one line) when there is
    none, or it does not import."""
    try:
        import tvm
    except ImportError as e:
        raise UsageError(f"TVM is not installed ({e}): `pip install passcheck` brings the {SUPPORTED_LINE[0]}."
                         f"{SUPPORTED_LINE[1]} wheel; for your own build, put it on PYTHONPATH or install it "
                         "(its python/ folder)") from None
    except Exception as e:  # noqa: BLE001 - a broken build (a missing library, an ABI mismatch)
        raise UsageError(f"`import tvm` failed: {type(e).__name__}: {e}; fix that TVM, or use the wheel "
                         f"(pip install 'apache-tvm{SUPPORTED_RANGE}')") from None
    path = str(Path(getattr(tvm, "__file__", "") or ".").resolve().parent)
    version = str(getattr(tvm, "__version__", "") or _distribution_version() or "unknown")
    return TVMBuild(version, _commit(tvm, path), path)


def require_supported() -> TVMBuild:
    """The TVM of this process, or ``UsageError`` saying which versions work."""
    build = tvm_build()
    if not supported(build.version):
        raise UsageError(f"TVM {build.version} at {build.path} is not supported: {supported_text()}")
    return build


def _distribution_version() -> str | None:
    for name in _DISTRIBUTIONS:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def _commit(tvm: object, path: str) -> str | None:
    """The git commit TVM was built from: what the library records (``tvm.support.libinfo()``,
    ``GIT_COMMIT_HASH``), else what pip recorded installing it from git, else the commit of the
    TVM checkout the package is imported from (a source build on PYTHONPATH or installed
    editable)."""
    try:
        info = dict(tvm.support.libinfo())  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a build without it
        info = {}
    commit = str(info.get("GIT_COMMIT_HASH", "") or "").strip()
    if commit and commit not in {"NOT-FOUND", "None"}:
        return commit
    return _pip_recorded_commit() or _checkout_commit(Path(path))


def _pip_recorded_commit() -> str | None:
    for name in _DISTRIBUTIONS:
        try:
            text = metadata.distribution(name).read_text("direct_url.json")
        except metadata.PackageNotFoundError:
            continue
        try:
            commit = json.loads(text or "{}").get("vcs_info", {}).get("commit_id")
        except (ValueError, AttributeError):
            commit = None
        if commit:
            return str(commit)
    return None


def _checkout_commit(package: Path) -> str | None:
    """HEAD of the git checkout whose ``python/tvm`` is ``package``; None elsewhere (a package
    that merely sits inside some other repository, such as a venv in a project's folder)."""
    try:
        top = subprocess.run(["git", "-C", str(package), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, timeout=10)
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() / "python" / "tvm" != package:
            return None
        head = subprocess.run(["git", "-C", str(package), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() or None if head.returncode == 0 else None
