"""Dask jobs of hclbuild: what goes to a worker (a function's folder as bytes) and what comes back.

A Job is one csim or Vitis run of one function, self-contained so that workers need no shared file
system; run_job is what a worker executes (in a temporary folder; a tool error is data, not an
exception, so Dask never retries it); the JobResult carries back the files the tool wrote, the
worker's address and the tool versions seen there. RemoteSession (runtime.remote) submits them.
This module imports no Dask: a worker's own imports of `distributed` happen inside the calls.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from hclbuild import tool_processes
from hclbuild.atomic import write_bytes_atomic
from hclbuild.errors import HCLError, ToolError
from hclbuild.runtime.csim import DEFAULT_TIMEOUT, GXX, run_csim
from hclbuild.runtime.dask_connection import one_line
from hclbuild.runtime.vitis import choose_front_end, find_vitis, report_dirs, run_hls_steps, version_of

VITIS_RESOURCE = "vitis_hls"  # the Dask worker resource a Vitis job needs one unit of
# left behind by earlier local or remote runs: never part of a job's inputs
_OUTPUT_DIRS = ("out",)
_OUTPUT_SUFFIXES = (".log", ".part", ".tmp")
RECORD_PREFIX = "remote_"  # remote_<steps>.json: where a Vitis job ran
# what a Vitis run leaves that the submitting side reads: reports, RTL (for blackboxes), exports
_VITIS_RESULT_DIRS = ("syn/report", "syn/verilog", "syn/vhdl", "sim/report", "csim/report", "impl")


# ---- jobs and their results (pickled to and from the workers) ----------------------------------


@dataclass(frozen=True)
class Job:
    """One csim or Vitis run of one function: its folder's files, relative to the folder's parent."""

    kind: str  # "csim" or "vitis"
    project: str
    func: str
    files: dict[str, bytes]
    steps: tuple[str, ...] = ()
    flow: str = "auto"
    timeout: float | None = None
    outputs: tuple[str, ...] | None = None  # csim: the arguments the function may write

    @property
    def where(self) -> str:
        """`project/func`, as every one-line error names it."""
        return f"{self.project}/{self.func}"


@dataclass
class JobResult:
    """What a worker sends back: files relative to the function folder, and where they were made."""

    worker: str
    worker_folder: str  # the temporary folder there, so messages can name the local copy instead
    tools: dict[str, str]
    files: dict[str, bytes] = field(default_factory=dict)
    error: str | None = None
    csim: Any = None  # the CsimResult of a finished csim job
    document: bytes | None = None  # csim's JSON, also when the compile failed
    argv: list[tuple[str, ...]] = field(default_factory=list)  # the Vitis commands that ran
    seconds: float = 0.0


def pack_folder(folder: str | Path, extra: Sequence[str | Path] = ()) -> dict[str, bytes]:
    """The inputs of a job: every file of `folder` except earlier runs' outputs, plus `extra` files,
    keyed by their path relative to `folder`'s parent (extra files must lie below that parent)."""
    folder = Path(folder)
    root = folder.parent.resolve()
    func = folder.name
    skipped = {*_OUTPUT_DIRS, f"{func}_prj", f"{func}_comp"}
    files: dict[str, bytes] = {}
    for where, dirs, names in os.walk(folder):
        here = Path(where)
        if here == folder:
            dirs[:] = [name for name in dirs if name not in skipped]  # a real Vitis project is gigabytes
        for name in sorted(names):
            if name.endswith(_OUTPUT_SUFFIXES) or (here == folder and name.startswith(RECORD_PREFIX)):
                continue
            path = here / name
            if path.is_file():
                files[(PurePosixPath(func) / path.relative_to(folder).as_posix()).as_posix()] = (
                    path.read_bytes()
                )
    for raw in extra:
        path = Path(os.path.normpath(folder / raw)).resolve()
        if root not in path.parents:
            raise ToolError(f"{raw}: a job can only carry files below {root}, not {path}")
        if not path.is_file():
            raise ToolError(f"{path}: not found (named by a file of {folder})")
        files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def blackbox_inputs(folder: str | Path) -> list[str]:
    """Files the RTL blackbox JSONs of `folder` name (UG1399: c_files, rtl_files), relative to it:
    a top assembled from blackboxes reads its functions' C models and Verilog from their folders."""
    named: list[str] = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            description = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(description, dict) and "rtl_files" in description:
                named += [entry["c_file"] for entry in description.get("c_files", [])]
                named += list(description["rtl_files"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not a blackbox description; Vitis will say what is wrong with a broken one
    return named


def _safe_relative(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise ToolError(f"refusing a job file named {name!r}: not a path inside the job folder")
    return path


def write_files(root: Path, files: dict[str, bytes]) -> list[Path]:
    """Write `files` (relative names) below root, each atomically; returns the paths written."""
    written = []
    for name, data in files.items():
        path = root.joinpath(*_safe_relative(name).parts)
        write_bytes_atomic(path, data)
        written.append(path)
    return written


# ---- the worker side ---------------------------------------------------------------------------


def run_job(job: Job) -> JobResult:
    """Run one job in a temporary folder on this worker (Dask calls this); tool errors are data.

    Its tools are stopped, and its folder removed, when the build that submitted it stops first
    (RemoteSession.close: tool_processes.kill_jobs on the workers)."""
    import tempfile

    started = time.monotonic()
    with tool_processes.job_tools(current_key()), tempfile.TemporaryDirectory(prefix="hclbuild-job-") as tmp:
        root = Path(tmp)
        write_files(root, job.files)
        folder = root / job.func
        result = JobResult(worker=_worker_address(), worker_folder=str(folder), tools={})
        try:
            if job.kind == "csim":
                _csim_on_worker(job, folder, root, result)
            elif job.kind == "vitis":
                _vitis_on_worker(job, folder, result)
            else:
                raise ToolError(f"{job.where}: unknown job kind {job.kind!r}")
        except HCLError as exc:
            reason = one_line(exc)
            result.error = reason if reason.startswith(f"{job.where}: ") else f"{job.where}: {reason}"
        result.files = _result_files(job, folder)
    result.seconds = round(time.monotonic() - started, 3)
    return result


def current_key() -> str | None:
    """The Dask key of the job this thread runs, None outside a Dask worker."""
    try:
        from distributed import get_worker

        return str(get_worker().get_current_task())
    except (ImportError, ValueError):
        return None


def stop_jobs(keys: list[str]) -> list[str]:
    """On a worker (Client.run): stop these jobs' tools and wait until the jobs are over."""
    return tool_processes.kill_jobs(keys)


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"local:{platform.node()}:{os.getpid()}"  # run_job called outside a Dask worker


def _csim_on_worker(job: Job, folder: Path, root: Path, result: JobResult) -> None:

    result.tools = {"g++": _first_line(GXX, "--version"), **_hclbuild_version()}
    document = root / "csim.json"
    timeout = DEFAULT_TIMEOUT if job.timeout is None else job.timeout
    try:
        result.csim = run_csim(folder, document, timeout, project=job.project, outputs=job.outputs)
    finally:
        # run_csim writes its JSON before raising a compile failure: it goes back either way
        if document.is_file():
            result.document = document.read_bytes()


def _vitis_on_worker(job: Job, folder: Path, result: JobResult) -> None:

    tools = find_vitis()
    found = dict(tools.found) if tools is not None else {}
    result.tools = {name: _version(path) for name, path in found.items()}
    result.tools.update(_hclbuild_version())
    if not found:
        raise ToolError(
            f"{job.where}: worker {result.worker} advertises {VITIS_RESOURCE} but has no Vitis HLS "
            "tool (vitis_hls, vitis-run or v++) on PATH or under $XILINX_HLS/$XILINX_VITIS"
        )
    choose_front_end(tools, job.flow)  # a missing [hls] tool is this worker's refusal, before anything runs
    runs = run_hls_steps(folder, job.func, job.steps, flow=job.flow, tools=tools, timeout=job.timeout)
    result.argv = [run.argv for run in runs]


def _result_files(job: Job, folder: Path) -> dict[str, bytes]:
    """What the tool wrote that the submitting side needs, relative to the function folder."""
    if job.kind == "csim":
        # not the executable nor the objects it was linked from: the submitting side reruns nothing
        wanted = [
            path
            for path in (folder / "out").glob("*")
            if path.name != f"tb_{job.func}" and path.suffix != ".o"
        ]
    else:
        wanted = list(folder.glob("*.log"))
        for layout_root in report_dirs(folder, job.func):
            for sub in _VITIS_RESULT_DIRS:
                wanted += (layout_root / sub).rglob("*")
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(wanted) if path.is_file()
    }


@functools.cache
def _first_line(*argv: str) -> str:
    """The first line a tool prints (its version), once per worker process."""
    try:
        done = tool_processes.run(argv, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"not runnable ({exc})"
    return (done.stdout.strip().splitlines() or ["(no output)"])[0]


@functools.cache
def _version(executable: Path) -> str:

    return version_of(executable) or "unknown version"


def _hclbuild_version() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return {"hclbuild": version("hclbuild"), "python": platform.python_version()}
    except PackageNotFoundError:
        return {"hclbuild": "not installed as a package", "python": platform.python_version()}
