"""Running Vitis HLS: the steps of one function's HLS folder with a front end, and one tool run.

Nothing here fakes a tool: when the tools are absent the runners raise ToolError before starting
any process. A run captures the tool's whole output in a log file, kills the tool's process group
on timeout, and turns a nonzero exit into a one-line ToolError ending with the log's last lines, so
the real error is never hidden behind "synthesis failed".
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from hclbuild import tool_processes
from hclbuild.errors import ToolError
from hclbuild.runtime.vitis.front_ends import (
    GOLDEN_DATA_DIR,
    FrontEnd,
    VitisHlsTcl,
    VitisRunTcl,
    VppUnified,
    choose_front_end,
    find_vitis,
    report_roots,
)
from hclbuild.runtime.vitis.tools import VitisTools

STEPS = ("csim", "csynth", "cosim", "export", "impl")
STEPS_ENV = "HCLBUILD_STEPS"  # how run_hls.tcl learns its steps under vitis-run --tcl (no -tclargs)
TAIL_LINES = 12
_TAIL_CHARS = 2000
_TAIL_BYTES = 64 * 1024
_KILL_GRACE_SECONDS = 5.0


class ToolRun(NamedTuple):
    """A finished, successful tool run."""

    argv: tuple[str, ...]
    cwd: Path
    returncode: int
    log_path: Path
    seconds: float


def ordered_steps(steps: Sequence[str], *, reuse_synthesis: bool = False) -> list[str]:
    """Steps in the order they run; cosim, export and impl need csynth first, unless
    `reuse_synthesis` says the function's last synthesis is of its current sources."""
    unknown = [step for step in steps if step not in STEPS]
    if unknown:
        raise ToolError(f"unknown HLS step {unknown[0]!r} (expected {', '.join(STEPS)})")
    asked = set(steps)
    if asked & {"cosim", "export", "impl"} and not reuse_synthesis:
        asked.add("csynth")
    return [step for step in STEPS if step in asked]


def run_hls_steps(
    folder: str | Path,
    func: str,
    steps: Sequence[str],
    *,
    flow: str = "auto",
    tools: VitisTools | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    reuse_synthesis: bool = False,
) -> list[ToolRun]:
    """Run csim/csynth/cosim/export/impl of the HLS project in `folder` with the front end `flow`
    names (auto: the first available, front_ends.FRONT_ENDS). Logs go next to the project
    (`run_hls.log`, `v++_csynth.log`, `vitis-run_cosim.log`). Raises ToolError on any failure.
    With `reuse_synthesis`, cosim/export/impl run on the synthesis already in the project (the
    caller knows it is of the current sources) instead of synthesizing again.
    """
    folder = _check_cwd(folder)
    tools = tools if tools is not None else find_vitis()
    chosen = choose_front_end(tools, flow)
    assert tools is not None  # choose_front_end raised otherwise
    order = ordered_steps(steps, reuse_synthesis=reuse_synthesis)
    _check_golden_data(folder, order, chosen)
    run_env = dict(os.environ if env is None else env)
    run_env[STEPS_ENV] = " ".join(order)
    return [
        run_tool(command.argv, folder, timeout, command.log, run_env)
        for command in chosen.commands(folder, func, order, tools)
    ]


def _check_golden_data(folder: Path, order: Sequence[str], chosen: FrontEnd) -> None:
    """csim and cosim run the testbench on data/, which the reference run writes; a synthesis alone
    reads no vector and may run before it (its task does not wait for the reference)."""
    data = folder / GOLDEN_DATA_DIR
    if data.is_dir():
        return
    needing = [step for step in order if step in ("csim", "cosim")]
    if needing:
        raise ToolError(
            f"{data}: missing, and {needing[0]} runs the testbench on the golden vectors the "
            "reference run writes there (doit reference:<project>)"
        )
    chosen.missing_data_dir(folder)


