"""csim jobs on workers that a real Slurm queue starts: `--cluster slurm` through dask-jobqueue, against a
one-node cluster on localhost (munged, slurmctld and slurmd of Debian's packages, see slurm_helpers).

Skipped with the reason where Slurm and munge are not installed or this is not root; CI installs
them (scripts/setup.sh) and runs as root.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

pytest.importorskip("dask_jobqueue", reason="the optional extra hclbuild[distributed] is not installed")

import dask
from dask_helpers import EXAMPLES, comparable, csim_results
from slurm_helpers import CLOSED_PARTITION, LocalSlurm, start_local_slurm, why_not_available

from hclbuild import cli
from hclbuild.runtime import remote

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSlurm]:
    """A one-node Slurm cluster for the session; afterwards no daemon or job step of it is left."""
    reason = why_not_available()
    if reason:
        pytest.skip(reason)
    started = start_local_slurm(tmp_path_factory.mktemp("slurm"))
    try:
        yield started
    finally:
        started.stop()
    assert started.leftovers() == []


@pytest.fixture(scope="module")
def jobqueue(slurm: LocalSlurm, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Dask's jobqueue.slurm settings (a folder holding jobqueue.yaml, for subprocesses' DASK_CONFIG),
    also set in this process, with Slurm's commands pointed at the test cluster."""
    folder = tmp_path_factory.mktemp("dask_config")
    settings = {
        "jobqueue": {
            "slurm": {
                "cores": 1,
                "memory": "1GB",
                "processes": 1,
                "walltime": "00:20:00",
                "log-directory": str(slurm.root / "jobs"),
                "scheduler-options": {"host": "127.0.0.1", "dashboard_address": None},
            }
        }
    }
    (folder / "jobqueue.yaml").write_text(yaml.safe_dump(settings))
    saved = os.environ.get("SLURM_CONF")
    os.environ.update(slurm.env)
    try:
        with dask.config.set(
            {f"jobqueue.slurm.{key}": value for key, value in settings["jobqueue"]["slurm"].items()}
        ):
            yield folder
    finally:
        if saved is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = saved


