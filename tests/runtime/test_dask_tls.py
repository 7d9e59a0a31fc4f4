"""csim through a Dask scheduler that speaks TLS: a scheduler and a worker started (Dask's own CLI)
with certificates of a CA the test makes; a client with that CA's certificate runs csim through
them, one with a stranger's certificate or none is refused with one line, and a scheduler on
another machine reached over plain tcp:// gets one warning."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the optional extra hclbuild[distributed] is not installed")

import dask
from dask_helpers import EXAMPLES, LocalDask, WorkerSpec, start_local_dask
from tls_helpers import TlsCertificates, make_certificates, why_not_available

from hclbuild import cli
from hclbuild.runtime import dask_connection


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> TlsCertificates:
    reason = why_not_available()
    if reason:
        pytest.skip(reason)
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def tls_dask(tmp_path_factory: pytest.TempPathFactory, certificates: TlsCertificates) -> Iterator[LocalDask]:
    started = start_local_dask(tmp_path_factory.mktemp("dask_tls"), [WorkerSpec("a")], tls=certificates)
    yield started
    started.stop()


def _tls_options(ca: Path, cert: Path, key: Path) -> list[str]:
    return ["--tls-ca-file", str(ca), "--tls-cert", str(cert), "--tls-key", str(key)]


def _csim(build: Path, scheduler: str, *options: str) -> int:
    return cli.main(["csim", str(EXAMPLES[1]), "--build-dir", str(build), "--scheduler", scheduler, *options])


def _results(build: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(build.glob("*/csim/*.json"))]


def test_the_scheduler_speaks_tls(tls_dask: LocalDask) -> None:
    assert tls_dask.address.startswith("tls://127.0.0.1:")


def test_csim_through_a_tls_scheduler_with_the_cas_certificate(
    tls_dask: LocalDask, certificates: TlsCertificates, tmp_path: Path
) -> None:
    client = certificates.client
    assert _csim(tmp_path, tls_dask.address, *_tls_options(certificates.ca, client.cert, client.key)) == 0
    results = _results(tmp_path)
    assert len(results) == 1
    assert results[0]["pass"] and results[0]["compared"] > 0
    assert results[0]["worker"] == tls_dask.addresses["a"]
    assert results[0]["worker"].startswith("tls://127.0.0.1:")


def test_the_certificates_may_come_from_dasks_settings(
    tls_dask: LocalDask, certificates: TlsCertificates, tmp_path: Path
) -> None:
    settings = {
        "distributed.comm.tls.ca-file": str(certificates.ca),
        "distributed.comm.tls.client.cert": str(certificates.client.cert),
        "distributed.comm.tls.client.key": str(certificates.client.key),
    }
    with dask.config.set(settings):
        assert _csim(tmp_path, tls_dask.address) == 0
    assert [result["pass"] for result in _results(tmp_path)] == [True]


def test_a_client_with_a_strangers_certificate_is_refused_in_one_line(
    tls_dask: LocalDask, certificates: TlsCertificates, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    stranger = certificates.stranger
    options = _tls_options(certificates.ca, stranger.cert, stranger.key)
    with dask.config.set({"distributed.comm.timeouts.connect": "10s"}):
        assert _csim(tmp_path, tls_dask.address, *options) == 1
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"hclbuild: error: cannot reach the Dask scheduler at {tls_dask.address}: ")
    assert _results(tmp_path) == []


def test_a_client_without_certificates_is_refused_in_one_line(
    tls_dask: LocalDask, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert _csim(tmp_path, tls_dask.address) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"hclbuild: error: {tls_dask.address} is a TLS scheduler: give --tls-ca-file and --tls-cert (and "
        "--tls-key), or set Dask's distributed.comm.tls.ca-file and distributed.comm.tls.client.cert "
        "(docs/distributed.md, TLS)"
    ]
    assert _results(tmp_path) == []


def test_a_plain_text_client_is_refused_in_one_line(
    tls_dask: LocalDask, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    plain = tls_dask.address.replace("tls://", "tcp://")
    with dask.config.set({"distributed.comm.timeouts.connect": "10s"}):
        assert _csim(tmp_path, plain) == 1
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"hclbuild: error: cannot reach the Dask scheduler at {plain}: ")
    assert _results(tmp_path) == []


def test_a_missing_tls_file_is_one_line(
    tls_dask: LocalDask, certificates: TlsCertificates, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    missing = tmp_path / "nowhere.pem"
    client = certificates.client
    assert _csim(tmp_path, tls_dask.address, *_tls_options(missing, client.cert, client.key)) == 1
    assert capsys.readouterr().err.splitlines() == [f"hclbuild: error: TLS file {missing} does not exist"]


def test_tls_options_with_a_plain_scheduler_are_refused(
    tls_dask: LocalDask, certificates: TlsCertificates, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    plain = tls_dask.address.replace("tls://", "tcp://")
    client = certificates.client
    assert _csim(tmp_path, plain, *_tls_options(certificates.ca, client.cert, client.key)) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"hclbuild: error: --tls-ca-file, --tls-cert and --tls-key are for a tls:// scheduler, not {plain}"
    ]


def test_tls_options_without_a_scheduler_are_refused(
    certificates: TlsCertificates, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    client = certificates.client
    argv = ["csim", str(EXAMPLES[1]), "--build-dir", str(tmp_path), "--cluster", "local"]
    assert cli.main([*argv, *_tls_options(certificates.ca, client.cert, client.key)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "hclbuild: error: --tls-* are for a tls:// --scheduler; a --cluster takes Dask's jobqueue settings"
    ]


def test_plain_text_to_another_machine_is_warned_about_once(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dask_connection, "_warned", set())
    for address in ("tcp://10.20.30.40:8786", "tcp://10.20.30.40:8786", "tls://10.20.30.40:8786"):
        dask_connection.warn_plain_text(address)
    for address in ("tcp://127.0.0.1:8786", "tcp://localhost:8786", "tcp://[::1]:8786", "127.0.0.1:8786"):
        dask_connection.warn_plain_text(address)
    assert capsys.readouterr().err.splitlines() == [
        "hclbuild: warning: the Dask scheduler at tcp://10.20.30.40:8786 is reached in plain text: whoever "
        "can reach it can run code on its workers; use a tls:// scheduler (docs/distributed.md, TLS)"
    ]


def test_a_scheduler_address_without_a_scheme_is_plain_tcp(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dask_connection, "_warned", set())
    dask_connection.warn_plain_text("10.20.30.40:8786")
    assert "is reached in plain text" in capsys.readouterr().err
