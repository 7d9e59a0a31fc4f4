"""doit task generators for projects/<name>/: compile, reference, emit, csim, report (+ csynth, cosim).

Loading these imports no MLIR, llvmlite or jinja2: discovery traces each kernel.py with the pure
Python DSL to learn its function names; the heavy modules are imported inside task actions. Caching
is doit's own: real files in `file_dep`/`targets`, one of them build/.hclbuild-fingerprint (the
digest of hclbuild's sources), so a compiler change reruns what it affects and nothing else reruns.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from doit.exceptions import TaskFailed

from hclbuild.atomic import sweep_stale_temps
from hclbuild.errors import HCLError
from hclbuild.project.config import KERNEL_FILE, PROJECT_FILE, Project, load_project
from hclbuild.project.layout import BuildLayout
from hclbuild.tasks.doit_process import (
    _BUILD_ROOTS,
    _prune_empty_folders,
    after_interrupt,
    doit_config,
    doit_creator,
)

PACKAGE_DIR = Path(__file__).resolve().parent.parent
SOURCES_STAMP = ".hclbuild-sources.json"  # in the build root: source_fingerprint's cache
# in the build root: the fingerprint alone, a file_dep of every task. A file instead of doit's
# config_changed: doit checks a file with one stat, but calls and inspects an uptodate callable
# per task, a fifth of a no-op's own time over the suite's 200 tasks
FINGERPRINT_FILE = ".hclbuild-fingerprint"
GROUP_DOCS = {
    "build": "compile every project, run its reference and emit every function's HLS project (the default)",
    "compile": "kernel.py -> MLIR (built, outlined, verified), one file per function",
    "reference": "MLIR lowered to LLVM IR and run -> golden vectors at every outlined call",
    "emit": "one Vitis HLS project per function: C++, testbench, tcl, cfg, Makefile",
    "csim": "g++ C simulation of every function against the LLVM golden vectors",
    "report": "csim (and csynth when present) summary per project",
    "csynth": "Vitis HLS C synthesis per function (only where vitis_hls, vitis-run or v++ is found)",
    "cosim": "Vitis HLS C/RTL co-simulation per function (only where vitis_hls, vitis-run or v++ is found)",
    "blackbox": 'outlined functions\' RTL as blackboxes of the top (top_assembly = "blackbox", with Vitis)',
}


# A task without actions is up to date: doit runs a task with no dependencies every time and saves
# its state, so four groups made every no-op `doit build` write the state database, and sqlite's
# commit waits for the disk (8-30 ms here). A group still runs the tasks it depends on first.
NO_ACTION = {"actions": None, "uptodate": [True]}


def group_tasks(vitis: bool) -> Iterator[dict]:
    """The group tasks' descriptions for `doit list` (doit makes the groups from the subtasks)."""
    for group, doc in GROUP_DOCS.items():
        if group == "build":
            # the reference writes every function's data/, so a built HLS folder is a complete one
            yield {"basename": "build", **NO_ACTION, "task_dep": ["compile", "reference", "emit"], "doc": doc}
        elif vitis or group not in ("csynth", "cosim", "blackbox"):
            yield {"basename": group, "name": None, "doc": doc, **NO_ACTION}


class ProjectPlan:
    """A discovered project: its functions, or the one-line reason it cannot be planned. (A plain
    class: a dataclass would cost every doit run about 1 ms to define.)"""

    __slots__ = ("error", "folder", "functions", "inputs", "name", "project")

    def __init__(
        self,
        folder: Path,
        name: str,
        project: Project | None = None,
        functions: list[str] | None = None,
        inputs: list[str] | None = None,
        error: str | None = None,
    ) -> None:
        self.folder, self.name, self.project, self.error = folder, name, project, error
        self.functions: list[str] = functions if functions is not None else []
        self.inputs: list[str] = (
            inputs if inputs is not None else []
        )  # discovery.input_paths: compile's file_dep

    def __repr__(self) -> str:
        return f"ProjectPlan(name={self.name!r}, functions={self.functions!r}, error={self.error!r})"


def discover(projects_root: Path) -> list[Path]:
    """Folders below projects_root that hold a kernel.py, sorted by name."""
    root = Path(projects_root)
    if (root / KERNEL_FILE).is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / KERNEL_FILE).is_file())


