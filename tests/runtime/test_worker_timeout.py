"""How long jobs wait while no worker is connected: --worker-timeout, $HCLBUILD_WORKER_TIMEOUT, and a
scheduler that loses its only worker ending the build in one line instead of waiting forever."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the optional extra hclbuild[distributed] is not installed")

from dask_helpers import EXAMPLES, LocalDask, WorkerSpec, start_local_dask

from hclbuild import cli
from hclbuild.runtime import remote


def test_a_worker_timeout_that_is_no_number_of_seconds_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HCLBUILD_WORKER_TIMEOUT", "soon")
    assert cli.main(["csim", str(EXAMPLES[1]), "--build-dir", str(tmp_path), "--cluster", "local"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "hclbuild: error: $HCLBUILD_WORKER_TIMEOUT = 'soon': expected a number of seconds above 0"
    ]


@pytest.mark.parametrize(
    ("given", "said"), [("0", "0 seconds: give more than 0"), ("x", "'x' is not a number of seconds")]
)
def test_the_worker_timeout_option_takes_seconds_above_0(
    given: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(
            [
                "csim",
                str(EXAMPLES[1]),
                "--build-dir",
                str(tmp_path),
                "--cluster",
                "local",
                "--worker-timeout",
                given,
            ]
        )
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"argument --worker-timeout: {said}")


def _kill_the_worker_once_connected(cluster: LocalDask, stop: threading.Event) -> None:
    while not stop.is_set():
        if remote._SESSION is not None:  # connected: the build's jobs are about to be submitted
            cluster.kill("only")
            return
        time.sleep(0.05)


@pytest.mark.slow
def test_a_scheduler_that_loses_its_only_worker_ends_the_build_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    cluster = start_local_dask(tmp_path / "dask", [WorkerSpec("only")])
    stop = threading.Event()
    killer = threading.Thread(target=_kill_the_worker_once_connected, args=(cluster, stop))
    killer.start()
    try:
        started = time.monotonic()
        build = tmp_path / "build"
        code = cli.main(
            [
                "csim",
                str(EXAMPLES[1]),
                "--build-dir",
                str(build),
                "--scheduler",
                cluster.address,
                "--worker-timeout",
                "3",
            ]
        )
        seconds = time.monotonic() - started
    finally:
        stop.set()
        killer.join()
        cluster.stop()
    assert code == 1
    errors = capsys.readouterr().err.splitlines()
    assert errors == [
        f"hclbuild: error: the Dask scheduler at {cluster.address} has had no worker for 3 s "
        f"(start some with `dask worker {cluster.address}`; see --worker-timeout)"
    ]
    assert seconds < 120
    assert not any(json.loads(path.read_text()).get("pass") for path in build.glob("*/csim/*.json"))
