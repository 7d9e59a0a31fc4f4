"""An interrupted build leaves no tool running and no temporary behind: SIGINT or SIGTERM sent to the
build process alone, in the middle of the precompiled-header compile, of a testbench run, and of a
Dask job. Each tool runs in a process group of its own (hclbuild.tool_processes), killed with
everything it started; the checks read /proc (Linux), so they skip elsewhere.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)"),
]

# two functions that include the ap_types headers: the second one's csim precompiles them (5 s of cc1plus)
PCH_KERNEL = """
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Fixed(24, 12))
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        X = hcl.compute((8,), lambda i: A[i] * 3, name="X")
        return hcl.compute((8,), lambda i: X[i] - 1, name="Y")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.X)
    return s
"""

# a fixed-point product whose testbench runs for seconds under ap_fixed (its reference, native integer
# code, takes a fraction of that)
SLOW_RUN_KERNEL = """
import hclbuild as hcl

N = 512

def schedule():
    hcl.init(hcl.Fixed(24, 12))
    A = hcl.placeholder((N, N), "A")
    B = hcl.placeholder((N, N), "B")

    def kernel(A, B):
        k = hcl.reduce_axis(0, N, "k")
        return hcl.compute(
            (N, N), lambda i, j: hcl.sum(A[i, k] * B[k, j], axis=k, dtype=hcl.Fixed(32, 12)), name="C"
        )

    return hcl.create_schedule([A, B], kernel, name="top")
"""


def proc_stat(pid: int) -> tuple[str, str, int, int] | None:
    """(command name, state, parent pid, session id) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    return name, fields[0], int(fields[1]), int(fields[3])


def live_processes() -> dict[int, tuple[str, int, int]]:
    """pid -> (name, parent pid, session) of every process that is not a zombie."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = proc_stat(int(entry))
            if stat is not None and stat[1] != "Z":
                found[int(entry)] = (stat[0], stat[2], stat[3])
    return found


def in_session(session: int) -> list[str]:
    """`pid name` of every live process of a session (the build's, started with start_new_session)."""
    return [f"{pid} {name}" for pid, (name, _, sid) in live_processes().items() if sid == session]


def descendants(root: int) -> list[str]:
    """`pid name` of every live process below `root`."""
    processes = live_processes()
    children: dict[int, list[int]] = {}
    for pid, (_, parent, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(f"{pid} {processes[pid][0]}")
        todo += children.get(pid, [])
    return found


def eventually_empty(listing: Callable[[], list[str]], seconds: float = 1.0) -> list[str]:
    """What `listing` still shows after waiting up to `seconds` for it to empty (a killed process
    takes a moment to exit); a tool left running goes on for much longer than that."""
    deadline = time.monotonic() + seconds
    while (left := listing()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def wait_for(condition: Callable[[], bool], build: subprocess.Popen, what: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if build.poll() is not None:
            out, err = build.communicate()
            raise AssertionError(f"the build ended (status {build.returncode}) before {what}:\n{out}\n{err}")
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.01)


def running_in_session(session: int, *names: str) -> bool:
    return any(name in names and sid == session for name, _, sid in live_processes().values())


def start_build(cwd: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "hclbuild.cli", *argv],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its pid is its session id: every process it starts stays in it
    )


def temporaries(folder: Path) -> list[Path]:
    return [*folder.rglob("*.tmp"), *folder.rglob("hclbuild-job-*")]


def project(root: Path, kernel: str) -> Path:
    folder = root / "p"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(kernel)
    return folder


def test_sigint_during_the_precompiled_header_compile(tmp_path: Path) -> None:
    project(tmp_path, PCH_KERNEL)
    build = start_build(tmp_path, "csim", "p", "-n", "1")
    pch = tmp_path / "build" / ".csim" / "pch"
    wait_for(
        lambda: any(pch.glob(".*.tmp")) and running_in_session(build.pid, "cc1plus"),
        build,
        "the ap_types headers were being precompiled",
    )
    os.kill(build.pid, signal.SIGINT)  # the build process alone, as `kill -INT <pid>` does
    out, err = build.communicate(timeout=60)
    assert (build.returncode, err) == (130, "hclbuild: interrupted\n"), out + err
    assert eventually_empty(lambda: in_session(build.pid)) == []  # cc1plus ran on for seconds, orphaned
    assert temporaries(tmp_path / "build") == []  # the 78 MB .csim/pch/.<hash>.tmp/ stayed until the next run


def test_sigterm_to_a_parallel_build_during_the_testbench_run(tmp_path: Path) -> None:
    project(tmp_path, SLOW_RUN_KERNEL)
    build = start_build(tmp_path, "csim", "p", "-n", "2")
    wait_for(lambda: running_in_session(build.pid, "tb_top"), build, "the testbench was running")
    time.sleep(0.3)
    os.kill(build.pid, signal.SIGTERM)
    out, err = build.communicate(timeout=60)
    assert (build.returncode, err) == (143, "hclbuild: terminated (SIGTERM)\n"), out + err
    # doit's worker died of the SIGTERM it passed on, and its testbench ran on as an orphan
    assert eventually_empty(lambda: in_session(build.pid)) == []
    assert temporaries(tmp_path / "build") == []


def test_sigint_during_a_dask_job_stops_the_job_on_its_worker(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the optional extra hclbuild[distributed] is not installed")
    from dask_helpers import WorkerSpec, start_local_dask

    worker_tmp = tmp_path / "worker_tmp"
    worker_tmp.mkdir()
    cluster = start_local_dask(tmp_path / "dask", [WorkerSpec("plain", env={"TMPDIR": str(worker_tmp)})])
    try:
        worker = cluster.workers["plain"].pid
        idle = set(descendants(worker))  # what a Dask worker runs of its own, if anything
        project(tmp_path / "projects", SLOW_RUN_KERNEL)
        build = start_build(tmp_path, "csim", "projects/p", "--scheduler", cluster.address)
        wait_for(
            lambda: any(line.endswith(" tb_top") for line in descendants(worker)),
            build,
            "the job's testbench ran on the worker",
        )
        os.kill(build.pid, signal.SIGINT)
        out, err = build.communicate(timeout=120)
        assert (build.returncode, err) == (130, "hclbuild: interrupted\n"), out + err
        # the job went on to the end on its worker: the testbench and its temporary folder
        assert eventually_empty(lambda: sorted(set(descendants(worker)) - idle)) == []
        assert eventually_empty(lambda: [str(path) for path in temporaries(worker_tmp)]) == []
        assert eventually_empty(lambda: in_session(build.pid)) == []
        assert temporaries(tmp_path / "build") == []
        assert cluster.workers["plain"].poll() is None  # the worker itself serves on
    finally:
        cluster.stop()
