"""Run one function's Vitis HLS steps and publish its reports where the report task reads them.

    synthesize_function   hls/<func>/ -> csynth (and cosim) with the flow project.toml chooses ->
                          csynth/<func>.xml, cosim/<func>.rpt
    function_reports      the csynth XML / cosim report of a function: the published copy, else
                          whatever a hand run of either flow left in hls/<func>/

The Tcl flows leave their reports in `<func>_prj/solution1/`, the unified flow in `<func>_comp/hls/`;
publishing a copy at a fixed path gives doit one target per step whichever flow ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from hclbuild.atomic import write_if_changed
from hclbuild.errors import ToolError
from hclbuild.project.config import Project
from hclbuild.project.layout import BuildLayout
from hclbuild.runtime.vitis import ToolRun, find_csynth_report, ordered_steps, report_dirs, run_hls_steps

CSYNTH_TIMEOUT = 6 * 3600.0


def synthesize_function(project: Project, layout: BuildLayout, func: str, steps: Sequence[str] = ("csynth",),
                        *, timeout: float | None = CSYNTH_TIMEOUT,
                        runner: Callable[..., list[ToolRun]] = run_hls_steps) -> list[ToolRun]:
    """Run `steps` of hls/<func>/ and publish its csynth (and cosim) report; ToolError on failure.

    `runner` has run_hls_steps' signature (runtime.remote runs the steps on a Dask worker)."""
    folder = layout.hls_dir(func)
    runs = runner(folder, func, steps, flow=project.config.hls_tool, timeout=timeout)
    order = ordered_steps(steps)
    where = f"{project.name}/{func}"
    if "csynth" in order:
        report = find_csynth_report(folder, func)
        if report is None:
            raise ToolError(f"{where}: {_tools(runs)} exited 0 but left no csynth report in "
                            f"{_layouts(folder, func)}")
        write_if_changed(layout.csynth_result(func), report.read_bytes())
    if "cosim" in order:
        report = _find_cosim_report(folder, func)
        if report is None:
            raise ToolError(f"{where}: {_tools(runs)} exited 0 but left no cosim report in "
                            f"{_layouts(folder, func)}")
        write_if_changed(layout.cosim_result(func), report.read_bytes())
    return runs


def function_reports(layout: BuildLayout, func: str) -> tuple[Path | None, Path | None]:
    """(csynth XML, cosim report) of a function, either of which may be None."""
    folder = layout.hls_dir(func)
    csynth = layout.csynth_result(func)
    cosim = layout.cosim_result(func)
    return (csynth if csynth.is_file() else find_csynth_report(folder, func),
            cosim if cosim.is_file() else _find_cosim_report(folder, func))


def _find_cosim_report(folder: Path, func: str) -> Path | None:
    found = [root / "sim" / "report" / f"{func}_cosim.rpt" for root in report_dirs(folder, func).values()]
    found = [path for path in found if path.is_file()]
    return max(found, key=lambda path: path.stat().st_mtime_ns) if found else None


def _tools(runs: list[ToolRun]) -> str:
    return " and ".join(dict.fromkeys(Path(run.argv[0]).name for run in runs)) or "the tool"


def _layouts(folder: Path, func: str) -> str:
    return " or ".join(str(path) for path in report_dirs(folder, func).values())
