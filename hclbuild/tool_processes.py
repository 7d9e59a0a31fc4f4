"""Every tool subprocess hclbuild starts (g++, a testbench, a Vitis tool, Graphviz, and the same on a Dask
worker) runs through here: in a process group of its own, killed whole when the build stops.

g++ is a driver: the compiler proper (cc1plus), the assembler and the linker are its children, and a
Vitis tool starts compilers and simulators. subprocess.run kills only the process it started, so an
interrupted build had left cc1plus compiling for seconds more, re-parented to PID 1, and a doit
worker that SIGTERM ended had left its testbench running to the end. A group of its own (in the
same session) lets one killpg reach everything the tool started; the group is killed

- when the call that runs the tool is interrupted (Ctrl-C's KeyboardInterrupt, or the one
  termination.py raises for SIGTERM) or times out;
- from a signal handler (kill_all): a doit worker that SIGTERM ends, and the build's own exit
  after an interrupt, which also covers tools of `-P thread` task threads;
- on a Dask worker, for the jobs a stopped build abandons (kill_jobs, through Client.run): each
  job's tools carry its key (job_tools), and kill_jobs waits until those jobs are over, so each has
  removed its temporary folder;
- by the next build, when the one that started them was SIGKILLed (no handler runs): each group is
  recorded as an empty file in the build folder while it runs (record_groups_in), and the next
  build kills the groups whose recording process is dead (kill_orphans) before any task runs. An
  orphaned g++ had finished its object after the rerun's sweep of temporaries and left it there.

A leaf module like atomic.py: every layer may use it, and the signal handlers of termination.py too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

# process group id -> key of the Dask job that started it (None outside a job). Plain dict operations,
# atomic under the GIL, never a lock: kill_all runs in signal handlers, which must not wait for one
# the interrupted code holds.
_LIVE: dict[int, str | None] = {}
_JOBS: dict[str, int] = {}  # key of a Dask job running in this process -> how many of its calls
_STOPPED_JOBS: set[str] = set()  # jobs kill_jobs stopped: they may start no further tool
_JOB_KEY = threading.local()  # .key: the job that tools started in this thread belong to
POSIX = os.name == "posix"
_RECORDS: list[Path] = []  # [the folder where running groups are recorded], once record_groups_in ran
_RECORDED: dict[int, Path] = {}  # process group id -> its record
RECORD_PREFIX = ".tool-group."  # .tool-group.<pgid>.<recording pid>.<leader's start time>


def _forget_inherited() -> None:
    """In a forked child: the parent's tools are not this process's to stop (a doit worker's SIGTERM
    handler, kill_all, had killed what its parent ran in other threads)."""
    _LIVE.clear()
    _RECORDED.clear()
    _JOBS.clear()
    _STOPPED_JOBS.clear()


os.register_at_fork(after_in_child=_forget_inherited)


def kill_groups_below(pid: int) -> list[int]:
    """SIGKILL the process group of every child of `pid` that leads one (the tools of another process
    of ours, a doit worker that does not answer; Linux /proc, elsewhere nothing); the groups."""
    groups: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return groups
    for entry in entries:
        fields = _stat(int(entry)) if entry.isdigit() else None
        if fields is None:
            continue
        if int(fields[1]) == pid and int(fields[2]) == int(entry):
            _signal_group(int(entry), signal.SIGKILL)
            groups.append(int(entry))
    return groups


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first); None when there is no
    such process or no procfs."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux /proc), which tells a process from a
    later one that reuses its pid; None when there is no such process or no procfs."""
    fields = _stat(pid)
    return fields[19] if fields and len(fields) > 19 else None


