"""Find and run the AMD Vitis HLS tools (vitis_hls, vitis-run, v++).

Three ways to drive Vitis HLS, preferred in this order unless project.toml's `[hls] tool` names one
(UG1399 / UG1702):

    vitis_hls   vitis_hls -f run_hls.tcl -tclargs <steps>                  classic Tcl (to 2024.2;
                                                                            deprecated from 2025.1)
    vitis-run   vitis-run --mode hls --tcl run_hls.tcl                      the same Tcl through the
                                                                            new front end; the steps
                                                                            go in $HCLBUILD_STEPS
    v++         v++ -c --mode hls --config hls_config.cfg --work_dir W      unified flow: synthesis,
                vitis-run --mode hls --csim|--cosim|--package|--impl ...    then the other steps

The Tcl flows write `<func>_prj/solution1/...`, the unified one `W/hls/...` (see report_dirs).

Nothing here fakes a tool: when the tools are absent `find_vitis` returns None and the runners raise
ToolError before starting any process. A run captures the tool's whole output in a log file, kills
the tool's process group on timeout, and turns a nonzero exit into a one-line ToolError ending with
the log's last lines, so the real error is never hidden behind "synthesis failed".
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hclbuild import tool_processes
from hclbuild.errors import ToolError

FLOWS = ("vitis_hls", "vitis-run", "v++")
STEPS = ("csim", "csynth", "cosim", "export", "impl")
GOLDEN_DATA_DIR = "data"  # hls/<func>/data/: run_hls.tcl's `add_files -tb data`, hls_config.cfg's tb.file
STEPS_ENV = "HCLBUILD_STEPS"  # how run_hls.tcl learns its steps under vitis-run --tcl (no -tclargs)
# package.output.format replaced syn.output.format in Vitis 2025.1 (UG1399 "Package Options")
PACKAGE_FORMAT_SINCE = (2025, 1)
_VERSION = re.compile(r"(?<!\d)(20\d\d)\.(\d)(?!\d)")  # "v2024.2", "/Vitis/2024.2/bin"
_VERSION_TIMEOUT = 120.0
_UNIFIED_STEP_OPTIONS = {"csim": "--csim", "cosim": "--cosim", "export": "--package", "impl": "--impl"}

TAIL_LINES = 12
_TAIL_CHARS = 2000
_TAIL_BYTES = 64 * 1024
_KILL_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class VitisTools:
    """Where the Vitis executables and headers are; a None field means that one was not found."""

    vitis_hls: Path | None
    vpp: Path | None
    vitis_run: Path | None
    xilinx_hls: Path | None
    include_dir: Path | None  # $XILINX_HLS/include: ap_int.h, hls_stream.h, hls_math.h


@dataclass(frozen=True)
class ToolRun:
    """A finished, successful tool run."""

    argv: tuple[str, ...]
    cwd: Path
    returncode: int
    log_path: Path
    seconds: float


def find_vitis(environ: Mapping[str, str] | None = None) -> VitisTools | None:
    """Locate vitis_hls, v++ and vitis-run on PATH or under $XILINX_HLS; None when none is found."""
    env = os.environ if environ is None else environ
    search_path = env.get("PATH", "")
    xilinx_hls = _existing_dir(env.get("XILINX_HLS"))
    # v++ and vitis-run ship with Vitis, whose settings script exports XILINX_VITIS, not XILINX_HLS.
    xilinx_vitis = _existing_dir(env.get("XILINX_VITIS"))

    def locate(name: str, *homes: Path | None) -> Path | None:
        found = shutil.which(name, path=search_path) if search_path else None
        if found:
            return Path(found)
        for home in homes:
            candidate = home / "bin" / name if home else None
            if candidate and candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
        return None

    vitis_hls = locate("vitis_hls", xilinx_hls)
    vpp = locate("v++", xilinx_vitis, xilinx_hls)
    vitis_run = locate("vitis-run", xilinx_vitis, xilinx_hls)
    if vitis_hls is None and vpp is None and vitis_run is None:
        return None
    if xilinx_hls is None and vitis_hls is not None:
        # <install>/bin/vitis_hls: the install root holds include/ even when XILINX_HLS is unset.
        xilinx_hls = _existing_dir(str(vitis_hls.parent.parent)) if vitis_hls.parent.name == "bin" else None
    include_dir = _existing_dir(str(xilinx_hls / "include")) if xilinx_hls else None
    return VitisTools(vitis_hls, vpp, vitis_run, xilinx_hls, include_dir)


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
    _check_input(cwd / tcl_path, "Tcl script")
    tools = tools if tools is not None else find_vitis()
    if tools is not None and tools.vitis_hls is not None:
        argv = [str(tools.vitis_hls), "-f", str(tcl_path), *args]
    elif tools is not None and tools.vitis_run is not None:
        # Vitis 2024.2+ deprecates vitis_hls; vitis-run is its replacement for Tcl scripts.
        argv = [str(tools.vitis_run), "--mode", "hls", "--tcl", str(tcl_path), *args]
    else:
        raise ToolError(
            f"cannot run {tcl_path}: neither vitis_hls nor vitis-run is on PATH or under $XILINX_HLS"
        )
    log = Path(log_path) if log_path is not None else cwd / f"{tcl_path.stem}.log"
    return _run(argv, cwd, timeout, log, env)


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
    _check_input(cwd / cfg_path, "HLS config")
    tools = tools if tools is not None else find_vitis()
    if tools is None or tools.vpp is None:
        raise ToolError(f"cannot run {cfg_path}: v++ is not on PATH or under $XILINX_VITIS/$XILINX_HLS")
    argv = [str(tools.vpp), "-c", "--mode", "hls", "--config", str(cfg_path)]
    if work_dir is not None:
        argv += ["--work_dir", str(work_dir)]
    log = Path(log_path) if log_path is not None else cwd / f"{cfg_path.stem}.log"
    return _run(argv, cwd, timeout, log, env)


def choose_flow(tools: VitisTools | None, preferred: str = "auto") -> str:
    """The flow to run: `preferred` when installed, else vitis_hls, vitis-run, v++ in that order.

    Raises ToolError when nothing usable is installed or the preferred tool is missing.
    """
    if preferred not in ("auto", *FLOWS):
        raise ToolError(f"unknown Vitis HLS tool {preferred!r} (expected auto, {', '.join(FLOWS)})")
    found = {
        "vitis_hls": tools is not None and tools.vitis_hls is not None,
        "vitis-run": tools is not None and tools.vitis_run is not None,
        # the unified flow needs v++ to synthesize; vitis-run only for the steps after it
        "v++": tools is not None and tools.vpp is not None,
    }
    if preferred != "auto":
        if not found[preferred]:
            raise ToolError(
                f"project.toml asks for [hls] tool = {preferred!r}, which is not on PATH "
                "or under $XILINX_HLS/$XILINX_VITIS"
            )
        return preferred
    for flow in FLOWS:
        if found[flow]:
            return flow
    raise ToolError(
        "no Vitis HLS tool (vitis_hls, vitis-run or v++) on PATH or under $XILINX_HLS/$XILINX_VITIS"
    )


def version_of(executable: Path, *, timeout: float = _VERSION_TIMEOUT) -> str | None:
    """ "2024.2" for a Vitis executable: from its install path, else from its `--version` output."""
    for text in (str(executable.resolve()), str(executable)):
        match = _VERSION.search(text)
        if match:
            return f"{match.group(1)}.{match.group(2)}"
    flag = "-version" if executable.name == "vitis_hls" else "--version"
    try:
        done = tool_processes.run([str(executable), flag], timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.search(done.stdout + done.stderr)
    return f"{match.group(1)}.{match.group(2)}" if match else None


def output_format_key(version: str | None) -> str:
    """The hls_config.cfg key of the export format: syn.output.format to 2024.2, then
    package.output.format (None, an unknown version, means the current spelling)."""
    if version is None:
        return "package.output.format"
    match = _VERSION.fullmatch(version)
    if match is None:
        raise ToolError(f"Vitis version {version!r}: expected YEAR.N such as 2024.2")
    since = (int(match.group(1)), int(match.group(2))) >= PACKAGE_FORMAT_SINCE
    return "package.output.format" if since else "syn.output.format"


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


def report_dirs(folder: str | Path, func: str) -> dict[str, Path]:
    """Where each flow leaves its results for one function folder: `<func>_prj/solution1/` for the
    Tcl flows, `<func>_comp/hls/` for the unified one (its --work_dir)."""
    folder = Path(folder)
    return {"tcl": folder / f"{func}_prj" / "solution1", "unified": folder / f"{func}_comp" / "hls"}


def find_csynth_report(folder: str | Path, func: str) -> Path | None:
    """The function's csynth XML in either layout (the newer file when both exist), or None."""
    found = []
    for root in report_dirs(folder, func).values():
        for name in (f"{func}_csynth.xml", "csynth.xml"):
            path = root / "syn" / "report" / name
            if path.is_file():
                found.append(path)
                break
    return max(found, key=lambda path: path.stat().st_mtime_ns) if found else None


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
    """Run csim/csynth/cosim/export/impl of the HLS project in `folder` with the chosen flow.

    The Tcl flows run run_hls.tcl once for all steps; the unified flow runs `v++ -c` for csynth and
    `vitis-run` for each other step, in the component `<func>_comp`. Logs go next to the project
    (`run_hls.log`, `v++_csynth.log`, `vitis-run_cosim.log`). Raises ToolError on any failure.
    With `reuse_synthesis`, cosim/export/impl run on the synthesis already in the project (the
    caller knows it is of the current sources) instead of synthesizing again.
    """
    folder = _check_cwd(folder)
    tools = tools if tools is not None else find_vitis()
    chosen = choose_flow(tools, flow)
    assert tools is not None  # choose_flow raised otherwise
    order = ordered_steps(steps, reuse_synthesis=reuse_synthesis)
    _check_golden_data(folder, order, chosen)
    run_env = dict(os.environ if env is None else env)
    run_env[STEPS_ENV] = " ".join(order)
    if chosen == "vitis_hls":
        return [run_tcl("run_hls.tcl", ["-tclargs", *order], folder, timeout, tools=tools, env=run_env)]
    if chosen == "vitis-run":
        argv = [str(tools.vitis_run), "--mode", "hls", "--tcl", "run_hls.tcl"]
        _check_input(folder / "run_hls.tcl", "Tcl script")
        return [_run(argv, folder, timeout, folder / "run_hls.log", run_env)]
    _check_input(folder / "hls_config.cfg", "HLS config")
    _check_cfg_version(folder / "hls_config.cfg", tools.vpp)
    work_dir = f"{func}_comp"
    runs = []
    for step in order:
        if step == "csynth":
            runs.append(
                run_cfg(
                    "hls_config.cfg",
                    folder,
                    timeout,
                    tools=tools,
                    work_dir=work_dir,
                    log_path=folder / "v++_csynth.log",
                    env=run_env,
                )
            )
            continue
        if tools.vitis_run is None:
            raise ToolError(f"cannot run {step} of {folder} in the unified flow: vitis-run is not on PATH")
        argv = [
            str(tools.vitis_run),
            "--mode",
            "hls",
            _UNIFIED_STEP_OPTIONS[step],
            "--config",
            "hls_config.cfg",
            "--work_dir",
            work_dir,
        ]
        runs.append(_run(argv, folder, timeout, folder / f"vitis-run_{step}.log", run_env))
    return runs


