"""The Vitis HLS front ends, one class each, and the order `[hls] tool = "auto"` tries them in.

    vitis_hls   vitis_hls -f run_hls.tcl -tclargs <steps>                  classic Tcl (to 2024.2;
                                                                            deprecated from 2025.1)
    vitis-run   vitis-run --mode hls --tcl run_hls.tcl                      the same Tcl through the
                                                                            new front end; the steps
                                                                            go in $HCLBUILD_STEPS
    v++         v++ -c --mode hls --config hls_config.cfg --work_dir W      unified flow: synthesis,
                vitis-run --mode hls --csim|--cosim|--package|--impl ...    then the other steps

A front end says which executables it needs (find_vitis looks for all of them), whether it can run
with those found, the commands that run some steps of one function's HLS folder, and where its
results land (the Tcl flows in `<func>_prj/solution1/`, the unified one in `<func>_comp/hls/`).
Everything else (project.toml's `[hls] tool` values, the Dask workers' tool versions, the report
search) asks FRONT_ENDS, so a new front end is one class here, added to FRONT_ENDS, and its test.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from hclbuild.errors import ToolError
from hclbuild.runtime.vitis.tools import Executable, VitisTools, locate, output_format_key, version_of

TCL_SCRIPT = "run_hls.tcl"
HLS_CONFIG = "hls_config.cfg"
GOLDEN_DATA_DIR = "data"  # hls/<func>/data/: run_hls.tcl's `add_files -tb data`, hls_config.cfg's tb.file
VITIS_HLS = Executable("vitis_hls", ("XILINX_HLS",))
# v++ and vitis-run ship with Vitis, whose settings script exports XILINX_VITIS, not XILINX_HLS
VITIS_RUN = Executable("vitis-run", ("XILINX_VITIS", "XILINX_HLS"))
VPP = Executable("v++", ("XILINX_VITIS", "XILINX_HLS"))


class ToolCommand(NamedTuple):
    """One run of a tool: its argv and the log (in the function's folder) its output goes to."""

    argv: list[str]
    log: Path


class FrontEnd:
    """A way to drive Vitis HLS over a function's HLS folder (what hclbuild emits there)."""

    name: str  # project.toml's `[hls] tool = "<name>"`
    executables: tuple[Executable, ...]  # what its commands may run

    def available(self, tools: VitisTools) -> bool:
        """Whether it can synthesize with the executables found."""
        raise NotImplementedError

    def report_root(self, folder: Path, func: str) -> Path:
        """The folder below which its runs leave `syn/report`, `sim/report`, `syn/verilog`, ..."""
        raise NotImplementedError

    def commands(
        self, folder: Path, func: str, steps: Sequence[str], tools: VitisTools
    ) -> Iterator[ToolCommand]:
        """The runs that do `steps` (in order, as ordered_steps gives them), one at a time: a run
        that cannot start raises ToolError when it is its turn."""
        raise NotImplementedError

    def missing_data_dir(self, folder: Path) -> None:
        """A synthesis without golden data yet (the reference writes it later): refuse, or prepare."""


def _input(path: Path, what: str) -> Path:
    if not path.is_file():
        raise ToolError(f"{path}: {what} not found")
    return path


class VitisHlsTcl(FrontEnd):
    """`vitis_hls -f run_hls.tcl -tclargs <steps>`: every step in one run of the script."""

    name = "vitis_hls"
    executables = (VITIS_HLS,)

    def available(self, tools: VitisTools) -> bool:
        return tools.path("vitis_hls") is not None

    def report_root(self, folder: Path, func: str) -> Path:
        return folder / f"{func}_prj" / "solution1"

    def script_argv(self, tools: VitisTools, script: Path, args: Sequence[str]) -> list[str]:
        """The argv that runs a Tcl script with `args` (tclargs)."""
        return [str(tools.found["vitis_hls"]), "-f", str(script), *args]

    def commands(
        self, folder: Path, func: str, steps: Sequence[str], tools: VitisTools
    ) -> Iterator[ToolCommand]:
        _input(folder / TCL_SCRIPT, "Tcl script")
        yield ToolCommand(
            self.script_argv(tools, Path(TCL_SCRIPT), ["-tclargs", *steps]), folder / "run_hls.log"
        )


class VitisRunTcl(VitisHlsTcl):
    """`vitis-run --mode hls --tcl run_hls.tcl`, Vitis 2024.2+'s replacement of vitis_hls for
    scripts: the same script and layout; the steps go in $HCLBUILD_STEPS (it passes no tclargs)."""

    name = "vitis-run"
    executables = (VITIS_RUN,)

    def available(self, tools: VitisTools) -> bool:
        return tools.path("vitis-run") is not None

    def script_argv(self, tools: VitisTools, script: Path, args: Sequence[str]) -> list[str]:
        return [str(tools.found["vitis-run"]), "--mode", "hls", "--tcl", str(script), *args]

    def commands(
        self, folder: Path, func: str, steps: Sequence[str], tools: VitisTools
    ) -> Iterator[ToolCommand]:
        _input(folder / TCL_SCRIPT, "Tcl script")
        yield ToolCommand(self.script_argv(tools, Path(TCL_SCRIPT), []), folder / "run_hls.log")


class VppUnified(FrontEnd):
    """The unified flow: `v++ -c --mode hls` synthesizes the component `<func>_comp` from
    hls_config.cfg, then `vitis-run --mode hls --<step>` runs each other step on it."""

    name = "v++"
    executables = (VPP, VITIS_RUN)
    STEP_OPTIONS: Mapping[str, str] = {
        "csim": "--csim",
        "cosim": "--cosim",
        "export": "--package",
        "impl": "--impl",
    }

    def available(self, tools: VitisTools) -> bool:
        return tools.path("v++") is not None  # vitis-run only for the steps after synthesis

    def report_root(self, folder: Path, func: str) -> Path:
        return folder / f"{func}_comp" / "hls"

    def config_argv(self, tools: VitisTools, config: Path, work_dir: str | Path | None) -> list[str]:
        """The argv that synthesizes the component of an HLS config."""
        if tools.path("v++") is None:
            raise ToolError(f"cannot run {config}: v++ is not on PATH or under $XILINX_VITIS/$XILINX_HLS")
        argv = [str(tools.found["v++"]), "-c", "--mode", "hls", "--config", str(config)]
        return argv + (["--work_dir", str(work_dir)] if work_dir is not None else [])

    def commands(
        self, folder: Path, func: str, steps: Sequence[str], tools: VitisTools
    ) -> Iterator[ToolCommand]:
        config = _input(folder / HLS_CONFIG, "HLS config")
        _check_cfg_version(config, tools.path("v++"))
        work_dir = f"{func}_comp"
        for step in steps:
            if step == "csynth":
                yield ToolCommand(
                    self.config_argv(tools, Path(HLS_CONFIG), work_dir), folder / "v++_csynth.log"
                )
                continue
            vitis_run = tools.path("vitis-run")
            if vitis_run is None:
                raise ToolError(
                    f"cannot run {step} of {folder} in the unified flow: vitis-run is not on PATH"
                )
            option = self.STEP_OPTIONS[step]
            argv = [str(vitis_run), "--mode", "hls", option, "--config", HLS_CONFIG, "--work_dir", work_dir]
            yield ToolCommand(argv, folder / f"vitis-run_{step}.log")

    def missing_data_dir(self, folder: Path) -> None:
        # hls_config.cfg cannot say "if it exists" as run_hls.tcl does: its tb.file=data names an
        # empty folder until the reference fills it (whether v++ -c refuses a missing one is unverified)
        (folder / GOLDEN_DATA_DIR).mkdir()


# in the order `[hls] tool = "auto"` prefers them
FRONT_ENDS: tuple[FrontEnd, ...] = (VitisHlsTcl(), VitisRunTcl(), VppUnified())
NAMES = tuple(front_end.name for front_end in FRONT_ENDS)
EXECUTABLES = tuple(dict.fromkeys(e for front_end in FRONT_ENDS for e in front_end.executables))


def find_vitis(environ: Mapping[str, str] | None = None) -> VitisTools | None:
    """Locate every executable of the front ends on PATH or under its install variables; None when
    none is found."""
    return locate(EXECUTABLES, environ)


def front_end(name: str) -> FrontEnd:
    """The front end project.toml's `[hls] tool` names."""
    for candidate in FRONT_ENDS:
        if candidate.name == name:
            return candidate
    raise ToolError(f"unknown Vitis HLS tool {name!r} (expected auto, {', '.join(NAMES)})")


def choose_front_end(tools: VitisTools | None, preferred: str = "auto") -> FrontEnd:
    """`preferred` when it is available, else (auto) the first available of FRONT_ENDS.

    Raises ToolError when nothing usable is installed or the preferred tool is missing."""
    if preferred != "auto":
        chosen = front_end(preferred)
        if tools is None or not chosen.available(tools):
            raise ToolError(
                f"project.toml asks for [hls] tool = {preferred!r}, which is not on PATH "
                "or under $XILINX_HLS/$XILINX_VITIS"
            )
        return chosen
    for candidate in FRONT_ENDS:
        if tools is not None and candidate.available(tools):
            return candidate
    raise ToolError(
        f"no Vitis HLS tool ({', '.join(NAMES[:-1])} or {NAMES[-1]}) on PATH or under $XILINX_HLS/$XILINX_VITIS"
    )


def report_roots(folder: str | Path, func: str) -> list[Path]:
    """Where each front end leaves its results for one function folder (each layout once)."""
    return list(dict.fromkeys(candidate.report_root(Path(folder), func) for candidate in FRONT_ENDS))


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
