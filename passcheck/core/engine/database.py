"""Failing examples kept in Hypothesis's example database, replayed first by the next run.

The database is Hypothesis's own (``DirectoryBasedExampleDatabase``, by default under
``.passcheck/examples``; ``RedisExampleDatabase`` for ``redis://HOST:PORT``, shared by every
worker and machine of a campaign). What is stored is passcheck's plain-data example, not
Hypothesis's choice sequence: a saved failure replays as the same graph or schedule even after
the strategies changed, and ``passcheck replay`` can re-run it alone.

Keys: one per subject and implementation under test (``passcheck:v1:<ir>:<subject>:<impl>``),
holding one value per saved failure (the example, the property and how it failed); an index key
lists the subject keys, so ``replay`` finds every saved failure.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from passcheck.core.errors import UsageError

DEFAULT_DIRECTORY = ".passcheck/examples"
INDEX = b"passcheck:v1:index"


@dataclass(frozen=True)
class SavedFailure:
    subject: str
    ir: str
    impl: str | None
    property_files: tuple[str, ...]
    property: str
    kind: str
    message: str
    example: Any


def open_database(spec: str | None) -> Any:
    """The example database for ``--db`` (``""``: the default directory, ``None``: none)."""
    if spec is None:
        return None
    if spec.startswith("redis://"):
        return _redis(spec)
    from hypothesis.database import DirectoryBasedExampleDatabase

    path = Path(spec or DEFAULT_DIRECTORY)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--db {spec}: is a file; give a directory (or redis://HOST:PORT)")
    return DirectoryBasedExampleDatabase(str(path))


def _redis(spec: str) -> Any:
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise UsageError(f"--db {spec}: a redis database needs the cluster extra: "
                         "pip install 'passcheck[cluster]'") from None
    host, _, port = spec[len("redis://"):].rstrip("/").partition(":")
    try:
        client = redis.Redis(host=host or "127.0.0.1", port=int(port or 6379), socket_connect_timeout=5)
        client.ping()
    except (ValueError, redis.RedisError) as e:
        raise UsageError(f"--db {spec}: cannot reach redis ({type(e).__name__}: {e}); "
                         "give redis://HOST:PORT of a running redis-server") from None
    # Ten years: a failure stays until a run sees it fixed (Hypothesis's default is 8 days).
    return RedisExampleDatabase(client, expire_after=timedelta(days=3650), key_prefix=b"passcheck-db:")


class FailureStore:
    """Saved failures of one example database."""

    def __init__(self, db: Any) -> None:
        self.db = db

    @staticmethod
    def key(subject: str, ir: str, impl: str | None) -> bytes:
        return f"passcheck:v1:{ir}:{subject}:{impl or ''}".encode()

    def load(self, key: bytes) -> list[tuple[bytes, SavedFailure]]:
        """The failures saved under ``key`` that this passcheck can still read, oldest format
        problems skipped (a saved example of classes that changed is not replayable)."""
        out = []
        for value in sorted(self.db.fetch(key)):
            try:
                saved = pickle.loads(value)
            except Exception:  # noqa: BLE001 - written by another passcheck version: skip it
                continue
            if isinstance(saved, SavedFailure):
                out.append((value, saved))
        return out

    def save(self, failure: SavedFailure) -> None:
        key = self.key(failure.subject, failure.ir, failure.impl)
        self.db.save(INDEX, key)
        self.db.save(key, pickle.dumps(failure))

    def delete(self, failure: SavedFailure, value: bytes) -> None:
        self.db.delete(self.key(failure.subject, failure.ir, failure.impl), value)

    def everything(self) -> list[tuple[bytes, SavedFailure]]:
        return [item for key in sorted(self.db.fetch(INDEX)) for item in self.load(key)]