def _hclbuild(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`hclbuild ARGV` in a process of its own (doit -n 2 forks; its errors go to the stderr it saw)."""
    return subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", *argv],
        check=False,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
    )


class SlurmBuild:
    """The examples' csim run locally, then again on two Slurm worker jobs, in one build folder."""

    def __init__(self, root: Path, slurm: LocalSlurm) -> None:
        self.build = root / "build"
        self.projects = [str(path) for path in EXAMPLES]
        local = _hclbuild("csim", *self.projects, "--build-dir", str(self.build), "-n", "2")
        assert local.returncode == 0, local.stdout + local.stderr
        self.local = csim_results(self.build)
        for path in self.build.glob("*/csim/*.json"):
            path.unlink()
        before = slurm.submitted()
        self.code = self.csim()
        self.submitted = slurm.submitted() - before
        self.remote = csim_results(self.build)

    def csim(self, *options: str, build: Path | None = None) -> int:
        return cli.main(
            [
                "csim",
                *self.projects,
                "--build-dir",
                str(build or self.build),
                "--cluster",
                "slurm",
                "--workers",
                "2",
                *options,
            ]
        )


@pytest.fixture(scope="module")
def slurm_build(tmp_path_factory: pytest.TempPathFactory, slurm: LocalSlurm, jobqueue: Path) -> SlurmBuild:
    return SlurmBuild(tmp_path_factory.mktemp("slurm_builds"), slurm)


def test_csim_on_slurm_workers_gives_the_local_results(slurm_build: SlurmBuild, slurm: LocalSlurm) -> None:
    assert slurm_build.code == 0
    assert sorted(slurm_build.remote) == ["def_import/top", "gemm/Stage_prod", "gemm/top"]
    assert all(doc["pass"] and doc["compared"] > 0 for doc in slurm_build.remote.values())
    assert {key: comparable(doc) for key, doc in slurm_build.remote.items()} == {
        key: comparable(doc) for key, doc in slurm_build.local.items()
    }
    assert slurm_build.submitted == 2  # one sbatch job per worker
    slurm.wait_for_empty_queue()  # the session ended: its worker jobs were cancelled


def test_every_result_names_a_slurm_worker(slurm_build: SlurmBuild) -> None:
    workers = {doc["worker"] for doc in slurm_build.remote.values()}
    assert workers and all(worker.startswith("tcp://127.0.0.1:") for worker in workers)
    assert all(doc["tools"]["g++"].startswith("g++") for doc in slurm_build.remote.values())


def test_a_rerun_with_nothing_changed_submits_no_batch_job(
    slurm_build: SlurmBuild, slurm: LocalSlurm
) -> None:
    assert slurm_build.csim() == 0  # whatever an earlier test left out of date
    slurm.wait_for_empty_queue()
    before = slurm.submitted()
    assert slurm_build.csim() == 0
    assert slurm.submitted() == before
    assert slurm.queue() == []


def _cancel_a_busy_worker(cancelled: list[str], slurm: LocalSlurm, stop: threading.Event) -> None:
    """scancel the Slurm job of the first worker seen running an hclbuild job."""
    while not stop.is_set():
        session = remote.current()
        busy = session and next(
            (
                address
                for address, keys in session.client.processing().items()
                if any(str(key).startswith("hclbuild") for key in keys)
            ),
            None,
        )
        if busy:
            job_id = session.client.run(os.getenv, "SLURM_JOB_ID", workers=[busy])[busy]
            time.sleep(0.3)  # well into the job: g++ is running
            slurm.cancel(job_id)
            cancelled.append(job_id)
            return
        time.sleep(0.05)


@pytest.mark.slow
def test_a_worker_job_cancelled_mid_build_still_gives_the_same_results(
    slurm_build: SlurmBuild, slurm: LocalSlurm, tmp_path: Path
) -> None:
    cancelled: list[str] = []
    stop = threading.Event()
    canceller = threading.Thread(target=_cancel_a_busy_worker, args=(cancelled, slurm, stop))
    canceller.start()
    try:
        code = slurm_build.csim(build=tmp_path / "build")
    finally:
        stop.set()
        canceller.join()
    assert cancelled, "no worker was seen running a job"
    assert code == 0
    results = csim_results(tmp_path / "build")
    assert {key: comparable(doc) for key, doc in results.items()} == {
        key: comparable(doc) for key, doc in slurm_build.local.items()
    }
    assert all(doc["worker"].startswith("tcp://127.0.0.1:") for doc in results.values())
    slurm.wait_for_empty_queue()


def _built_without_csim(slurm_build: SlurmBuild, to: Path) -> Path:
    """A copy of the build folder with its csim results removed: only csim jobs are left to run."""
    shutil.copytree(slurm_build.build, to)
    for path in to.glob("*/csim/*.json"):
        path.unlink()
    return to


def _refused(
    slurm_build: SlurmBuild, jobqueue: Path, build: Path, queue: str, *options: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = _hclbuild(
        "csim",
        *slurm_build.projects,
        "--build-dir",
        str(build),
        "--cluster",
        "slurm",
        "--workers",
        "1",
        *options,
        env={"DASK_CONFIG": str(jobqueue), "DASK_JOBQUEUE__SLURM__QUEUE": queue},
    )
    return done, time.monotonic() - started


def _no_result_claims_a_pass(build: Path) -> None:
    assert not any(json.loads(path.read_text()).get("pass") for path in build.glob("*/csim/*.json"))


def test_a_partition_that_does_not_exist_is_one_line(
    slurm_build: SlurmBuild, slurm: LocalSlurm, jobqueue: Path, tmp_path: Path
) -> None:
    build = _built_without_csim(slurm_build, tmp_path / "build")
    done, seconds = _refused(slurm_build, jobqueue, build, "no_such_partition")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = done.stderr.splitlines()
    assert errors == [
        "hclbuild: error: --cluster slurm: the queue refused the worker job: sbatch: error: invalid partition "
        "specified: no_such_partition; sbatch: error: Batch job submission failed: Invalid partition name "
        "specified (Dask's jobqueue.slurm.* settings make the job script)"
    ], done.stderr
    assert seconds < 120
    _no_result_claims_a_pass(build)
    assert slurm.queue() == []


def test_a_queue_that_never_starts_a_worker_is_one_line_within_the_timeout(
    slurm_build: SlurmBuild, slurm: LocalSlurm, jobqueue: Path, tmp_path: Path
) -> None:
    build = _built_without_csim(slurm_build, tmp_path / "build")
    done, seconds = _refused(slurm_build, jobqueue, build, CLOSED_PARTITION, "--worker-timeout", "5")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = done.stderr.splitlines()
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith("hclbuild: error: --cluster slurm: no worker started within 5 s (job ")
    assert errors[0].endswith(" PENDING (PartitionDown)); see --worker-timeout or $HCLBUILD_WORKER_TIMEOUT")
    assert seconds < 120
    _no_result_claims_a_pass(build)
    slurm.wait_for_empty_queue(timeout=30)  # the build cancelled its pending job
