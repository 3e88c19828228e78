"""Failing examples kept in Hypothesis's example database, replayed first by the next run.

The database is Hypothesis's own (``DirectoryBasedExampleDatabase``, by default under
``.passcheck/examples``; ``RedisExampleDatabase`` for ``redis://`` and ``rediss://`` URLs, shared
by every worker and machine of a campaign). What is stored is passcheck's plain-data example as
JSON (``core/data.py``), not Hypothesis's choice sequence and never a pickle: a saved failure
replays as the same graph or schedule even after the strategies changed, ``passcheck replay``
can re-run it alone, and a value anyone else wrote there is read as data or refused (one line
each, in ``FailureStore.refused``), never executed.

Keys: one per subject and implementation under test (``passcheck:v1:<ir>:<subject>:<impl>``),
holding one value per saved failure (the example, the property and how it failed); an index key
lists the subject keys, so ``replay`` finds every saved failure.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from passcheck.core.data import NotPlainData, dumps, loads, plain_data
from passcheck.core.errors import UsageError

DEFAULT_DIRECTORY = ".passcheck/examples"
INDEX = b"passcheck:v1:index"
REDIS_SCHEMES = ("redis://", "rediss://")
# The password of a redis database, when its URL gives none: an environment variable, so that it
# shows neither in process lists (a URL on the command line does) nor in reports.
PASSWORD_ENV = "PASSCHECK_REDIS_PASSWORD"


@plain_data("engine.SavedFailure")
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


def is_redis(spec: str | None) -> bool:
    return bool(spec) and str(spec).startswith(REDIS_SCHEMES)


def redacted(spec: str) -> str:
    """``spec`` with the password of a redis URL replaced by ``***`` (for messages)."""
    if not is_redis(spec):
        return spec
    parts = urlsplit(spec)
    if parts.password is None:
        return spec
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def open_database(spec: str | None) -> Any:
    """The example database for ``--db`` (``""``: the default directory, ``None``: none)."""
    if spec is None:
        return None
    if is_redis(spec):
        return _redis(spec)
    from hypothesis.database import DirectoryBasedExampleDatabase

    path = Path(spec or DEFAULT_DIRECTORY)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--db {spec}: is a file; give a directory (or redis://HOST:PORT)")
    return DirectoryBasedExampleDatabase(str(path))


def _redis(spec: str) -> Any:
    shown = redacted(spec)
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise UsageError(f"--db {shown}: a redis database needs the cluster extra: "
                         "pip install 'passcheck[cluster]'") from None
    given = urlsplit(spec).password is not None
    password = None if given else os.environ.get(PASSWORD_ENV) or None
    try:
        client = redis.Redis.from_url(spec, socket_connect_timeout=5, password=password)
        client.ping()
    except redis.AuthenticationError as e:
        if not given and not password:
            raise UsageError(f"--db {shown}: redis requires a password; set ${PASSWORD_ENV} (and give "
                             "redis://USER@HOST:PORT/DB for a user other than default)") from None
        src = "the URL's password" if given else f"the password in ${PASSWORD_ENV}"
        raise UsageError(f"--db {shown}: redis refused {src} ({_first(e)}); check the user and password (the "
                         f"password in ${PASSWORD_ENV}, the user as redis://USER@HOST:PORT/DB)") from None
    except (ValueError, redis.RedisError) as e:
        raise UsageError(f"--db {shown}: cannot reach redis ({type(e).__name__}: {_first(e)}); "
                         "give redis://[USER@]HOST:PORT[/DB] (rediss:// for TLS) of a running redis-server") from None
    # Ten years: a failure stays until a run sees it fixed (Hypothesis's default is 8 days).
    return RedisExampleDatabase(client, expire_after=timedelta(days=3650), key_prefix=b"passcheck-db:")


def _first(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    return lines[0][:200] if lines else type(e).__name__


class FailureStore:
    """Saved failures of one example database; ``refused`` lists, one line each, the values it
    skipped (not passcheck's plain data: a pickle of an older passcheck, a malformed value) and
    the failures it could not save."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.refused: list[str] = []
        self.unreadable: list[tuple[bytes, bytes]] = []  # (key, value) of each refused value

    @staticmethod
    def key(subject: str, ir: str, impl: str | None) -> bytes:
        return f"passcheck:v1:{ir}:{subject}:{impl or ''}".encode()

    def load(self, key: bytes) -> list[tuple[bytes, SavedFailure]]:
        """The failures saved under ``key``; any other value is refused (``refused``), unread."""
        out = []
        for value in sorted(self.db.fetch(key)):
            try:
                saved = loads(value)
                if not isinstance(saved, SavedFailure):
                    raise NotPlainData(f"a {type(saved).__name__}, not a saved failure")
            except NotPlainData as e:
                self.unreadable.append((key, value))
                self.refused.append(f"example database: skipped a value under {key.decode(errors='replace')}: "
                                    f"{e}; never loaded (passcheck replay --forget-refused deletes it)")
                continue
            out.append((value, saved))
        return out

    def save(self, failure: SavedFailure) -> None:
        key = self.key(failure.subject, failure.ir, failure.impl)
        try:
            value = dumps(failure).encode()
        except TypeError as e:  # an example of a class not declared plain data (a third party's)
            self.refused.append(f"example database: the {failure.property} failure was not saved: {e}")
            return
        self.db.save(INDEX, key)
        self.db.save(key, value)

    def delete(self, failure: SavedFailure, value: bytes) -> None:
        self.db.delete(self.key(failure.subject, failure.ir, failure.impl), value)

    def forget_refused(self) -> int:
        """Delete every value ``load`` refused; how many."""
        for key, value in self.unreadable:
            self.db.delete(key, value)
        return len(self.unreadable)

    def everything(self) -> list[tuple[bytes, SavedFailure]]:
        keys = []
        for key in sorted(self.db.fetch(INDEX)):
            if key.startswith(b"passcheck:v1:") and len(key) < 4096:
                keys.append(key)
            else:
                self.refused.append(f"example database: skipped an index entry that is not a passcheck key "
                                    f"({key[:60]!r})")
        return [item for key in keys for item in self.load(key)]
