"""A real redis-server on the loopback address, started by a test: with a password (and an ACL
user) where asked, with TLS on a second port where asked (a self-signed certificate made with
openssl). Skips with the reason where redis-server or openssl is missing."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

REDIS = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Redis:
    port: int
    password: str | None
    tls_port: int | None = None
    ca: Path | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def tls_url(self) -> str:
        return f"rediss://127.0.0.1:{self.tls_port}/0?ssl_ca_certs={self.ca}"

    def client(self) -> object:
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password)


def _certificate(directory: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: the TLS test makes its certificate with it")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


@contextmanager
def redis_server(directory: Path, password: str | None = None, tls: bool = False) -> Iterator[Redis]:
    if REDIS is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; .ci/run does)")
    server = Redis(free_port(), password)
    args = [REDIS, "--port", str(server.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", str(directory)]
    if password is not None:
        args += ["--requirepass", password]
    if tls:
        cert, key = _certificate(directory)
        server.tls_port, server.ca = free_port(), cert
        args += ["--tls-port", str(server.tls_port), "--tls-cert-file", str(cert), "--tls-key-file", str(key),
                 "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import redis

        client = server.client()
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        yield server
    finally:
        proc.terminate()
        proc.wait(10)
