"""Certificates for a TLS Dask scheduler in the tests, made with the `openssl` command: a CA, a
certificate and key for the scheduler (for 127.0.0.1), the workers and the client, each signed by
that CA, and a client certificate signed by another CA, which the scheduler must refuse."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

DAYS = "2"


@dataclass(frozen=True)
class Pair:
    """A PEM certificate and its PEM key."""

    cert: Path
    key: Path


@dataclass(frozen=True)
class TlsCertificates:
    ca: Path  # the CA certificate every party trusts
    scheduler: Pair
    worker: Pair
    client: Pair
    stranger: Pair  # a client certificate of another CA


def why_not_available() -> str | None:
    if shutil.which("openssl") is None:
        return "openssl is not on PATH (it makes the test certificates)"
    return None


def _openssl(*argv: str | Path) -> None:
    subprocess.run(["openssl", *map(str, argv)], check=True, capture_output=True, timeout=60)


def _ca(folder: Path, name: str) -> Pair:
    pair = Pair(folder / f"{name}.pem", folder / f"{name}.key")
    _openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", DAYS, "-subj", f"/CN={name}",
        "-keyout", pair.key, "-out", pair.cert,
    )  # fmt: skip
    return pair


def _signed(folder: Path, name: str, ca: Pair) -> Pair:
    pair = Pair(folder / f"{name}.pem", folder / f"{name}.key")
    request = folder / f"{name}.csr"
    extensions = folder / f"{name}.ext"
    extensions.write_text("subjectAltName = IP:127.0.0.1, DNS:localhost\n")
    _openssl(
        "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", pair.key, "-out", request
    )  # fmt: skip
    _openssl(
        "x509", "-req", "-in", request, "-CA", ca.cert, "-CAkey", ca.key, "-CAcreateserial",
        "-days", DAYS, "-extfile", extensions, "-out", pair.cert,
    )  # fmt: skip
    return pair


def make_certificates(folder: Path) -> TlsCertificates:
    """A CA and the scheduler's, a worker's and a client's certificates signed by it, plus a stranger."""
    folder.mkdir(parents=True, exist_ok=True)
    ca = _ca(folder, "ca")
    other_ca = _ca(folder, "other_ca")
    return TlsCertificates(
        ca=ca.cert,
        scheduler=_signed(folder, "scheduler", ca),
        worker=_signed(folder, "worker", ca),
        client=_signed(folder, "client", ca),
        stranger=_signed(folder, "stranger", other_ca),
    )
