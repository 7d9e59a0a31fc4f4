"""What the hclbuild commands share: finding the projects of PATHS, the build folder, running
doit in this process, the summary table, the Dask session and the QoR comparison."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hclbuild import qor_gate
from hclbuild.errors import HCLError
from hclbuild.project.attempts import function_states, known_functions
from hclbuild.project.config import load_project
from hclbuild.project.layout import (
    BuildLayout,
    build_folder_problem,
    is_project_name,
    shared_build_root,
    unnamed_project_error,
)
from hclbuild.project.synthesis import current_reports
from hclbuild.render.summary import read_summaries
from hclbuild.runtime import remote
from hclbuild.runtime.dask_connection import TlsFiles
from hclbuild.tasks import (
    SOURCES_STAMP,
    discover,
    doit_config,
    doit_creator,
    plan,
    source_fingerprint,
    tasks_for,
)
from hclbuild.tasks.doit_process import check_build_folder
from hclbuild.tasks.doit_state import FAILED_DUMPS
from hclbuild.tasks.progress import PRINTED_ERRORS


def find_projects(paths: list[str]) -> list[Path]:

    found: list[Path] = []
    for raw in paths or [_default_path()]:
        path = Path(raw).resolve()
        if not path.exists():
            raise HCLError(f"{raw}: no such project or folder")
        found.extend(discover(path))
    if not found:
        raise HCLError(f"no project (a folder with kernel.py) under {', '.join(paths) or '.'}")
    for folder in found:
        _check_name(folder)
    return sorted(set(found))


def _check_name(folder: Path) -> None:
    """A folder named `my sobel` is refused before anything is written, as `hclbuild new` refuses to
    make it, unless its project.toml gives the project a name."""

    if is_project_name(folder.name):
        return
    try:
        if is_project_name(load_project(folder).name):
            return
    except HCLError:
        pass
    raise HCLError(unnamed_project_error(folder, folder.name))


def _default_path() -> str:
    return "projects" if Path("projects").is_dir() else "."


def build_root_of(args: argparse.Namespace, projects: list[Path]) -> Path:
    """--build-dir, else the build folder of the project folders found (layout.BUILD_FOLDER_RULE):
    not the current folder, nor how PATHS were spelled."""
    if args.build_dir is not None:
        root = Path(args.build_dir).resolve()
        if root.exists() and not root.is_dir():
            raise HCLError(f"--build-dir {args.build_dir}: exists and is not a folder")
        return root
    return shared_build_root(projects)


def allowed_build_root(args: argparse.Namespace, projects: list[Path]) -> Path:
    """build_root_of, refused when it is, or is inside, a project folder or holds projects."""
    root = build_root_of(args, projects)
    problem = build_folder_problem(root, projects)
    if problem is not None:
        raise HCLError(problem)
    return root


def writable_build_root(args: argparse.Namespace, projects: list[Path]) -> Path:
    """allowed_build_root, made and checked writable before anything is planned or written there (one
    line naming the folder, where the first write had named its temporary file)."""
    root = allowed_build_root(args, projects)
    check_build_folder(root)
    return root


def _loader_namespace(
    projects: list[Path], build_root: Path, tasks: Callable[[], Iterator[dict[str, Any]]] | None = None
) -> dict[str, Any]:

    @doit_creator
    def task_hclbuild() -> Iterator[dict[str, Any]]:
        """All tasks of the given projects (or the ones `tasks` makes: an exploration's points)."""
        yield from tasks() if tasks is not None else tasks_for(projects, build_root)

    return {"task_hclbuild": task_hclbuild, "DOIT_CONFIG": doit_config(build_root)}


def run_doit(
    command: list[str],
    projects: list[Path],
    build_root: Path,
    tasks: Callable[[], Iterator[dict[str, Any]]] | None = None,
) -> int:
    """Run doit with our tasks through its API (same tasks as dodo.py, or the ones `tasks` makes)."""
    from doit.cmd_base import ModuleTaskLoader
    from doit.doit_cmd import DoitMain

    namespace = _loader_namespace(projects, build_root, tasks)
    # doit's output stream defaults to the sys.stdout of when doit was first imported: a caller that
    # has since replaced it (pytest's capture, a notebook) would get output written to a closed file;
    # the state backend reports a state it could not save (a full disk) instead of a traceback
    # doit's commands other than run write to the sys.stdout of when they are made: both see the guard
    stdout = ReaderGuard(sys.stdout)
    output = {
        "GLOBAL": {"outfile": stdout},
        "BACKEND": {"sqlite3": "hclbuild.tasks.doit_state:SqliteState"},
    }
    FAILED_DUMPS.clear()
    real_stdout, sys.stdout = sys.stdout, stdout
    try:
        # doit says 1 for a failed task, 2 for a task that raised (an error under --continue), 3 for an
        # error before any task ran; hclbuild's 2 is a bad command line, so every one of them is 1
        code = 1 if DoitMain(ModuleTaskLoader(namespace), extra_config=output).run(command) else 0
    finally:
        sys.stdout = real_stdout
    if FAILED_DUMPS:
        raise HCLError(
            f"{namespace['DOIT_CONFIG']['dep_file']}: doit could not record which tasks ran "
            f"({FAILED_DUMPS[-1]}); the next run checks them again"
        )
    return code


def summary_rows(projects: list[Path], build_root: Path) -> list[dict[str, Any]]:
    """One row per function: csim pass / FAIL / not run (with the reason), max error, csynth numbers.

    A csim result counts only when every task it comes from succeeded on the files now on disk
    (project.attempts); a pass left by an earlier run of changed or failed inputs is "not run".
    """

    rows = []
    for folder in projects:
        try:
            project = load_project(folder)
            name, top = project.name, project.config.top
        except HCLError:
            name, top = folder.name, "top"
        layout = BuildLayout(build_root, name)
        # before its first compile a project has no function list: its top's row says why
        # (compile failed, not run), where the project had been left out of the table
        for state in function_states(layout, known_functions(layout) or [top]):
            row: dict[str, Any] = {
                "project": name,
                "function": state.func,
                "csim": state.state,
                "max_abs_err": "-",
                "latency": "-",
                "resources": "-",
                "reason": state.reason or "",
            }
            if state.csim is not None and state.csim.get("compared"):
                # a csim that compared nothing (g++ missing, no outputs) measured no error, not 0
                row["max_abs_err"] = f"{state.csim.get('max_abs_err', 0):.3g}"
            reports = current_reports(layout, state.func)
            report = reports.csynth
            if report is not None:
                row["latency"] = "-" if report.worst_latency is None else str(report.worst_latency)
                row["resources"] = ", ".join(f"{k} {v}" for k, v in (report.resources or {}).items())
            if reports.cosim is not None:
                row["cosim"] = reports.cosim.status
            rows.append(row)
    return rows


def print_summary(rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    cols = ["project", "function", "csim", "max_abs_err", "latency", "resources"]
    if any("cosim" in row for row in rows):
        # what `hclbuild cosim` ran for: its verdict, not only the csynth numbers
        cols.insert(3, "cosim")
        rows = [{"cosim": "-", **row} for row in rows]
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print()
    print("  ".join(c.ljust(widths[c]) for c in cols))
    print("  ".join("-" * widths[c] for c in cols))
    for row in rows:
        print("  ".join(str(row[c]).ljust(widths[c]) for c in cols).rstrip())
    reasons = [row for row in rows if row["reason"]]
    if reasons:
        print()
        for row in reasons:
            print(f"{row['project']}/{row['function']}: {row['csim']}: {_unrepeated(row['reason'])}")


def _unrepeated(reason: str) -> str:
    """`compile:p failed (the error above)` for a task failure this run printed as its error line."""

    for printed in PRINTED_ERRORS:
        if reason.endswith(f" failed: {printed}"):
            return reason[: -len(printed) - 2] + " (the error above)"
    return reason


def remote_session(args: argparse.Namespace) -> Any:
    """The Dask session of --scheduler/--cluster (or $HCLBUILD_SCHEDULER/$HCLBUILD_CLUSTER), else None;
    an unreachable scheduler is a one-line error here, before any task starts."""

    if not hasattr(args, "scheduler"):
        return None
    tls = TlsFiles(args.tls_ca_file, args.tls_cert, args.tls_key)
    if args.scheduler or args.cluster:
        return remote.start(
            scheduler=args.scheduler,
            cluster=args.cluster,
            workers=args.workers,
            worker_timeout=args.worker_timeout,
            tls=tls,
        )
    if tls.given():
        raise HCLError(
            "--tls-ca-file, --tls-cert and --tls-key are for a tls:// --scheduler; give --scheduler too"
        )
    if args.workers is not None:
        raise HCLError("--workers is the size of a --cluster; give --cluster too")
    return remote.current() if remote.requested() else None


def parallel_options(args: argparse.Namespace, session: Any, default_processes: int) -> list[str]:
    if session is not None:
        # threads, each blocking on its Dask future; by default one per worker thread of the cluster
        return ["-P", "thread", "-n", str(args.processes or session.slots())]
    processes = args.processes or default_processes
    return ["-n", str(processes)] if processes > 1 else []


def run_tasks(
    args: argparse.Namespace,
    projects: list[Path],
    build_root: Path,
    task_names: Callable[[Any], list[str]],
    default_processes: int = 1,
) -> int:
    """doit the tasks `task_names(session)` names, on Dask when asked for (the session then closes)."""

    session = remote_session(args)
    try:
        tasks = task_names(session)
        options = parallel_options(args, session, default_processes)
        if args.keep_going:
            options.append("--continue")
        return run_doit(options + tasks, projects, build_root)
    finally:
        remote.stop()


def refuse_broken(projects: list[Path], build_root: Path) -> None:
    """A project that cannot be planned (project.toml or kernel.py in error) is refused before any
    task runs: its one line, once. (Under --continue it fails its own compile task instead.)"""

    fingerprint = source_fingerprint(build_root / SOURCES_STAMP)
    broken = next((entry for entry in plan(projects, build_root, fingerprint) if entry.error), None)
    if broken is not None:
        raise HCLError(broken.error or f"{broken.folder}: cannot be planned")


def build_name(folder: Path) -> str:
    """The name of a project folder's build/<name>/: its project.toml's, or the folder's when
    project.toml cannot be read (a broken project still builds, and fails, under that name)."""
    try:
        return load_project(folder).name
    except HCLError:
        return folder.name


def print_report_paths(projects: list[Path], build_root: Path) -> None:
    """`report: <path>` of every project's report.md (written by every csim and report task)."""
    for folder in projects:
        report = BuildLayout(build_root, build_name(folder)).report_markdown
        if report.is_file():
            print(f"report: {report}")


def compare_with_base(args: argparse.Namespace, projects: list[Path], build_root: Path) -> int:
    """--compare of `hclbuild report PATHS`: this build's summaries (thresholds from each project's [ci])."""

    new, fail_on = [], {}
    for folder in projects:
        project = load_project(folder)
        fail_on[project.name] = project.config.ci_fail_on
        summary = BuildLayout(build_root, project.name).report_summary
        if summary.is_file():
            new += read_summaries(summary)
    return qor_gate.gate(new, Path(args.compare), args.fail_on, fail_on, args.metrics)


def repository_root(start: Path) -> Path:
    """The top folder of the git work tree holding `start` (a `.git` folder or file there), else start."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


PATHS_HELP = "project folders (with kernel.py) or folders of projects (default: ./projects, else .)"
BUILD_DIR_HELP = (
    "where build/<project>/ goes (default: build/ beside the project folders; see hclbuild --help)"
)
EXIT_CODES = (
    "exit status: 0 ok, 1 bad input or a failed task, 2 bad command line, 130 interrupted (Ctrl-C), "
    "141 its output's reader went away (| head), 143 terminated (SIGTERM)"
)


class ReaderGuard:
    """doit's output stream: once its reader goes away (`hclbuild list | head`), what doit writes
    is dropped and the run goes on to its end, where doit printed a BrokenPipeError traceback (or,
    with -n N, left its workers waiting); main then ends with status 141."""

    closed = False  # set by any guard: one run has one output

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if not ReaderGuard.closed:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                ReaderGuard.closed = True
        return len(text)

    def flush(self) -> None:
        if not ReaderGuard.closed:
            try:
                self._stream.flush()
            except BrokenPipeError:
                ReaderGuard.closed = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