def plan(
    folders: list[Path], build_root: Path | None = None, fingerprint: str | None = None
) -> list[ProjectPlan]:
    """Load every project and learn its functions; a broken one gets an error instead of functions.

    With build_root, projects and functions come from build/.plans/ while kernel.py, its sibling
    modules, project.toml and hclbuild's sources are unchanged (hclbuild.project.discovery), so a
    no-op `doit` imports neither numpy nor the DSL; else each kernel is loaded and traced.
    """
    from hclbuild.project.discovery import input_paths, planned_project

    fingerprint = fingerprint or source_fingerprint()
    plans = []
    for folder in folders:
        entry = ProjectPlan(folder=folder, name=folder.name)
        try:
            if build_root is None:
                from hclbuild.project.kernel import design_functions, kernel_schedule

                entry.project = load_project(folder)
                entry.functions = design_functions(kernel_schedule(entry.project), entry.project.name)
                entry.inputs = input_paths(folder)
            else:
                entry.project, entry.functions, entry.inputs = planned_project(
                    folder, Path(build_root), fingerprint
                )
            entry.name = entry.project.name
        except HCLError as exc:
            entry.error = str(exc).splitlines()[0]
        plans.append(entry)
    _check_names(plans)
    _check_unique_names(plans, build_root)
    return plans


def _refuse(message: str) -> None:
    """Stop before any task exists: one line, exit status 1 (under `hclbuild` and plain `doit`)."""
    import sys

    print(f"hclbuild: error: {message}", file=sys.stderr)
    raise SystemExit(1)


def _check_names(plans: list[ProjectPlan]) -> None:
    """A project named after a folder that is no project name (`my sobel`) is refused up front, as
    `hclbuild new` refuses it: its tasks had been named `compile:my sobel` and failed one by one."""
    from hclbuild.project.config import is_project_name, unnamed_project_error

    for entry in plans:
        if not is_project_name(entry.name):
            _refuse(unnamed_project_error(entry.folder, entry.name))


def _check_unique_names(plans: list[ProjectPlan], build_root: Path | None) -> None:
    """Two folders that are one project name of one build folder would share build/<name>/ and every
    task name: doit refused them as "duplicated definition of 'compile:<name>'", naming neither."""
    from hclbuild.project.layout import default_build_root

    first: dict[tuple[Path, str], Path] = {}
    for entry in plans:
        root = (
            Path(build_root) if build_root is not None else default_build_root(Path(entry.folder).resolve())
        )
        other = first.setdefault((root, entry.name), entry.folder)
        if other != entry.folder:
            _refuse(
                f"{other} and {entry.folder} are both project {entry.name!r} (they would share "
                f"build/{entry.name}/ and its tasks): give one another [project] name"
            )


def _source_files(folder: str, prefix: str = "") -> Iterator[tuple[str, os.DirEntry]]:
    for entry in os.scandir(folder):
        if entry.is_dir() and entry.name != "__pycache__":
            yield from _source_files(entry.path, f"{prefix}{entry.name}/")
        elif entry.name.endswith((".py", ".j2")):
            yield f"{prefix}{entry.name}", entry


def source_fingerprint(cache: Path | None = None) -> str:
    """sha256 of hclbuild's own sources and templates: any change to the compiler reruns tasks.

    With `cache` (a JSON file), the digest is reused while every source keeps its size and
    mtime, so a no-op doit stats the sources instead of reading them; the digest is of contents.
    """
    files = sorted(_source_files(str(PACKAGE_DIR)))
    stamp = hashlib.sha256(repr([(rel, e.stat().st_size, e.stat().st_mtime_ns) for rel, e in files]).encode())
    if cache is not None:
        try:
            stored = json.loads(cache.read_text(encoding="utf-8"))
            if stored.get("stamp") == stamp.hexdigest():
                return str(stored["fingerprint"])
        except (OSError, ValueError, AttributeError, KeyError):
            pass
    digest = hashlib.sha256()
    for rel, entry in files:
        digest.update(rel.encode())
        with open(entry.path, "rb") as handle:
            digest.update(handle.read())
    if cache is not None:
        from hclbuild.atomic import write_if_changed

        record = {"stamp": stamp.hexdigest(), "fingerprint": digest.hexdigest()}
        write_if_changed(cache, json.dumps(record) + "\n")
    return digest.hexdigest()


_SWEPT: set[Path] = set()
# Under `doit -P thread` (how Dask-bound builds run) steps share one process: the DSL's tracing state
# and the MLIR context are per process, so local steps take turns; steps that may run remotely
# (csim, csynth, cosim) only wait for a Dask worker and do not hold it.
_LOCAL_STEPS = threading.Lock()