def _runs(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie (a SIGKILLed build's doit worker stays one
    until init reaps it, and some container inits never do)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat(pid)
    return fields is None or fields[0] != "Z"


def _record_name(pgid: int) -> str:
    return f"{RECORD_PREFIX}{pgid}.{os.getpid()}.{_start_time(pgid) or 0}"


def _register(pgid: int) -> None:
    _LIVE[pgid] = getattr(_JOB_KEY, "key", None)
    if _RECORDS:
        record = _RECORDS[0] / _record_name(pgid)
        with contextlib.suppress(OSError):  # a full disk: the record is a help, not the tool's work
            record.touch()
            _RECORDED[pgid] = record


def record_groups_in(folder: Path) -> list[int]:
    """Record every tool group this process and its forked workers start from now on in `folder` (the
    build folder), after killing the groups recorded there by processes that died (kill_orphans);
    the groups killed."""
    killed = kill_orphans(folder)
    _RECORDS[:] = [Path(folder)]
    return killed


def kill_orphans(folder: Path, wait: float = 5.0) -> list[int]:
    """SIGKILL the tool groups recorded in `folder` whose recording process is dead (a build that was
    SIGKILLed), wait up to `wait` seconds until they are gone, and remove their records; the groups.

    A group whose leader is alive but started at another time than recorded is another process that
    reuses the pid: only its record goes. A group whose leader is gone may still have members (the
    assembler of a g++ whose driver died); no new process can take the group's id while one does."""
    killed = []
    for record in Path(folder).glob(f"{RECORD_PREFIX}*") if Path(folder).is_dir() else ():
        fields = record.name[len(RECORD_PREFIX) :].split(".")
        if len(fields) != 3 or not all(field.isdigit() for field in fields):
            continue
        pgid, owner, started = int(fields[0]), int(fields[1]), fields[2]
        if owner != os.getpid() and _runs(owner):
            continue  # a build running beside this one (another doit in the same folder)
        leader = _start_time(pgid)
        if leader is None or leader == started or started == "0":
            _signal_group(pgid, signal.SIGKILL)
            killed.append(pgid)
        record.unlink(missing_ok=True)
    deadline = time.monotonic() + wait
    while killed and time.monotonic() < deadline and _running_in(set(killed)):
        time.sleep(0.01)
    return killed


def _running_in(groups: set[int]) -> bool:
    """Whether a process of one of the groups still runs (a zombie does not: it writes nothing more, and
    some container inits never reap one); without /proc, whether killpg still finds one."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return any(_alive_group(pgid) for pgid in groups)
    for entry in entries:
        fields = _stat(int(entry)) if entry.isdigit() else None
        if fields and int(fields[2]) in groups and fields[0] != "Z":
            return True
    return False


def _alive_group(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def adopt(pid: int) -> None:
    """Make a process this one forked (hclbuild.runtime.isolate) the leader of its own group and count
    it among the tools kill_all stops; release(pid) once it has been reaped."""
    with contextlib.suppress(OSError):  # the child may have done it, or already exited
        os.setpgid(pid, pid)
    _register(pid)


def release(pgid: int) -> None:
    """Forget a group whose leader was reaped (adopt's counterpart)."""
    _LIVE.pop(pgid, None)
    record = _RECORDED.pop(pgid, None)
    if record is not None:
        with contextlib.suppress(OSError):
            record.unlink(missing_ok=True)


def stop(process: subprocess.Popen[Any], grace: float = 0.0) -> int:
    """Kill the tool's whole group and reap it; its exit status. With `grace`, SIGTERM first and SIGKILL
    what is left after that many seconds (a Vitis tool may want to end its own children)."""
    if not POSIX:
        process.kill()
        return process.wait()
    if grace > 0:
        _signal_group(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    # grandchildren may outlive the leader or ignore TERM: KILL whatever is left of the group (before
    # the leader is reaped, so its pid, which is the group's id, cannot be another process's yet)
    _signal_group(process.pid, signal.SIGKILL)
    return process.wait()


def start(argv: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
    """subprocess.Popen(argv, **popen) as the leader of a new process group, counted among the tools
    kill_all stops; follow it with `owned`. Raises OSError when the tool cannot start, also in a
    Dask job that kill_jobs stopped (which may start no further tool)."""
    key = getattr(_JOB_KEY, "key", None)
    if key is not None and key in _STOPPED_JOBS:
        raise OSError(errno.ECANCELED, f"not started: the build that submitted job {key} stopped", argv[0])
    process = subprocess.Popen(argv, process_group=0 if POSIX else None, **popen)
    _register(process.pid)
    return process


@contextlib.contextmanager
def owned(process: subprocess.Popen[Any], grace: float = 0.0) -> Iterator[subprocess.Popen[Any]]:
    """The block that waits for a started tool: when it raises (KeyboardInterrupt included) the tool's
    group is stopped (with `grace`); after it, the group is forgotten."""
    try:
        yield process
    except BaseException:
        stop(process, grace)
        raise
    finally:
        release(process.pid)


def run(
    argv: Sequence[str],
    *,
    timeout: float | None = None,
    input: str | bytes | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    text: bool = True,
    errors: str | None = None,
) -> subprocess.CompletedProcess[Any]:
    """subprocess.run(argv, capture_output=True, check=False, ...) in a group of its own (stdin: `input`,
    else nothing):
    past `timeout` the whole group is killed and subprocess.TimeoutExpired raised, as subprocess.run
    does for the one process it started. Raises OSError when the tool cannot start."""
    process = start(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=text,
        errors=errors,
    )
    with owned(process):
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(process)
            stdout, stderr = process.communicate()
            raise subprocess.TimeoutExpired(argv, timeout or 0.0, stdout, stderr) from None
        return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)


def kill_all() -> list[int]:
    """SIGKILL every tool group of this process (safe in a signal handler); the groups signalled."""
    groups = list(_LIVE)
    for pgid in groups:
        _signal_group(pgid, signal.SIGKILL)
    return groups


@contextlib.contextmanager
def job_tools(key: str | None) -> Iterator[None]:
    """Tools started in this thread within the block belong to the Dask job `key` (kill_jobs)."""
    if key is None:
        yield
        return
    _JOB_KEY.key = key
    _JOBS[key] = _JOBS.get(key, 0) + 1
    try:
        yield
    finally:
        _JOB_KEY.key = None
        left = _JOBS.get(key, 1) - 1
        if left > 0:
            _JOBS[key] = left
        else:
            _JOBS.pop(key, None)
            _STOPPED_JOBS.discard(key)


def kill_jobs(keys: Iterable[str], wait: float = 10.0) -> list[str]:
    """Kill the tool groups of these Dask jobs, then wait up to `wait` seconds for the jobs to leave
    job_tools (each removes its temporary folder on the way); the keys that were running here."""
    wanted = set(keys)
    running = [key for key in list(_JOBS) if key in wanted]
    _STOPPED_JOBS.update(running)
    deadline = time.monotonic() + wait
    while True:
        for pgid, key in list(_LIVE.items()):
            if key in wanted:
                _signal_group(pgid, signal.SIGKILL)
        if not any(key in wanted for key in list(_JOBS)) or time.monotonic() > deadline:
            return running
        time.sleep(0.02)  # a job may start its next tool before it sees the last one die


__all__ = [
    "adopt",
    "job_tools",
    "kill_all",
    "kill_groups_below",
    "kill_jobs",
    "owned",
    "release",
    "run",
    "start",
    "stop",
]
