"""Run one function's Vitis HLS steps and publish its reports where the report task reads them.

    synthesize_function   hls/<func>/ -> csynth (and cosim) with the flow project.toml chooses ->
                          csynth/<func>.xml, cosim/<func>.rpt, and csynth/<func>.inputs (the
                          digest of the files it read)
    csynth_is_current     whether csynth/<func>.xml came from exactly the files there now
    function_reports      the csynth XML / cosim report of a function: the published copy, else
                          whatever a hand run of either flow left in hls/<func>/

The Tcl flows leave their reports in `<func>_prj/solution1/`, the unified flow in `<func>_comp/hls/`;
publishing a copy at a fixed path gives doit one target per step whichever flow ran. The digest
lets a synthesis done elsewhere (a CI job per function, whose artifacts hold hls/<func>/ and
csynth/<func>.*) count as done here, where doit's own state never saw it run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hclbuild.atomic import write_if_changed
from hclbuild.errors import ToolError
from hclbuild.project.attempts import changed_input, read_attempt
from hclbuild.project.config import Project
from hclbuild.project.layout import BuildLayout
from hclbuild.runtime.report import parse_cosim_rpt, parse_csynth_xml
from hclbuild.runtime.vitis import ToolRun, find_csynth_report, ordered_steps, report_dirs, run_hls_steps

CSYNTH_TIMEOUT = 6 * 3600.0


def synthesize_function(
    project: Project,
    layout: BuildLayout,
    func: str,
    steps: Sequence[str] = ("csynth",),
    *,
    timeout: float | None = CSYNTH_TIMEOUT,
    inputs: Sequence[Path] = (),
    runner: Callable[..., list[ToolRun]] = run_hls_steps,
    reuse_synthesis: bool = False,
) -> list[ToolRun]:
    """Run `steps` of hls/<func>/ and publish its csynth (and cosim) report; ToolError on failure.

    `inputs` are the files csynth reads; their digest is published with the report. `runner` has
    run_hls_steps' signature (runtime.remote runs the steps on a Dask worker). With
    `reuse_synthesis`, cosim runs on the published synthesis, which must be of `inputs` as they are."""

    folder = layout.hls_dir(func)
    where = f"{project.name}/{func}"
    digest = inputs_digest(project, layout, inputs)
    order = ordered_steps(steps, reuse_synthesis=reuse_synthesis)
    # An earlier run's reports must not pass for this run's: a tool that exits 0 without writing
    # one (or fails) would otherwise have the old report published under the new inputs' digest.
    _remove_reports(layout, func, order)
    if "csynth" not in order and not csynth_is_current(project, layout, func, inputs):
        raise ToolError(
            f"{where}: {' and '.join(order)} needs the synthesis of the files now in {folder}, "
            f"and there is none: run csynth:{where} first"
        )
    runs = runner(
        folder, func, steps, flow=project.config.hls_tool, timeout=timeout, reuse_synthesis=reuse_synthesis
    )
    if "csynth" in order:
        report = find_csynth_report(folder, func)
        if report is None:
            raise ToolError(
                f"{where}: {_tools(runs)} exited 0 but left no csynth report in {_layouts(folder, func)}"
            )
        parse_csynth_xml(report)  # a truncated or foreign file fails here, not in every later report
        write_if_changed(layout.csynth_result(func), report.read_bytes())
        write_if_changed(layout.csynth_inputs(func), digest + "\n")
    if "cosim" in order:
        report = _find_cosim_report(folder, func)
        if report is None:
            raise ToolError(
                f"{where}: {_tools(runs)} exited 0 but left no cosim report in {_layouts(folder, func)}"
            )
        write_if_changed(layout.cosim_result(func), report.read_bytes())
        # published either way, so the report shows the failing run; but the task fails
        cosim = parse_cosim_rpt(layout.cosim_result(func))
        if not cosim.passed:
            rows = ", ".join(f"{run.language} {run.status}" for run in cosim.runs.values())
            raise ToolError(f"{where}: C/RTL co-simulation did not pass ({rows}; report {report})")
    return runs


def _remove_reports(layout: BuildLayout, func: str, order: Sequence[str]) -> None:
    """Before a synthesis or cosim: remove the cosim reports of `func`, in both layouts and the
    published copy (a cosim report belongs to the synthesis before, whatever steps run now), and
    before a synthesis its csynth reports too."""
    if "csynth" not in order and "cosim" not in order:
        return
    folder = layout.hls_dir(func)
    doomed = [layout.cosim_result(func)]
    for root in report_dirs(folder, func):
        doomed.append(root / "sim" / "report" / f"{func}_cosim.rpt")
        if "csynth" in order:
            doomed += [root / "syn" / "report" / f"{func}_csynth.xml", root / "syn" / "report" / "csynth.xml"]
    if "csynth" in order:
        doomed += [layout.csynth_result(func), layout.csynth_inputs(func)]
    for path in doomed:
        path.unlink(missing_ok=True)


def inputs_digest(project: Project, layout: BuildLayout, inputs: Sequence[Path]) -> str:
    """sha256 over the Vitis front end project.toml asks for and each input file's name and bytes
    (a missing file counts as missing, so it never matches a digest of a synthesis that had it).

    A blackbox JSON among the inputs brings in the files it names: the function's C model and
    Verilog, which the top's synthesis reads too.
    """
    digest = hashlib.sha256(f"tool={project.config.hls_tool}\n".encode())
    for path in _with_blackbox_files(inputs):
        # paths relative to the build folder: a checkout elsewhere (another CI runner) digests the same
        digest.update(os.path.relpath(os.path.normpath(path), layout.root).encode() + b"\0")
        try:
            digest.update(Path(path).read_bytes())
        except OSError:
            digest.update(b"\0missing\0")
    return digest.hexdigest()


def _with_blackbox_files(inputs: Sequence[Path]) -> list[Path]:
    files = []
    for path in map(Path, inputs):
        files.append(path)
        if not path.name.endswith("_blackbox.json") or not path.is_file():
            continue
        try:
            description = json.loads(path.read_text(encoding="utf-8"))
            named = [entry["c_file"] for entry in description["c_files"]] + list(description["rtl_files"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a broken JSON digests as its own bytes; the synthesis will say what is wrong
        files += [path.parent / name for name in named]
    return files


def csynth_is_current(project: Project, layout: BuildLayout, func: str, inputs: Sequence[Path]) -> bool:
    """True when csynth/<func>.xml exists and was made from exactly `inputs` as they are now."""
    try:
        recorded = layout.csynth_inputs(func).read_text(encoding="utf-8").strip()
    except OSError:
        return False
    return layout.csynth_result(func).is_file() and recorded == inputs_digest(project, layout, inputs)


def function_reports(layout: BuildLayout, func: str) -> tuple[Path | None, Path | None]:
    """(csynth XML, cosim report) of a function, either of which may be None."""
    folder = layout.hls_dir(func)
    csynth = layout.csynth_result(func)
    cosim = layout.cosim_result(func)
    return (
        csynth if csynth.is_file() else find_csynth_report(folder, func),
        cosim if cosim.is_file() else _find_cosim_report(folder, func),
    )


@dataclass
class CurrentReports:
    """The csynth and cosim reports of a function that hold for the files now on disk (parsed), and
    one line for each report found but not shown (outdated: an input of the task that wrote it has
    changed since; unreadable: it does not parse)."""

    csynth: Any = None  # CsynthReport
    cosim: Any = None  # CosimReport
    outdated: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


def current_reports(layout: BuildLayout, func: str) -> CurrentReports:
    """function_reports of `func`, parsed, without those a changed design made stale: a report
    counts unless the latest csynth/cosim attempt that wrote it (project.attempts) read files that
    have changed since. A report no task here recorded (a hand run, another CI job's) is shown."""

    found = CurrentReports()
    csynth_path, cosim_path = function_reports(layout, func)
    # csynth/<f>.xml is written by csynth:<p>/<f> alone (cosim:<p>/<f> runs on its synthesis)
    for kind, path, steps, parse in (
        ("csynth", csynth_path, ("csynth",), parse_csynth_xml),
        ("cosim", cosim_path, ("cosim",), parse_cosim_rpt),
    ):
        if path is None:
            continue
        statuses = [(layout.task_status(step, func), step) for step in steps]
        records = [(status.stat().st_mtime_ns, step) for status, step in statuses if status.is_file()]
        attempt = read_attempt(layout, max(records)[1], func) if records else None
        changed = changed_input(layout, attempt) if attempt is not None else None
        if attempt is not None and changed is not None:
            found.outdated.append(f"{path}: {changed} changed after {attempt.task} ran")
            continue
        try:
            setattr(found, kind, parse(path))
        except ToolError as exc:
            found.unreadable.append(str(exc).splitlines()[0])
    return found


def _find_cosim_report(folder: Path, func: str) -> Path | None:
    found = [root / "sim" / "report" / f"{func}_cosim.rpt" for root in report_dirs(folder, func)]
    found = [path for path in found if path.is_file()]
    return max(found, key=lambda path: path.stat().st_mtime_ns) if found else None


def _tools(runs: list[ToolRun]) -> str:
    return " and ".join(dict.fromkeys(Path(run.argv[0]).name for run in runs)) or "the tool"


def _layouts(folder: Path, func: str) -> str:
    return " or ".join(str(path) for path in report_dirs(folder, func))


def hardware_digest(layout: BuildLayout, functions: list[str]) -> str:
    """sha256 over the csynth and cosim reports of `functions` the report reads (a missing one
    counts as missing): report:<name> reruns when it changes, without depending on the tasks that
    make them (a doit file_dep would run every synthesis for a `hclbuild report`)."""
    digest = hashlib.sha256()
    for func in functions:
        for path in (*function_reports(layout, func), layout.estimate_json(func)):
            digest.update(f"{func}\0{path}\0".encode())
            if path is not None and path.exists():
                try:
                    digest.update(path.read_bytes())
                except OSError:
                    digest.update(b"\0unreadable\0")
    return digest.hexdigest()