def may_run_remotely(step: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a task step that hands its work to Dask when a scheduler is configured (runtime.remote)."""
    step.may_run_remotely = True  # type: ignore[attr-defined]
    return step


def _call_step(step: Callable[..., Any], *args: Any) -> None:
    from hclbuild.runtime import dask_requested

    if getattr(step, "may_run_remotely", False) and dask_requested():
        step(*args)
        return
    with _LOCAL_STEPS:
        step(*args)


def _run(
    step: Callable[..., Any],
    project: Project,
    layout: BuildLayout,
    *args: Any,
    attempt: tuple[str, str | None, list[str]] | None = None,
    verdicts: tuple[str, ...] | list[str] = (),
) -> Callable[[], Any]:
    """A doit python-action running step(project, layout, *args); an HCLError becomes a one-line
    task failure. Temporaries left by a killed earlier run are swept first.

    With `attempt=(step name, function or None, input files)` the action records its attempt in
    build/<name>/status/, removes the project's report when it starts and rewrites it when a
    csim ends or any task fails (project.report), so the report shows this attempt's outcome even
    when doit skips `report:<name>` because a task it depends on failed (with or without --continue).
    `verdicts` (csim's result file) are removed before the attempt starts.
    """

    def action() -> Any:
        try:
            if layout.root not in _SWEPT:  # once per process and project: a sweep walks the whole folder
                sweep_stale_temps(layout.root)
                _SWEPT.add(layout.root)
            record = None
            if attempt is not None:
                from hclbuild.project.report import start_attempt

                record = start_attempt(layout, *attempt, verdicts=verdicts)
            error: str | None = None
            try:
                _call_step(step, project, layout, *args)
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
            _prune_empty_folders(layout.root)
            raise
        return TaskFailed(error) if error is not None else True

    action.__name__ = getattr(step, "__name__", "step")
    return action


def os_error_line(exc: OSError, folder: Path | None = None) -> str:
    """`<file>: <reason>` of a file-system error, in one line (the CLI prints them so too); a write
    to an open file names none, so then the folder the task writes in."""
    if exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return f"{exc.strerror or exc}" + (f" (writing below {folder})" if folder is not None else "")


def _finish(
    layout: BuildLayout, attempt: tuple[str, str | None, list[str]] | None, record: Any, error: str | None
) -> None:
    if attempt is not None:
        from hclbuild.project.report import end_attempt

        end_attempt(layout, attempt[0], attempt[1], record, error)


def _remove(*folders: Path | str) -> Callable[[], None]:
    """A doit clean action removing whole folders: emitted projects hold more than their targets
    (data/*.bin, csim's out/), and `doit clean` must leave nothing a task made."""

    def action() -> None:
        import shutil

        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)

    return action


def _fail(layout: BuildLayout, message: str) -> Callable[[], Any]:
    """The compile action of a project that cannot be planned: record the failure, then fail."""

    def action() -> Any:
        from hclbuild.project.report import end_attempt, start_attempt

        end_attempt(layout, "compile", None, start_attempt(layout, "compile", None, []), message)
        return TaskFailed(message)

    return action


def _compile(project: Project, layout: BuildLayout) -> None:
    from hclbuild.project.flow import write_project_ir

    write_project_ir(project, layout)


def _reference(project: Project, layout: BuildLayout) -> None:
    from hclbuild.project.flow import run_reference
    from hclbuild.project.lowering import lower_design
    from hclbuild.runtime.isolate import run_isolated

    lower_design(layout)
    # imported here, not in the child, so that every later reference run this worker forks has it
    import hclbuild.runtime.llvm  # noqa: F401

    # JIT code that divides by zero or indexes out of bounds must fail this task, not kill doit; one
    # that never ends (an hcl.while_ whose condition stays true) is stopped at [reference] timeout
    run_isolated(
        run_reference,
        project,
        layout,
        what=f"{project.name}: the LLVM reference run",
        timeout=project.config.reference_timeout,
    )


def _emit(project: Project, layout: BuildLayout, func: str) -> None:
    from hclbuild.project.flow import emit_function

    emit_function(project, layout, func)


@may_run_remotely
def _csim(project: Project, layout: BuildLayout, func: str) -> None:
    from hclbuild.project.flow import csim_function
    from hclbuild.runtime import remote

    # on a Dask worker when a scheduler is configured: the same result files come back
    csim_function(project, layout, func, runner=remote.run_csim_remote if remote.requested() else None)


def _report(project: Project, layout: BuildLayout, functions: list[str]) -> None:
    from hclbuild.atomic import write_if_changed
    from hclbuild.project.flow import write_report
    from hclbuild.project.report import hardware_digest

    digest = hardware_digest(layout, functions)
    write_report(project, layout, functions)
    write_if_changed(layout.report_hardware_stamp, digest + "\n")


def _hardware_unchanged(layout: BuildLayout, functions: list[str]) -> Callable[[], bool]:
    """report:<name>'s uptodate: the csynth/cosim reports are those its last run read."""

    def check() -> bool:
        from hclbuild.project.report import hardware_digest

        try:
            recorded = layout.report_hardware_stamp.read_text(encoding="utf-8").strip()
        except OSError:
            return False
        return recorded == hardware_digest(layout, functions)

    return check


def project_tasks(entry: ProjectPlan, build_root: Path, fingerprint_file: str, vitis: bool) -> Iterator[dict]:
    """Every task of one project; fingerprint_file (write_fingerprint's) is a dependency of each."""
    name = entry.name
    if entry.project is None or entry.error is not None:
        # a broken project fails its own task; others still run under `doit --continue`
        failing = _fail(BuildLayout(Path(build_root), name), entry.error or "unknown error")
        yield {
            "basename": "compile",
            "name": name,
            "actions": [failing],
            "doc": f"{name}: cannot be planned: {entry.error}",
            "uptodate": [False],
        }
        for group in ("reference", "emit", "csim", "report") + (("csynth", "cosim") if vitis else ()):
            # so that `doit csim` (not only `doit compile`) reports the broken project
            yield {
                "basename": group,
                "name": name,
                **NO_ACTION,
                "task_dep": [f"compile:{name}"],
                "doc": f"{name}: cannot be planned (see compile:{name})",
            }
        return
    project = entry.project
    layout = BuildLayout(Path(build_root), name)
    fingerprint_dep = [fingerprint_file]
    functions = entry.functions
    top = functions[0]
    inputs = entry.inputs  # kernel.py, its sibling modules, project.toml
    # every path as a string joined without pathlib: this runs for every task of every doit run
    paths = layout.project_task_files()
    task_files = {f: layout.task_files(f, is_top=f == top) for f in functions}
    ir_files = [task_files[f].mlir for f in functions]
    yield {
        "basename": "compile",
        "name": name,
        "doc": f"{name}: kernel.py -> ir/*.mlir (one per function)",
        "actions": [_run(_compile, project, layout, attempt=("compile", None, inputs))],
        "file_dep": inputs + fingerprint_dep,
        "targets": ir_files + [paths.ir_manifest],
        "clean": [_remove(paths.ir_dir, paths.status_dir)],
    }
    reference_deps = [paths.top_mlir, paths.ir_manifest] + inputs
    # the reference lowers ir/top.mlir to llvm/, writes golden/<func>/ and links hls/<func>/data/ to
    # it (the data manifest is the last of task_files' hls); emit needs neither, so it runs beside
    yield {
        "basename": "reference",
        "name": name,
        "doc": f"{name}: ir/top.mlir -> llvm/top.ll, run -> golden vectors per function, hls/<func>/data/",
        "actions": [_run(_reference, project, layout, attempt=("reference", None, reference_deps))],
        "file_dep": reference_deps + fingerprint_dep,
        "targets": [paths.top_ll, paths.llvm_manifest]
        + [task_files[f].golden_manifest for f in functions]
        + [task_files[f].hls[-1] for f in functions],
        "clean": [
            _remove(
                paths.llvm_dir,
                *(task_files[f].golden_dir for f in functions),
                *(task_files[f].data_dir for f in functions),
            )
        ],
    }
    csim_results = []
    toml = [path for path in inputs if os.path.basename(path) == PROJECT_FILE]  # input_paths' last, if any
    gate = functions[1] if len(functions) > 1 else top  # a small emit (the top's holds every function)
    for func in functions:
        files = task_files[func].hls
        emit_deps = [task_files[func].mlir] + toml
        yield {
            "basename": "emit",
            "name": f"{name}/{func}",
            "doc": f"{name}: Vitis HLS project of {func} (C++, testbench, tcl, cfg, Makefile)",
            "actions": [_run(_emit, project, layout, func, attempt=("emit", func, emit_deps))],
            "file_dep": emit_deps + fingerprint_dep,
            # order only: doit -n releases what waited for compile in no fixed order, and the reference
            # (the longest task) could queue behind every emit; now it starts beside the first one
            "task_dep": [] if func == gate else [f"emit:{name}/{gate}"],
            "targets": files[:-1],
            "clean": [_remove(task_files[func].hls_dir)],
        }
        csim_json = task_files[func].csim_json
        # top file, header, testbench, the harness (hls_files' first five) and the data manifest (its last)
        csim_deps = [*files[:5], files[-1]]
        csim_results.append(csim_json)
        yield {
            "basename": "csim",
            "name": f"{name}/{func}",
            "doc": f"{name}: g++ C simulation of {func} against the LLVM golden vectors",
            "actions": [
                _run(_csim, project, layout, func, attempt=("csim", func, csim_deps), verdicts=[csim_json])
            ],
            "file_dep": csim_deps + fingerprint_dep,
            "targets": [csim_json],
            "clean": True,
        }
        if vitis:
            from hclbuild.tasks.vitis_tasks import function_vitis_tasks

            yield from function_vitis_tasks(project, layout, func, files, fingerprint_dep, _run, functions)
    yield {
        "basename": "report",
        "name": name,
        "doc": f"{name}: summary of csim (and csynth when present) across functions",
        "actions": [_run(_report, project, layout, functions)],
        # csynth/cosim reports are read when present, never made here: as file_deps (targets of the
        # csynth tasks) they had `hclbuild report` synthesize every function, hours each, in parallel
        "file_dep": csim_results + fingerprint_dep,
        "uptodate": [_hardware_unchanged(layout, functions)],
        "targets": [paths.report_summary, paths.report_markdown],
        "clean": [_remove(paths.reports_dir)],
    }


def _vitis_found() -> bool:
    """find_vitis() is not None, without importing hclbuild.runtime.vitis (5 ms of every doit run)
    where no Vitis tool or install variable exists at all, the common case."""
    import shutil

    if not any(os.environ.get(name) for name in ("XILINX_HLS", "XILINX_VITIS")) and not any(
        shutil.which(tool) for tool in ("vitis_hls", "v++", "vitis-run")
    ):
        return False
    from hclbuild.runtime.vitis import find_vitis

    return find_vitis() is not None


def tasks_for(folders: list[Path], build_root: Path) -> Iterator[dict]:
    """Every task of the given project folders, plus the group descriptions (the Vitis ones where a
    tool is found, or where a Dask scheduler is configured: its workers may have one)."""
    from hclbuild.doit_state import prefetch_task_states
    from hclbuild.runtime import dask_requested

    prefetch_task_states()  # under doit: its saved states in one query, not one per task checked
    vitis = _vitis_found() or dask_requested()
    _BUILD_ROOTS.add(Path(build_root))
    # what a killed run left beside the files below (the sources stamp's temporary); one listing of
    # the build folder, not a walk of it (each task's action sweeps its project's folder)
    sweep_stale_temps(build_root, recursive=False)
    fingerprint = source_fingerprint(Path(build_root) / SOURCES_STAMP)
    fingerprint_file = write_fingerprint(Path(build_root), fingerprint)
    yield from group_tasks(vitis)
    plans = plan(folders, build_root, fingerprint)
    _preload_compiler()
    for entry in plans:
        yield from project_tasks(entry, build_root, fingerprint_file, vitis)


def _preload_compiler() -> None:
    """When planning traced a kernel, so a compile will run, import MLIR and the emitter (which
    compile and emit both import) here, before doit forks its workers: the worker that does not
    compile then starts its first emit or lowering with them, instead of spending about 0.2 s
    importing them. The serial part is no longer: compile would import them first thing. A
    no-op run traces no kernel and imports none of it."""
    from hclbuild.project.discovery import traced_here

    if traced_here():
        import hclbuild.compiler.emit_hls  # noqa: F401 - brings mlir.ir


def write_fingerprint(build_root: Path, fingerprint: str) -> str:
    """build_root/.hclbuild-fingerprint holding `fingerprint` (rewritten only when it changes): the
    file every task depends on, so a change of hclbuild's sources reruns every task."""
    from hclbuild.atomic import write_if_changed

    path = Path(build_root) / FINGERPRINT_FILE
    write_if_changed(path, fingerprint + "\n")
    return str(path)


def all_tasks(projects_root: Path, build_root: Path) -> Iterator[dict]:
    """Every task of every project below projects_root (what dodo.py yields)."""
    yield from tasks_for(discover(projects_root), build_root)


__all__ = [
    "PROJECT_FILE",
    "after_interrupt",
    "all_tasks",
    "discover",
    "doit_config",
    "doit_creator",
    "group_tasks",
    "may_run_remotely",
    "plan",
    "project_tasks",
    "tasks_for",
]
