"""A real Dask cluster on localhost for the tests: `dask scheduler` and `dask worker` processes (their
own CLI), each worker with one thread and no nanny, so that killing one is final."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_vitis import FAKE_TOOL
from tls_helpers import Pair, TlsCertificates

STARTUP_TIMEOUT = 180.0
REPO = Path(__file__).resolve().parents[1]
EXAMPLES = [REPO / "projects" / "gemm", REPO / "projects" / "def_import"]  # csim'd through the clusters
TIMING = ("compile_seconds", "run_seconds")


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A csim result without what differs between any two runs (timings) or says where it ran."""
    return {key: value for key, value in document.items() if key not in (*TIMING, "worker", "tools")}


def csim_results(build: Path) -> dict[str, dict[str, Any]]:
    """project/func -> csim JSON of every function built below `build`."""
    return {
        f"{path.parent.parent.name}/{path.stem}": json.loads(path.read_text())
        for path in sorted(build.glob("*/csim/*.json"))
    }


@dataclass
class WorkerSpec:
    """One worker to start: its name, Dask resources and the fake Vitis tools on its PATH."""

    name: str
    resources: str | None = None  # e.g. "vitis_hls=1"
    fake_tools: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # more environment variables of the worker


@dataclass
class LocalDask:
    """The processes of one cluster and what the tests ask of it."""

    root: Path
    address: str
    scheduler: subprocess.Popen
    workers: dict[str, subprocess.Popen] = field(default_factory=dict)
    addresses: dict[str, str] = field(default_factory=dict)  # worker name -> address
    tls: TlsCertificates | None = None  # the scheduler speaks tls:// with these certificates

    @property
    def fake_vitis_log(self) -> Path:
        """JSON lines of the fake Vitis calls made on the workers that have the tools."""
        return self.root / "fake_vitis_calls.jsonl"

    def fake_vitis_calls(self) -> list[dict[str, Any]]:
        """Every recorded fake Vitis call, oldest first."""
        if not self.fake_vitis_log.is_file():
            return []
        return [json.loads(line) for line in self.fake_vitis_log.read_text().splitlines() if line]

    def client(self) -> Any:
        """A Dask client of this cluster (close it)."""
        from distributed import Client
        from distributed.security import Security

        security = (
            Security(
                tls_ca_file=str(self.tls.ca),
                tls_client_cert=str(self.tls.client.cert),
                tls_client_key=str(self.tls.client.key),
                require_encryption=True,
            )
            if self.tls
            else None
        )
        return Client(self.address, timeout=60, set_as_default=False, security=security)

    def submitted(self) -> int:
        """How many hclbuild jobs the scheduler has been given so far."""

        def count(dask_scheduler: Any) -> int:
            return sum(
                prefix.state_counts.get("waiting", 0)
                for name, prefix in dask_scheduler.task_prefixes.items()
                if name.startswith("hclbuild")
            )

        with self.client() as client:
            return int(client.run_on_scheduler(count))

    def kill(self, name: str) -> None:
        """SIGKILL one worker process (no nanny restarts it)."""
        process = self.workers[name]
        process.send_signal(signal.SIGKILL)
        process.wait()

    def stop(self) -> None:
        """Terminate the workers, then the scheduler (a worker says goodbye to it), and wait for each."""
        for group in (list(self.workers.values()), [self.scheduler]):
            for process in group:
                if process.poll() is None:
                    process.terminate()
            for process in group:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _tls_options(ca: Path, pair: Pair) -> list[str]:
    return ["--tls-ca-file", str(ca), "--tls-cert", str(pair.cert), "--tls-key", str(pair.key)]


def start_local_dask(root: Path, workers: list[WorkerSpec], tls: TlsCertificates | None = None) -> LocalDask:
    """Start a scheduler and the workers (concurrently), wait until all workers are connected; with
    `tls`, the scheduler listens on tls:// and takes only certificates of that CA."""
    root.mkdir(parents=True, exist_ok=True)
    scheduler_file = root / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    quiet = {"DASK_DISTRIBUTED__LOGGING__DISTRIBUTED": "warning"}
    with open(root / "scheduler.log", "wb") as log:
        scheduler = subprocess.Popen(
            [
                *dask,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(scheduler_file),
                *(["--protocol", "tls", *_tls_options(tls.ca, tls.scheduler)] if tls else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env={**os.environ, **quiet},
        )
    cluster = LocalDask(root, "", scheduler, tls=tls)
    try:
        for spec in workers:
            env = {**os.environ, **quiet, **spec.env}
            if spec.fake_tools:
                bin_dir = root / f"bin_{spec.name}"
                bin_dir.mkdir(exist_ok=True)
                for tool in spec.fake_tools:
                    (bin_dir / tool).symlink_to(FAKE_TOOL)
                env.update(
                    PATH=f"{bin_dir}{os.pathsep}{env['PATH']}",
                    FAKE_VITIS_LOG=str(cluster.fake_vitis_log),
                    FAKE_VITIS_VERSION="2025.1",
                )
            argv = [
                *dask,
                "worker",
                "--scheduler-file",
                str(scheduler_file),
                "--no-nanny",
                "--nthreads",
                "1",
                "--no-dashboard",
                "--name",
                spec.name,
                "--host",
                "127.0.0.1",
            ]
            if spec.resources:
                argv += ["--resources", spec.resources]
            if tls:
                argv += _tls_options(tls.ca, tls.worker)
            with open(root / f"{spec.name}.log", "wb") as log:
                cluster.workers[spec.name] = subprocess.Popen(
                    argv, stdout=subprocess.DEVNULL, stderr=log, env=env
                )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not scheduler_file.is_file():
            if time.monotonic() > deadline or scheduler.poll() is not None:
                raise RuntimeError(
                    f"the Dask scheduler did not start: {(root / 'scheduler.log').read_text()}"
                )
            time.sleep(0.2)
        time.sleep(0.2)  # the file is written in one go, but let it be complete
        cluster.address = json.loads(scheduler_file.read_text())["address"]
        with cluster.client() as client:
            client.wait_for_workers(len(workers), timeout=STARTUP_TIMEOUT)
            info = client.scheduler_info(n_workers=-1)["workers"]
            cluster.addresses = {worker["name"]: address for address, worker in info.items()}
    except BaseException:
        cluster.stop()
        raise
    return cluster