def _check_golden_data(folder: Path, order: Sequence[str], flow: str) -> None:
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
    if flow == "v++":
        # hls_config.cfg cannot say "if it exists" as run_hls.tcl does: its tb.file=data names an
        # empty folder until the reference fills it (whether v++ -c refuses a missing one is unverified)
        data.mkdir()


def _check_cfg_version(cfg_path: Path, vpp: Path | None) -> None:
    """Refuse a cfg whose export-format key the installed v++ would not read."""
    if vpp is None:
        return
    version = version_of(vpp)
    if version is None:
        return
    wanted = output_format_key(version)
    text = cfg_path.read_text(encoding="utf-8", errors="replace")
    keys = {line.split("=", 1)[0].strip() for line in text.splitlines() if "=" in line}
    other = ({"syn.output.format", "package.output.format"} - {wanted}) & keys
    if other:
        raise ToolError(
            f"{cfg_path} spells the export format as {other.pop()}, but v++ is Vitis {version}, "
            f'which reads {wanted}: set [hls] vitis_version = "{version}" in project.toml'
        )


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


# ---- internals ---------------------------------------------------------------------------------


def _existing_dir(text: str | None) -> Path | None:
    if not text:
        return None
    path = Path(text)
    return path if path.is_dir() else None


def _check_cwd(cwd: str | Path) -> Path:
    cwd = Path(cwd)
    if not cwd.is_dir():
        raise ToolError(f"{cwd}: working directory for the Vitis run does not exist")
    return cwd


def _check_input(path: Path, what: str) -> None:
    if not path.is_file():
        raise ToolError(f"{path}: {what} not found")


def _run(
    argv: list[str], cwd: Path, timeout: float | None, log_path: Path, env: Mapping[str, str] | None
) -> ToolRun:
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
