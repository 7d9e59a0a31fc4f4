"""Reaching a Dask scheduler: over TLS with Dask's own security settings, a warning for plain text
to another machine, and one probe connection that turns an unreachable or refusing scheduler into
one line.

A Dask scheduler runs whatever a client sends it, so a scheduler that other machines can reach
should take only clients holding a certificate of its CA: a `tls://` address. The certificates come
from Dask's configuration (`distributed.comm.tls.ca-file`, `.client.cert`, `.client.key`, e.g.
DASK_DISTRIBUTED__COMM__TLS__CA_FILE) or from hclbuild's --tls-ca-file/--tls-cert/--tls-key, which
take precedence. `distributed` is imported only when a scheduler is asked for.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hclbuild.errors import ConfigError, ToolError

TLS_SETTINGS = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert")
_warned_lock = threading.Lock()
_warned: set[str] = set()  # the plain-text addresses warned about in this process


@dataclass(frozen=True)
class TlsFiles:
    """The client's TLS files given on the command line (PEM): the CA that signed the scheduler's
    certificate, and the client's own certificate and key (the key may sit in the cert file)."""

    ca_file: Path | None = None
    cert: Path | None = None
    key: Path | None = None

    def given(self) -> bool:
        return any((self.ca_file, self.cert, self.key))


def client_security(address: str, files: TlsFiles | None = None) -> Any:
    """The distributed.Security a client of `address` connects with: `files` over Dask's
    configuration; a one-line ConfigError when a tls:// address has no CA or no client certificate."""
    import dask
    from distributed.security import Security

    files = files or TlsFiles()
    for path in (files.ca_file, files.cert, files.key):
        if path is not None and not Path(path).is_file():
            raise ConfigError(f"TLS file {path} does not exist")
    ca_file = files.ca_file or dask.config.get(TLS_SETTINGS[0], None)
    cert = files.cert or dask.config.get(TLS_SETTINGS[1], None)
    key = files.key or (None if files.cert else dask.config.get("distributed.comm.tls.client.key", None))
    scheme = _scheme(address)
    if scheme != "tls" and files.given():
        raise ConfigError(
            f"--tls-ca-file, --tls-cert and --tls-key are for a tls:// scheduler, not {address}"
        )
    if scheme == "tls" and not (ca_file and cert):
        raise ConfigError(
            f"{address} is a TLS scheduler: give --tls-ca-file and --tls-cert (and --tls-key), or set "
            f"Dask's {TLS_SETTINGS[0]} and {TLS_SETTINGS[1]} (docs/distributed.md, TLS)"
        )
    if scheme != "tls":
        return Security()
    return Security(
        tls_ca_file=str(ca_file),
        tls_client_cert=str(cert),
        tls_client_key=str(key) if key else None,
        require_encryption=True,
    )


def _scheme(address: str) -> str:
    return address.split("://", 1)[0] if "://" in address else "tcp"


def is_loopback(address: str) -> bool:
    """Whether the scheduler at `address` is on this machine's loopback interface."""
    host = urlsplit(address if "://" in address else f"tcp://{address}").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        resolved = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(resolved) and all(ipaddress.ip_address(ip).is_loopback for ip in resolved)


def warn_plain_text(address: str) -> None:
    """Warn once per process and address when a scheduler on another machine is reached over tcp://."""
    if _scheme(address) != "tcp" or is_loopback(address):
        return
    with _warned_lock:
        if address in _warned:
            return
        _warned.add(address)
    print(
        f"hclbuild: warning: the Dask scheduler at {address} is reached in plain text: whoever can reach "
        "it can run code on its workers; use a tls:// scheduler (docs/distributed.md, TLS)",
        file=sys.stderr,
        flush=True,
    )


def probe(address: str, timeout: Any, security: Any) -> None:
    """Open and close one connection to the scheduler: an unreachable one, or one that refuses this
    client's certificate, is a one-line error before anything else (a failed Client would also print
    tracebacks when it is collected)."""
    import asyncio

    import dask
    from distributed.comm.core import connect

    async def connect_once() -> None:
        comm = await connect(
            address,
            timeout=dask.utils.parse_timedelta(timeout),
            **security.get_connection_args("client"),
        )
        await comm.close()

    try:
        asyncio.run(connect_once())
    except (OSError, ValueError, TimeoutError, TypeError) as exc:
        raise ToolError(f"cannot reach the Dask scheduler at {address}: {one_line(exc)}") from None


def one_line(exc: BaseException) -> str:
    """An exception's first line, or its type's name when it says nothing."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
