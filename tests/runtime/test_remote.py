"""csim, csynth and cosim jobs on a real Dask cluster (a scheduler and worker processes on localhost).

The cluster: worker `plain` (g++ only) and worker `vitis` (started with `--resources vitis_hls=1`
and tests/fake_vitis's vitis_hls and vitis-run stand-ins on its PATH, no v++). The submitting
process (this one) has no Vitis tool at all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed", reason="the optional extra hclbuild[distributed] is not installed")

from dask_helpers import EXAMPLES, LocalDask, WorkerSpec, comparable, csim_results, start_local_dask
from fake_vitis.fake_tool import NOTICE

from hclbuild import cli
from hclbuild.errors import ToolError
from hclbuild.runtime import dask_clusters, remote
from hclbuild.runtime.vitis import find_vitis
from hclbuild.tasks import doit_config

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Any:
    started = start_local_dask(
        tmp_path_factory.mktemp("dask"),
        [
            WorkerSpec("plain"),
            WorkerSpec(
                "vitis", resources=f"{remote.VITIS_RESOURCE}=1", fake_tools=("vitis_hls", "vitis-run")
            ),
        ],
    )
    yield started
    started.stop()


class Builds:
    """The example projects csim'd locally, then their csim again through the cluster, in one build folder."""

    def __init__(self, root: Path, cluster: LocalDask) -> None:
        self.build = root / "build"
        self.cluster = cluster
        self.projects = [str(path) for path in EXAMPLES]
        # a process of its own: doit -n 2 forks, and this process has Dask's and MLIR's threads by now
        local = subprocess.run(
            [
                sys.executable,
                "-m",
                "hclbuild.cli",
                "csim",
                *self.projects,
                "--build-dir",
                str(self.build),
                "-n",
                "2",
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        assert local.returncode == 0, local.stdout + local.stderr
        self.local = csim_results(self.build)
        for path in self.build.glob("*/csim/*.json"):
            path.unlink()
        before = cluster.submitted()
        self.remote_code = self.csim()
        self.submitted = cluster.submitted() - before
        self.remote = csim_results(self.build)

    def csim(self, *options: str) -> int:
        return cli.main(
            [
                "csim",
                *self.projects,
                "--build-dir",
                str(self.build),
                "--scheduler",
                self.cluster.address,
                *options,
            ]
        )


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, cluster: LocalDask) -> Builds:
    return Builds(tmp_path_factory.mktemp("builds"), cluster)


def test_csim_through_dask_gives_the_local_results(builds: Builds) -> None:
    assert builds.remote_code == 0
    assert sorted(builds.remote) == sorted(builds.local) == ["def_import/top", "gemm/Stage_prod", "gemm/top"]
    assert all(result["pass"] and result["compared"] > 0 for result in builds.remote.values())
    assert {key: comparable(doc) for key, doc in builds.remote.items()} == {
        key: comparable(doc) for key, doc in builds.local.items()
    }
    assert builds.submitted == 3  # one job per function


def test_every_remote_result_names_its_worker_and_tools(builds: Builds) -> None:
    for result in builds.remote.values():
        assert result["worker"] in builds.cluster.addresses.values()
        assert result["tools"]["g++"].startswith("g++")
    # the testbench's outputs came back too
    assert (builds.build / "gemm" / "hls" / "Stage_prod" / "out" / "actual_prod.bin").is_file()


def test_a_noop_rerun_submits_no_job(builds: Builds) -> None:
    assert builds.csim() == 0  # whatever an earlier test left out of date
    before = builds.cluster.submitted()
    assert builds.csim() == 0
    assert builds.cluster.submitted() == before


def test_doit_through_the_environment_variable_runs_threads_and_submits_nothing_new(
    builds: Builds, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert builds.csim() == 0  # whatever an earlier test left out of date
    monkeypatch.setenv(remote.SCHEDULER_ENV, builds.cluster.address)
    before = builds.cluster.submitted()
    try:
        config = doit_config(builds.build)
        assert (config["par_type"], config["num_process"]) == ("thread", 2)  # two workers, one thread each
        assert cli.run_doit(["csim"], [Path(p) for p in builds.projects], builds.build) == 0
    finally:
        remote.stop()
    assert builds.cluster.submitted() == before


def test_a_tool_error_fails_its_task_with_the_workers_reason_and_the_others_go_on(builds: Builds) -> None:
    source = builds.build / "def_import" / "hls" / "top" / "top.cpp"
    good = source.read_text()
    other = builds.build / "gemm" / "csim" / "top.json"
    other.unlink()  # so that another task has to run beside the failing one
    source.write_text(good + "\nint broken( {\n")
    try:
        # a process of its own: doit prints task failures to the stdout it saw when first imported
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "hclbuild.cli",
                "csim",
                *builds.projects,
                "--build-dir",
                str(builds.build),
                "--scheduler",
                builds.cluster.address,
                "--continue",
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    finally:
        source.write_text(good)
    failed = json.loads((builds.build / "def_import" / "csim" / "top.json").read_text())
    (builds.build / "def_import" / "csim" / "top.json").unlink()  # so that a later run checks the good source
    assert proc.returncode != 0
    reason = next(
        line for line in proc.stderr.splitlines() if line.startswith("hclbuild: error: def_import/top: ")
    )
    assert "g++ failed (exit 1): top.cpp:" in reason and "error:" in reason
    assert reason.endswith(tuple(f"(on worker {address})" for address in builds.cluster.addresses.values()))
    # the local copy of the worker's compile log is what the reason names
    assert str(source.parent / "out" / "compile.log") in reason
    assert failed["pass"] is False and "error:" in failed["error"]
    assert json.loads(other.read_text())["pass"] is True


def test_an_unreachable_scheduler_is_one_line_before_any_task(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code = cli.main(
            [
                "csim",
                str(EXAMPLES[0]),
                "--build-dir",
                str(tmp_path / "build"),
                "--scheduler",
                "tcp://127.0.0.1:9",
            ]
        )
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("hclbuild: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ")
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "build" / "gemm").exists()  # no task ran


@pytest.fixture
def no_local_vitis() -> None:
    if find_vitis() is not None:
        pytest.skip("a Vitis tool is installed here: these tests show the workers' stand-ins run")


def test_csynth_runs_only_on_the_worker_with_the_vitis_resource(builds: Builds, no_local_vitis: None) -> None:
    calls_before = len(builds.cluster.fake_vitis_calls())
    assert (
        cli.main(
            [
                "csynth",
                str(EXAMPLES[0]),
                "--build-dir",
                str(builds.build),
                "--scheduler",
                builds.cluster.address,
            ]
        )
        == 0
    )
    gemm = builds.build / "gemm"
    for func in ("top", "Stage_prod"):
        report = (gemm / "csynth" / f"{func}.xml").read_text()
        assert report.startswith(NOTICE) and f"<TopModelName>{func}</TopModelName>" in report
        record = json.loads((gemm / "hls" / func / "remote_csynth.json").read_text())
        assert record["worker"] == builds.cluster.addresses["vitis"]
        assert record["tools"]["vitis_hls"] == "2025.1" and "v++" not in record["tools"]
        assert record["argv"][0][1:] == ["-f", "run_hls.tcl", "-tclargs", "csynth"]
        # the RTL the blackbox assembly reads came back with the report
        assert (gemm / "hls" / func / f"{func}_prj" / "solution1" / "syn" / "verilog" / f"{func}.v").is_file()
    calls = builds.cluster.fake_vitis_calls()[calls_before:]
    assert sorted(Path(call["cwd"]).name for call in calls) == ["Stage_prod", "top"]
    assert all("hclbuild-job-" in call["cwd"] for call in calls)  # in the worker's temporary folder


def test_cosim_through_dask(builds: Builds, no_local_vitis: None) -> None:
    assert (
        cli.main(
            [
                "cosim",
                str(EXAMPLES[0]),
                "--function",
                "Stage_prod",
                "--build-dir",
                str(builds.build),
                "--scheduler",
                builds.cluster.address,
            ]
        )
        == 0
    )
    report = builds.build / "gemm" / "cosim" / "Stage_prod.rpt"
    assert "no co-simulation ran" in report.read_text()
    record = json.loads(
        (builds.build / "gemm" / "hls" / "Stage_prod" / "remote_csynth_cosim.json").read_text()
    )
    # a job carries no synthesized project, so the worker synthesizes again for the cosim; that
    # synthesis stays there: the RTL here is the csynth job's (a blackbox top's synthesis reads it)
    assert record["worker"] == builds.cluster.addresses["vitis"] and record["steps"] == ["csynth", "cosim"]
    verilog = sorted((builds.build / "gemm" / "hls" / "Stage_prod").rglob("syn/verilog/*.v"))
    made = [path.stat().st_mtime_ns for path in verilog]
    report.unlink()
    assert (
        cli.main(
            [
                "cosim",
                str(EXAMPLES[0]),
                "--function",
                "Stage_prod",
                "--build-dir",
                str(builds.build),
                "--scheduler",
                builds.cluster.address,
            ]
        )
        == 0
    )
    assert report.is_file() and verilog and [path.stat().st_mtime_ns for path in verilog] == made


def test_a_worker_without_the_projects_vitis_tool_refuses_the_job(builds: Builds, tmp_path: Path) -> None:
    folder = tmp_path / "Stage_prod"
    shutil.copytree(
        builds.build / "gemm" / "hls" / "Stage_prod",
        folder,
        ignore=shutil.ignore_patterns("Stage_prod_prj", "*.log", "remote_*.json"),
    )
    session = remote.RemoteSession(builds.cluster.client(), builds.cluster.address)
    try:
        with pytest.raises(ToolError) as refused:
            remote.run_hls_steps_remote(
                folder, "Stage_prod", ["csynth"], project="gemm", flow="v++", session=session
            )
    finally:
        session.close()
    assert str(refused.value) == (
        "gemm/Stage_prod: project.toml asks for [hls] tool = 'v++', which is not on PATH or under $XILINX_HLS/$XILINX_VITIS "
        f"(on worker {builds.cluster.addresses['vitis']})"
    )
    assert not (folder / "Stage_prod_prj").exists()  # no report, so nothing can claim a pass


def test_a_batch_cluster_without_its_submit_command_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch, whether or not Slurm is installed here
    assert cli.main(["csim", str(EXAMPLES[0]), "--build-dir", str(tmp_path), "--cluster", "slurm"]) == 1
    assert capsys.readouterr().err.strip() == (
        "hclbuild: error: --cluster slurm: sbatch is not on PATH (this machine cannot submit slurm jobs)"
    )


def test_a_local_cluster_starts_one_worker_per_core_this_process_may_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import distributed

    started: list[int] = []
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)  # as under `taskset -c 3`
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(distributed, "LocalCluster", lambda n_workers, **options: started.append(n_workers))
    dask_clusters.make_cluster("local")
    dask_clusters.make_cluster("local", workers=5)
    assert started == [1, 5]


def test_a_batch_cluster_takes_its_settings_from_dask_config() -> None:
    import dask
    import dask_jobqueue  # noqa: F401 - its defaults join Dask's config on import

    settings = {
        "jobqueue.slurm.cores": 1,
        "jobqueue.slurm.memory": "2GB",
        "jobqueue.slurm.queue": "hls",
        "jobqueue.slurm.worker-extra-args": ["--resources", f"{remote.VITIS_RESOURCE}=1"],
        "jobqueue.slurm.scheduler-options": {"dashboard_address": None, "host": "127.0.0.1"},
    }
    with dask.config.set(settings):
        cluster = dask_clusters.make_cluster("slurm", scale=False)
        try:
            script = cluster.job_script()
        finally:
            cluster.close()
    assert "#SBATCH -p hls" in script and f"--resources {remote.VITIS_RESOURCE}=1" in script


# ---- faults (slow: a cluster of their own and a build from scratch) ----------------------------------


@pytest.fixture(scope="module")
def plain_cluster(tmp_path_factory: pytest.TempPathFactory) -> Any:
    started = start_local_dask(tmp_path_factory.mktemp("dask_plain"), [WorkerSpec("a"), WorkerSpec("b")])
    yield started
    started.stop()


def _kill_when_busy(cluster: LocalDask, name: str, killed: threading.Event, stop: threading.Event) -> None:
    address = cluster.addresses[name]
    with cluster.client() as client:
        while not stop.is_set():
            if any(str(key).startswith("hclbuild") for key in client.processing().get(address, ())):
                time.sleep(0.3)  # well into the job: g++ is running
                cluster.kill(name)
                killed.set()
                return
            time.sleep(0.05)


@pytest.mark.slow
def test_killing_a_worker_mid_build_still_completes_with_the_same_results(
    builds: Builds, plain_cluster: LocalDask, tmp_path: Path
) -> None:
    assert all(process.poll() is None for process in plain_cluster.workers.values())
    killed, stop = threading.Event(), threading.Event()
    killer = threading.Thread(target=_kill_when_busy, args=(plain_cluster, "a", killed, stop))
    killer.start()
    try:
        code = cli.main(
            [
                "csim",
                *map(str, EXAMPLES),
                "--build-dir",
                str(tmp_path / "build"),
                "--scheduler",
                plain_cluster.address,
            ]
        )
    finally:
        stop.set()
        killer.join()
    assert killed.is_set()
    assert code == 0
    results = csim_results(tmp_path / "build")
    expected = {key: comparable(doc) for key, doc in builds.local.items()}
    assert {key: comparable(doc) for key, doc in results.items()} == expected
    assert {doc["worker"] for doc in results.values()} <= set(plain_cluster.addresses.values())


@pytest.mark.slow
def test_vitis_jobs_are_refused_when_no_worker_advertises_the_resource(
    builds: Builds, plain_cluster: LocalDask, tmp_path: Path
) -> None:
    folder = tmp_path / "Stage_prod"
    shutil.copytree(
        builds.build / "gemm" / "hls" / "Stage_prod",
        folder,
        ignore=shutil.ignore_patterns("Stage_prod_prj", "*.log", "remote_*.json"),
    )
    session = remote.RemoteSession(plain_cluster.client(), plain_cluster.address)
    before = plain_cluster.submitted()
    try:
        with pytest.raises(
            ToolError,
            match=f"no worker of the Dask scheduler at {plain_cluster.address} "
            f"advertises the {remote.VITIS_RESOURCE} resource",
        ):
            remote.run_hls_steps_remote(folder, "Stage_prod", ["csynth"], project="gemm", session=session)
    finally:
        session.close()
    assert plain_cluster.submitted() == before  # refused before submitting, so it cannot wait forever
    assert not (folder / "Stage_prod_prj").exists()


@pytest.mark.slow
def test_a_local_cluster_runs_the_csim_jobs(tmp_path: Path) -> None:
    build = tmp_path / "build"
    assert cli.main(["new", str(tmp_path / "tiny")]) == 0
    assert (
        cli.main(
            [
                "csim",
                str(tmp_path / "tiny"),
                "--build-dir",
                str(build),
                "--cluster",
                "local",
                "--workers",
                "2",
            ]
        )
        == 0
    )
    results = csim_results(build)
    assert sorted(results) == ["tiny/Stage_scaled", "tiny/top"]
    assert all(doc["pass"] and doc["worker"].startswith("tcp://") for doc in results.values())
