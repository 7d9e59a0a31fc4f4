"""hclbuild.tool_processes: a tool and everything it starts is one process group, killed whole."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hclbuild import tool_processes

PACKAGE = Path(__file__).resolve().parents[2] / "hclbuild"


def group_alive(pgid: int) -> bool:
    """A process of the group that is not a zombie (Linux /proc; elsewhere killpg's answer)."""
    if not Path("/proc/self/stat").exists():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def wait_gone(pgid: int) -> bool:
    deadline = time.monotonic() + 2
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not group_alive(pgid)


def test_a_timeout_kills_what_the_tool_started_too(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    # the shell's background child is what subprocess.run's kill missed (cc1plus under the g++ driver)
    script = f"sleep 30 & echo $$ > {pid_file}; wait"
    with pytest.raises(subprocess.TimeoutExpired):
        tool_processes.run(["/bin/sh", "-c", script], timeout=0.5)
    pgid = int(pid_file.read_text())
    assert wait_gone(pgid)
    assert pgid not in tool_processes._LIVE


def test_the_tool_leads_a_group_of_its_own_in_this_session() -> None:
    done = tool_processes.run(["/bin/sh", "-c", "ps -o pgid=,sid= -p $$"], timeout=30)
    pgid, sid = (int(field) for field in done.stdout.split())
    assert pgid != os.getpgid(0) and sid == os.getsid(0)
    assert done.returncode == 0 and tool_processes._LIVE == {}


def test_an_interrupt_in_the_waiting_block_stops_the_group() -> None:
    process = tool_processes.start(["/bin/sh", "-c", "sleep 30 & wait"], stdin=subprocess.DEVNULL)
    with pytest.raises(KeyboardInterrupt), tool_processes.owned(process):
        raise KeyboardInterrupt
    assert process.returncode == -9 and wait_gone(process.pid)


def test_kill_all_stops_every_live_group() -> None:
    first = tool_processes.start(["sleep", "30"])
    second = tool_processes.start(["/bin/sh", "-c", "sleep 30 & wait"])
    try:
        assert sorted(tool_processes.kill_all()) == sorted([first.pid, second.pid])
        assert first.wait(timeout=10) == -9 and second.wait(timeout=10) == -9
        assert wait_gone(second.pid)
    finally:
        tool_processes.release(first.pid)
        tool_processes.release(second.pid)


def test_a_stopped_dask_job_starts_no_further_tool() -> None:
    with tool_processes.job_tools("job-1"):
        tool_processes._STOPPED_JOBS.add("job-1")
        with pytest.raises(OSError, match="not started: the build that submitted job job-1 stopped"):
            tool_processes.run(["true"])
    assert tool_processes._STOPPED_JOBS == set() and tool_processes._JOBS == {}


def test_kill_jobs_stops_only_the_jobs_named_and_waits_for_them() -> None:
    import threading

    started = threading.Event()
    outcome: dict[str, object] = {}

    def job(key: str) -> None:
        with tool_processes.job_tools(key):
            process = tool_processes.start(["sleep", "30"])
            started.set()
            with tool_processes.owned(process):
                outcome[key] = process.wait()

    other = tool_processes.start(["sleep", "30"])
    worker = threading.Thread(target=job, args=("mine",))
    worker.start()
    try:
        assert started.wait(10)
        assert tool_processes.kill_jobs(["mine", "not-here"]) == ["mine"]
        assert outcome == {"mine": -9}  # the job was over when kill_jobs returned
        assert other.poll() is None  # another build's tool runs on
    finally:
        worker.join(10)
        tool_processes.stop(other)
        tool_processes.release(other.pid)


def test_every_tool_subprocess_of_hclbuild_starts_here() -> None:
    """One place: a subprocess.run or Popen elsewhere would be a tool an interrupt leaves running."""
    starts = re.compile(
        r"\bsubprocess\.(run|Popen|call|check_call|check_output)\(|\bos\.(system|popen|spawn\w*)\("
    )
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "tool_processes.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if starts.search(line.split("#", 1)[0])
    ]
    assert found == []


ORPHAN_MAKER = """
import sys, time
from pathlib import Path
from hclbuild import tool_processes
tool_processes.record_groups_in(Path(sys.argv[1]))
tool = tool_processes.start(["/bin/sh", "-c", "sleep 30 & wait"])
print(tool.pid, flush=True)
time.sleep(60)
"""


def test_the_next_build_kills_the_tools_of_a_sigkilled_one(tmp_path: Path) -> None:
    # SIGKILL runs no handler: the g++ of a killed build ran on and wrote its object's temporary after
    # the rerun had swept the temporaries (the sigkill test of test_interrupts.py caught one)
    maker = subprocess.Popen(
        [sys.executable, "-c", ORPHAN_MAKER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    tool = int(maker.stdout.readline())
    (record,) = tmp_path.glob(".tool-group.*")
    assert record.name.startswith(f".tool-group.{tool}.{maker.pid}.")
    assert tool_processes.kill_orphans(tmp_path) == []  # its build still runs: not an orphan
    maker.kill()
    maker.wait()
    assert group_alive(tool)  # the tool outlived its build
    assert tool_processes.kill_orphans(tmp_path) == [tool]
    assert not group_alive(tool) and list(tmp_path.iterdir()) == []


def test_a_record_whose_pid_another_process_took_kills_nothing(tmp_path: Path) -> None:
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        # a dead recorder (pid 2**22 + 1 is above Linux's pid_max) and a leader started at another time
        (tmp_path / f".tool-group.{other.pid}.{2**22 + 1}.1").touch()
        assert tool_processes.kill_orphans(tmp_path) == []
        assert other.poll() is None and list(tmp_path.iterdir()) == []
    finally:
        other.kill()
        other.wait()


def test_a_finished_tool_leaves_no_record(tmp_path: Path) -> None:
    saved = list(tool_processes._RECORDS)
    try:
        tool_processes.record_groups_in(tmp_path)
        assert tool_processes.run(["true"], timeout=30).returncode == 0
        assert list(tmp_path.iterdir()) == []
    finally:
        tool_processes._RECORDS[:] = saved
