"""What a task does when doit runs it: the project flow's steps (hclbuild.project.flow, the Vitis
steps of hclbuild.project.synthesis), each wrapped in the record of its attempt.

Imported only when a task runs (hclbuild.tasks.definitions.StepAction): this module brings the
compiler, the runtimes, numpy and MLIR, which a doit run whose tasks are all up to date never needs.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doit.exceptions import TaskFailed

from hclbuild.atomic import sweep_stale_temps, write_if_changed
from hclbuild.errors import HCLError
from hclbuild.project.blackbox import publish_blackbox
from hclbuild.project.config import Project
from hclbuild.project.estimation import estimate_function
from hclbuild.project.flow import compile_kernel, csim_function, emit_function, write_report
from hclbuild.project.layout import BuildLayout
from hclbuild.project.lowering import lower_design
from hclbuild.project.reference import run_reference
from hclbuild.project.report_files import end_attempt, start_attempt
from hclbuild.project.synthesis import hardware_digest, synthesize_function
from hclbuild.project.written import record_written, remove_stale_functions, remove_written, task_entries
from hclbuild.runtime import dask_requested, remote
from hclbuild.runtime.isolate import run_isolated
from hclbuild.runtime.vitis import ToolRun, run_hls_steps
from hclbuild.tasks.doit_process import prune_empty_folders
from hclbuild.tasks.result_stamps import result_values

if TYPE_CHECKING:
    from hclbuild.tasks.definitions import StepAction


_SWEPT: set[Path] = set()
# Under `doit -P thread` (how Dask-bound builds run) steps share one process: the DSL's tracing state
# and the MLIR context are per process, so local steps take turns; steps that may run remotely
# (csim, csynth, cosim) only wait for a Dask worker and do not hold it.
_LOCAL_STEPS = threading.Lock()


def run(action: StepAction) -> Any:
    """Run the step an action names on its project; an HCLError becomes a one-line task failure.

    Temporaries left by a killed earlier run are swept first. With an attempt, the action records it
    in build/<name>/status/, removes the project's report when it starts and rewrites it when a csim
    ends or any task fails (project.report_files), so the report shows this attempt's outcome even when
    doit skips `report:<name>` because a task it depends on failed (with or without --continue).
    The attempt's verdicts (csim's result file) are removed before it starts.
    """
    project = Project.from_plan(action.plan)
    layout = BuildLayout(action.build_root, project.name)
    step = STEPS[action.name]
    attempt = action.attempt
    try:
        if layout.root not in _SWEPT:  # once per process and project: a sweep walks the whole folder
            sweep_stale_temps(layout.root)
            _SWEPT.add(layout.root)
        # listed before anything is written, so that every clean finds what this attempt leaves; any
        # attempt may rewrite the report (project.report_files), so its files are listed with each
        functions = action.plan.functions
        record_written(
            layout,
            {**task_entries(*_written_task(action), functions), **task_entries("report", None, functions)},
        )
        record = None
        if attempt is not None:
            record = start_attempt(
                layout, attempt.step, attempt.func, attempt.inputs, verdicts=action.verdicts
            )
        error: str | None = None
        try:
            _call_step(step, project, layout, *action.args)
        except HCLError as exc:
            error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        except OSError as exc:
            # the file system said no (a full disk, a read-only or vanished folder): the
            # machine's state, not a bug, so one line like bad input
            error = os_error_line(exc, layout.root)
        except Exception as exc:
            # a bug, not bad input: doit shows the traceback, the record shows the task failed
            _finish(layout, attempt, record, f"{type(exc).__name__}: {exc}")
            raise
        _finish(layout, attempt, record, error)
    except OSError as exc:
        # recording the attempt failed too (the same full disk): its record says "running", so
        # the report shows the task as not finished, never as passed
        return TaskFailed(os_error_line(exc, layout.root))
    except KeyboardInterrupt:
        # the record stays "running", so the report says the task did not finish; subprocess.run
        # has killed and reaped its g++ / testbench / reference child before this runs
        prune_empty_folders(layout.root)
        raise
    if error is not None:
        return TaskFailed(error)
    if action.stamped is not None:
        # saved by doit as the task's value; its uptodate compares it (result_stamps.result_untouched)
        return result_values(action.stamped)
    return True


def _written_task(action: StepAction) -> tuple[str, str | None]:
    """The step and function under which the manifest of what hclbuild wrote lists the action's files."""
    if action.attempt is not None:
        return action.attempt.step, action.attempt.func
    if action.name == "blackbox":
        return "blackbox", action.args[0]
    return action.name, None