def run_tcl(
    tcl_path: str | Path,
    args: Sequence[str],
    cwd: str | Path,
    timeout: float | None,
    *,
    tools: VitisTools | None = None,
    log_path: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> ToolRun:
    """Run `vitis_hls -f <tcl> <args>` in cwd (or `vitis-run --mode hls --tcl` when only that exists).

    A relative tcl_path is relative to cwd. The output goes to log_path (default
    `<cwd>/<tcl stem>.log`). Raises ToolError when the tool is absent, fails or times out.
    """
    cwd = _check_cwd(cwd)
    tcl_path = Path(tcl_path)
    if not (cwd / tcl_path).is_file():
        raise ToolError(f"{cwd / tcl_path}: Tcl script not found")
    tools = tools if tools is not None else find_vitis()
    runner = next(
        (fe for fe in (VitisHlsTcl(), VitisRunTcl()) if tools is not None and fe.available(tools)), None
    )
    if runner is None or tools is None:
        raise ToolError(
            f"cannot run {tcl_path}: neither vitis_hls nor vitis-run is on PATH or under $XILINX_HLS"
        )
    log = Path(log_path) if log_path is not None else cwd / f"{tcl_path.stem}.log"
    return run_tool(runner.script_argv(tools, tcl_path, args), cwd, timeout, log, env)


def run_cfg(
    cfg_path: str | Path,
    cwd: str | Path,
    timeout: float | None,
    *,
    tools: VitisTools | None = None,
    work_dir: str | Path | None = None,
    log_path: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> ToolRun:
    """Run `v++ -c --mode hls --config <cfg>` in cwd (the Vitis unified flow).

    A relative cfg_path is relative to cwd; work_dir, when given, is passed as `--work_dir`. The
    output goes to log_path (default `<cwd>/<cfg stem>.log`). Raises ToolError as run_tcl does.
    """
    cwd = _check_cwd(cwd)
    cfg_path = Path(cfg_path)
    if not (cwd / cfg_path).is_file():
        raise ToolError(f"{cwd / cfg_path}: HLS config not found")
    tools = tools if tools is not None else find_vitis()
    argv = VppUnified().config_argv(tools or VitisTools({}), cfg_path, work_dir)
    log = Path(log_path) if log_path is not None else cwd / f"{cfg_path.stem}.log"
    return run_tool(argv, cwd, timeout, log, env)


def report_dirs(folder: str | Path, func: str) -> list[Path]:
    """Where the front ends leave their results for one function folder (front_ends.report_roots)."""
    return report_roots(folder, func)


def find_csynth_report(folder: str | Path, func: str) -> Path | None:
    """The function's csynth XML in any front end's layout (the newest when several exist), or None."""
    found = []
    for root in report_dirs(folder, func):
        for name in (f"{func}_csynth.xml", "csynth.xml"):
            path = root / "syn" / "report" / name
            if path.is_file():
                found.append(path)
                break
    return max(found, key=lambda path: path.stat().st_mtime_ns) if found else None


def log_tail(log_path: str | Path, lines: int = TAIL_LINES) -> str:
    """The last non-blank lines of a log joined with " | ", short enough for a one-line error."""
    try:
        with open(log_path, "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - _TAIL_BYTES))
            data = log.read()
    except OSError:
        return "(no log)"
    kept = [line.strip() for line in data.decode("utf-8", errors="replace").splitlines() if line.strip()]
    tail = " | ".join(kept[-lines:]) or "(empty log)"
    return tail if len(tail) <= _TAIL_CHARS else "..." + tail[-_TAIL_CHARS:]


def _check_cwd(cwd: str | Path) -> Path:
    cwd = Path(cwd)
    if not cwd.is_dir():
        raise ToolError(f"{cwd}: working directory for the Vitis run does not exist")
    return cwd


def run_tool(
    argv: list[str], cwd: Path, timeout: float | None, log_path: Path, env: Mapping[str, str] | None
) -> ToolRun:
    """Run one tool to its end in cwd, its output into log_path; ToolError on a failure or timeout."""
    tool = Path(argv[0]).name
    log_path.parent.mkdir(parents=True, exist_ok=True)
    # The log appears under its name only once the run is over, so a later step never reads half a log.
    partial = log_path.with_name(log_path.name + ".part")
    start = time.monotonic()
    timed_out = False
    with open(partial, "wb") as log:
        try:
            # a group of its own: on timeout or interrupt the whole tree (vitis_hls spawns compilers,
            # simulators) is stopped, TERM first; the log then stays as <log>.part for the user to read
            proc = tool_processes.start(
                argv,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=dict(env) if env is not None else None,
            )
        except OSError as err:
            log.close()
            partial.unlink(missing_ok=True)
            raise ToolError(f"cannot start {argv[0]}: {err.strerror or err}") from None
        with tool_processes.owned(proc, grace=_KILL_GRACE_SECONDS):
            try:
                returncode = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                returncode = tool_processes.stop(proc, _KILL_GRACE_SECONDS)
    os.replace(partial, log_path)
    seconds = time.monotonic() - start
    command = " ".join([tool, *argv[1:]])
    if timed_out:
        raise ToolError(
            f"{tool} timed out after {timeout:g} s ({command}, log {log_path}): {log_tail(log_path)}"
        )
    if returncode != 0:
        how = f"was killed by signal {-returncode}" if returncode < 0 else f"exited with code {returncode}"
        raise ToolError(f"{tool} {how} ({command}, log {log_path}): {log_tail(log_path)}")
    return ToolRun(tuple(argv), cwd, returncode, log_path, seconds)