def fail(action: StepAction, message: str) -> TaskFailed:
    """The compile action of a project that cannot be planned: record the failure, then fail."""
    layout = BuildLayout(action.build_root, action.plan.name)
    record_written(layout, {**task_entries("compile", None, []), **task_entries("report", None, [])})
    end_attempt(layout, "compile", None, start_attempt(layout, "compile", None, []), message)
    return TaskFailed(message)


def os_error_line(exc: OSError, folder: Path | None = None) -> str:
    """`<file>: <reason>` of a file-system error, in one line (the CLI prints them so too); a write
    to an open file names none, so then the folder the task writes in."""
    if exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return f"{exc.strerror or exc}" + (f" (writing below {folder})" if folder is not None else "")


def _call_step(step: Callable[..., Any], *args: Any) -> None:
    if step in _REMOTE_STEPS and dask_requested():
        step(*args)
        return
    with _LOCAL_STEPS:
        step(*args)


def _finish(layout: BuildLayout, attempt: Any, record: Any, error: str | None) -> None:
    if attempt is not None:
        end_attempt(layout, attempt.step, attempt.func, record, error)


# the steps marked by may_run_remotely
_REMOTE_STEPS: set[Callable[..., Any]] = set()


def may_run_remotely(step: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a step that hands its work to Dask when a scheduler is configured (runtime.remote)."""
    _REMOTE_STEPS.add(step)
    return step


def clean_task(build_root: Path, name: str, keys: list[str]) -> None:
    """`doit clean` of a task: what the build folder's manifest lists under the task's keys, and
    nothing else (project.written)."""
    remove_written(BuildLayout(build_root, name), keys)


# ---- the steps: step(project, layout, *args) --------------------------------------------------


def compile_step(project: Project, layout: BuildLayout) -> None:
    manifest = compile_kernel(project, layout)
    # a function no longer outlined: its hls/<func>/, csim/<func>.json, golden/<func>/ go
    remove_stale_functions(layout, manifest.functions)


def reference_step(project: Project, layout: BuildLayout) -> None:
    lower_design(layout)
    # JIT code that divides by zero or indexes out of bounds must fail this task, not kill doit; one
    # that never ends (an hcl.while_ whose condition stays true) is stopped at [reference] timeout
    run_isolated(
        run_reference,
        project,
        layout,
        what=f"{project.name}: the LLVM reference run",
        timeout=project.config.reference_timeout,
    )


def emit_step(project: Project, layout: BuildLayout, func: str) -> None:
    emit_function(project, layout, func)


def estimate_step(project: Project, layout: BuildLayout, func: str) -> None:
    estimate_function(project.config, layout, func)


@may_run_remotely
def csim_step(project: Project, layout: BuildLayout, func: str) -> None:
    # on a Dask worker when a scheduler is configured: the same result files come back
    csim_function(project, layout, func, runner=remote.run_csim_remote if remote.requested() else None)


def report_step(project: Project, layout: BuildLayout, functions: list[str]) -> None:
    digest = hardware_digest(layout, functions)
    write_report(project, layout, functions)
    write_if_changed(layout.report_hardware_stamp, digest + "\n")


@may_run_remotely
def synthesize_step(
    project: Project,
    layout: BuildLayout,
    func: str,
    steps: list[str],
    inputs: list[str],
    reuse_synthesis: bool = False,
) -> None:
    runner: Callable[..., list[ToolRun]] = run_hls_steps
    if remote.requested():
        # on a Dask worker with the vitis_hls resource; the reports come back, then publish as usual
        runner = functools.partial(remote.run_hls_steps_remote, project=project.name)
    synthesize_function(
        project,
        layout,
        func,
        steps,
        inputs=[Path(path) for path in inputs],
        reuse_synthesis=reuse_synthesis,
        runner=runner,
    )


def blackbox_step(project: Project, layout: BuildLayout, func: str, top: str) -> None:
    publish_blackbox(project, layout, func, top)


STEPS: dict[str, Callable[..., None]] = {
    "compile": compile_step,
    "reference": reference_step,
    "emit": emit_step,
    "estimate": estimate_step,
    "csim": csim_step,
    "report": report_step,
    "synthesize": synthesize_step,
    "blackbox": blackbox_step,
}
