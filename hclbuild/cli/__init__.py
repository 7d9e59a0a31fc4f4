"""The hclbuild command: the same doit tasks as dodo.py, for projects anywhere.

hclbuild new DIR                 scaffold a project (kernel.py + project.toml)
hclbuild build|csim|report [PATHS] [-n N] [--build-dir DIR] [--continue]
hclbuild list [PATHS]
hclbuild estimate [PATHS] [--json]  the per-function QoR estimate (a model, not Vitis) of a build
hclbuild csynth|cosim [PATHS] [--function F]   Vitis C synthesis / co-simulation (a Vitis tool on PATH)
hclbuild csim|report|csynth|cosim ... --scheduler tcp://HOST:8786 | --cluster slurm|pbs|lsf|sge|local
                                 the csim/csynth/cosim jobs on Dask workers (hclbuild[distributed])
hclbuild ci github|gitlab [PATHS] [--runner-label LABEL] [--install CMDS] [--output FILE]
hclbuild explore [PATHS] [-n N] [--budget K] [--seed S] [--objective latency,DSP,...] [--csim] [--csynth]
                 [--scheduler ADDR | --cluster KIND]   design-space exploration over schedule knobs
hclbuild explore PATH --apply N                       point N of the Pareto front into [knobs]
hclbuild clean [PATHS] [--build-dir DIR]   remove what hclbuild wrote in build/<project>/, nothing else
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hclbuild import package_version, qor_gate
from hclbuild.atomic import write_text_atomic, write_text_new
from hclbuild.cli.clean import CleanParts, add_clean_command
from hclbuild.cli.estimate import ProjectEstimates, estimates_json, estimates_table
from hclbuild.errors import HCLError
from hclbuild.project.attempts import function_states, known_functions
from hclbuild.project.config import load_project
from hclbuild.project.layout import (
    BUILD_FOLDER_RULE,
    BuildLayout,
    build_folder_problem,
    is_project_name,
    shared_build_root,
    unnamed_project_error,
)
from hclbuild.project.synthesis import current_reports
from hclbuild.render.summary import read_summaries
from hclbuild.runtime import local_cores, remote
from hclbuild.runtime.dask_clusters import CLUSTERS
from hclbuild.runtime.dask_connection import TlsFiles
from hclbuild.runtime.vitis import find_vitis
from hclbuild.tasks import (
    SOURCES_STAMP,
    discover,
    doit_config,
    doit_creator,
    plan,
    source_fingerprint,
    tasks_for,
    termination,
)
from hclbuild.tasks.doit_process import check_build_folder
from hclbuild.tasks.doit_state import FAILED_DUMPS
from hclbuild.tasks.progress import PRINTED_ERRORS
from hclbuild.warning_modes import MODES as WARNING_MODES
from hclbuild.warning_modes import WARNINGS_ENV

KERNEL_TEMPLATE = '''"""{name}: an hclbuild project. Edit the algorithm and its schedule, then run `hclbuild csim`."""

import numpy as np

import hclbuild as hcl

N = 64


def schedule():
    """The algorithm and its schedule (hclbuild calls this)."""
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((N,), "A")
    B = hcl.placeholder((N,), "B")

    def kernel(A, B):
        scaled = hcl.compute((N,), lambda i: A[i] * 3, name="scaled")
        return hcl.compute((N,), lambda i: scaled[i] + B[i], name="C")

    s = hcl.create_schedule([A, B], kernel, name="top")
    s[kernel.scaled].pipeline(kernel.scaled.axis[0])
    s.outline(kernel.scaled)
    return s


def model(A, B):
    """numpy model of the outputs, checked against the LLVM reference."""
    return (A * 3 + B).astype(np.int32)
'''

TOML_TEMPLATE = """[project]
top = "top"

[hls]
part = "xcu250-figd2104-2L-e"
clock_period_ns = 10.0
flow_target = "vivado"

[csim]
rtol = 1e-5
atol = 1e-6

[reference]
seed = 0
"""


def _projects(paths: list[str]) -> list[Path]:

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


def _build_root(args: argparse.Namespace, projects: list[Path]) -> Path:
    """--build-dir, else the build folder of the project folders found (layout.BUILD_FOLDER_RULE):
    not the current folder, nor how PATHS were spelled."""
    if args.build_dir is not None:
        root = Path(args.build_dir).resolve()
        if root.exists() and not root.is_dir():
            raise HCLError(f"--build-dir {args.build_dir}: exists and is not a folder")
        return root
    return shared_build_root(projects)


def _writable_build_root(args: argparse.Namespace, projects: list[Path]) -> Path:
    """_build_root, made and checked writable before anything is planned or written there (one line
    naming the folder, where the first write had named its temporary file); a build folder in a
    project folder, or one holding projects, is refused before it is made."""
    root = _build_root(args, projects)
    problem = build_folder_problem(root, projects)
    if problem is not None:
        raise HCLError(problem)
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
    stdout = _ReaderGuard(sys.stdout)
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


def cmd_new(args: argparse.Namespace) -> int:
    import shlex

    folder = Path(args.dir)
    name = folder.resolve().name
    if not is_project_name(name):
        raise HCLError(
            f"{args.dir}: {name!r} is not a valid project name (letters, digits, '_', '-', '.'; "
            "it names the build folder and the doit tasks); nothing written"
        )
    if (folder / "kernel.py").exists():
        raise HCLError(f"{folder}: already a project (kernel.py exists); nothing written")
    if (folder / "project.toml").exists():
        raise HCLError(f"{folder}: project.toml exists (hclbuild new writes its own); nothing written")
    folder.mkdir(parents=True, exist_ok=True)
    # neither file replaces one that appears meanwhile; project.toml first, so a refusal leaves no kernel.py
    try:
        write_text_new(folder / "project.toml", TOML_TEMPLATE)
        write_text_new(folder / "kernel.py", KERNEL_TEMPLATE.format(name=name))
    except FileExistsError as exc:
        raise HCLError(f"{exc.filename}: appeared while hclbuild new ran; left as it is") from None
    print(
        f"created {folder / 'kernel.py'} and {folder / 'project.toml'}; run: hclbuild csim {shlex.quote(args.dir)}"
    )
    return 0


def _remote_session(args: argparse.Namespace) -> Any:
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


def _parallel_options(args: argparse.Namespace, session: Any, default_processes: int) -> list[str]:
    if session is not None:
        # threads, each blocking on its Dask future; by default one per worker thread of the cluster
        return ["-P", "thread", "-n", str(args.processes or session.slots())]
    processes = args.processes or default_processes
    return ["-n", str(processes)] if processes > 1 else []


def _run_tasks(
    args: argparse.Namespace,
    projects: list[Path],
    build_root: Path,
    task_names: Callable[[Any], list[str]],
    default_processes: int = 1,
) -> int:
    """doit the tasks `task_names(session)` names, on Dask when asked for (the session then closes)."""

    session = _remote_session(args)
    try:
        tasks = task_names(session)
        options = _parallel_options(args, session, default_processes)
        if args.keep_going:
            options.append("--continue")
        return run_doit(options + tasks, projects, build_root)
    finally:
        remote.stop()


def _refuse_broken(projects: list[Path], build_root: Path) -> None:
    """A project that cannot be planned (project.toml or kernel.py in error) is refused before any
    task runs: its one line, once. (Under --continue it fails its own compile task instead.)"""

    fingerprint = source_fingerprint(build_root / SOURCES_STAMP)
    broken = next((entry for entry in plan(projects, build_root, fingerprint) if entry.error), None)
    if broken is not None:
        raise HCLError(broken.error or f"{broken.folder}: cannot be planned")


def cmd_tasks(args: argparse.Namespace) -> int:
    if getattr(args, "compare", None) is None and getattr(args, "fail_on", None) is not None:
        raise HCLError("--fail-on needs --compare BASE: a threshold is a change against a base build")
    results_only = args.command == "report" and args.paths and args.compare is not None
    if results_only and all(qor_gate.is_result_path(Path(path)) for path in args.paths):
        # result files only: nothing to build, as in a job that merges other jobs' results
        new = [summary for path in args.paths for summary in qor_gate.load(Path(path))]
        return qor_gate.gate(new, Path(args.compare), args.fail_on, {}, args.metrics)
    projects = _projects(args.paths)
    build_root = _writable_build_root(args, projects)
    if not args.keep_going:
        _refuse_broken(projects, build_root)
    command = {"build": ["build"], "csim": ["csim"], "report": ["csim", "report"]}[args.command]
    # like make -j: emit and g++ tasks are independent per function, so every core takes one; Vitis
    # runs (cmd_synth) stay one at a time unless asked, each takes gigabytes
    code = _run_tasks(args, projects, build_root, lambda session: command, default_processes=local_cores())
    if args.command in ("csim", "report"):
        rows = summary_rows(projects, build_root)
        print_summary(rows)
        _print_report_paths(projects, build_root)
        unpassed = next((row for row in rows if row["csim"] != "pass"), None)
        if code == 0 and unpassed is not None:
            # every task ran and succeeded, yet a function has no passing csim (the planned tasks
            # missed a function compile made): exit 0 would claim the design passed
            raise HCLError(
                f"{unpassed['project']}/{unpassed['function']} has no passing csim although "
                f"every task succeeded: {unpassed['reason'] or unpassed['csim']}"
            )
    if args.command == "report":
        print(f"reports: {BuildLayout(build_root, '').build_index_html} and <project>/reports/report.html")
        if args.compare is not None:
            return max(code, _compare(args, projects, build_root))
    return code


def _print_report_paths(projects: list[Path], build_root: Path) -> None:
    """`report: <path>` of every project's report.md (written by every csim and report task)."""

    for folder in projects:
        try:
            name = load_project(folder).name
        except HCLError:
            name = folder.name
        report = BuildLayout(build_root, name).report_markdown
        if report.is_file():
            print(f"report: {report}")


def _compare(args: argparse.Namespace, projects: list[Path], build_root: Path) -> int:
    """--compare of `hclbuild report PATHS`: this build's summaries (thresholds from each project's [ci])."""

    new, fail_on = [], {}
    for folder in projects:
        project = load_project(folder)
        fail_on[project.name] = project.config.ci_fail_on
        summary = BuildLayout(build_root, project.name).report_summary
        if summary.is_file():
            new += read_summaries(summary)
    return qor_gate.gate(new, Path(args.compare), args.fail_on, fail_on, args.metrics)


def cmd_estimate(args: argparse.Namespace) -> int:
    """Run the estimate tasks (compile and emit first where needed), then print every function's
    estimate: a table, or with --json one JSON object and nothing else on stdout."""
    projects = _projects(args.paths)
    build_root = _writable_build_root(args, projects)
    if not args.keep_going:
        _refuse_broken(projects, build_root)
    # doit's progress goes to stderr: stdout is the table or the JSON alone
    with contextlib.redirect_stdout(sys.stderr):
        code = _run_tasks(args, projects, build_root, lambda session: ["estimate"], local_cores())
    found = []
    for folder in projects:
        try:
            name, top = (project := load_project(folder)).name, project.config.top
        except HCLError:
            name, top = folder.name, "top"
        layout = BuildLayout(build_root, name)
        found.append(ProjectEstimates.read(layout, known_functions(layout) or [top]))
    print(estimates_json(found) if args.json else "\n".join(estimates_table(found)))
    return code


def cmd_list(args: argparse.Namespace) -> int:
    projects = _projects(args.paths)
    return run_doit(["list", "--all"], projects, _writable_build_root(args, projects))


def _vitis_tasks(args: argparse.Namespace, projects: list[Path], session: Any) -> list[str]:
    """`csynth:<p>/<f>` (or cosim) of every function of every project, or of --function."""

    step = args.command
    if session is None and find_vitis() is None:
        raise HCLError(
            "no Vitis HLS tool (vitis_hls, vitis-run or v++) on PATH or under "
            f"$XILINX_HLS/$XILINX_VITIS: {step} tasks exist only where one is found "
            "(or on Dask workers: --scheduler)"
        )
    tasks = []
    for entry in plan(projects):
        if entry.error:
            raise HCLError(entry.error)
        if args.function is not None and args.function not in entry.functions:
            raise HCLError(
                f"{entry.name}: no function {args.function!r} (functions: {', '.join(entry.functions)})"
            )
        tasks += [f"{step}:{entry.name}/{f}" for f in entry.functions if args.function in (None, f)]
    return tasks


def cmd_csynth(args: argparse.Namespace) -> int:
    projects = _projects(args.paths)
    build_root = _writable_build_root(args, projects)
    code = _run_tasks(args, projects, build_root, lambda session: _vitis_tasks(args, projects, session))
    print_summary(summary_rows(projects, build_root))
    return code


def cmd_explore(args: argparse.Namespace) -> int:
    # only for `hclbuild explore`: it compiles and estimates in this process's children, so it
    # imports the compiler, which every other command's start (a no-op build above all) must not load
    from hclbuild.cli.explore import CommandParts, run_explore

    parts = CommandParts(
        projects=_projects,
        build_root=_writable_build_root,
        remote_session=_remote_session,
        parallel_options=_parallel_options,
        run_doit=run_doit,
    )
    try:
        return run_explore(args, parts)
    finally:
        remote.stop()


def cmd_ci(args: argparse.Namespace) -> int:
    # only for `hclbuild ci`: its templates need jinja2, which a no-op build through this command must not load
    from hclbuild.cli.ci import github_workflow, gitlab_pipeline

    projects = _projects(args.paths)
    plans = plan(projects)
    broken = [p for p in plans if p.error]
    if broken:
        raise HCLError(broken[0].error or "a project cannot be planned")
    write = github_workflow if args.provider == "github" else gitlab_pipeline
    # the pipeline runs at the top of the repository, and GitHub and GitLab read its file there
    root = _repository_root(Path.cwd())
    text = write(plans, runner_label=args.runner_label, root=root, install=args.install)
    default = root / (".github/workflows/hclbuild.yml" if args.provider == "github" else ".gitlab-ci.yml")
    output = Path(args.output) if args.output else Path(os.path.relpath(default))
    if output.is_dir():
        raise HCLError(f"--output {output}: is a folder; name the file to write")
    try:
        write_text_atomic(output, text)
    except OSError as exc:
        # the error names write_text_atomic's temporary, which the user never asked for
        raise HCLError(f"{output}: cannot write it: {exc.strerror or exc}") from None
    print(f"wrote {output}")
    return 0


def _repository_root(start: Path) -> Path:
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


def _processes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} processes: give at least 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} seconds: give more than 0")
    return value


def _remote_arguments(cmd: argparse.ArgumentParser) -> None:

    where = cmd.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the csim/csynth/cosim jobs on the workers of this Dask scheduler (tcp://host:8786)",
    )
    where.add_argument(
        "--cluster",
        choices=CLUSTERS,
        help="start a Dask cluster for the jobs: dask-jobqueue's, configured by Dask's jobqueue.* "
        "settings, or local worker processes",
    )
    cmd.add_argument(
        "--workers",
        type=_processes,
        default=None,
        metavar="N",
        help="workers --cluster starts (default: this machine's cores for local, 1 for a queue)",
    )
    cmd.add_argument(
        "--worker-timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="how long jobs wait while no worker is connected, e.g. for a queue to start the worker "
        "jobs, before the build fails (default: $HCLBUILD_WORKER_TIMEOUT, else 600)",
    )
    for option, what, setting in (
        ("--tls-ca-file", "the CA certificate that signed the tls:// scheduler's certificate", "ca-file"),
        ("--tls-cert", "this client's certificate, signed by that CA", "client.cert"),
        ("--tls-key", "this client's private key (when not in --tls-cert's file)", "client.key"),
    ):
        cmd.add_argument(
            option,
            type=Path,
            default=None,
            metavar="PEM",
            help=f"{what} (default: Dask's distributed.comm.tls.{setting})",
        )


def _compare_arguments(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--compare",
        metavar="BASE",
        default=None,
        help="compare every function's csim and QoR with BASE (a build folder or a saved summary.json); "
        "PATHS may be build folders or summary.json files too, then nothing is built",
    )
    cmd.add_argument(
        "--fail-on",
        metavar="SPEC",
        default=None,
        help='exit 1 when a function crosses one, e.g. "latency>+5%%,DSP>+10%%,csim" (a failed csim '
        "always does; default: each project's [ci] fail_on)",
    )
    cmd.add_argument(
        "--metrics",
        metavar="FILE",
        type=Path,
        default=None,
        help="write the figures as a metrics report (default under GitLab CI: metrics.txt)",
    )


class _VersionAction(argparse.Action):
    """`--version`: reads the package metadata only when asked (argparse's own action needs it up front)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:

        parser.exit(message=f"hclbuild {package_version()}\n")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="hclbuild",
        description="HeteroCL-compatible kernels -> Vitis HLS projects",
        epilog=f"build folder: {BUILD_FOLDER_RULE}. {EXIT_CODES}",
    )
    # `hclbuild -n 2 csim` like `doit -n 2 csim`; `hclbuild csim -n 2` works too
    top.add_argument(
        "-n",
        "--processes",
        type=_processes,
        default=None,
        dest="top_processes",
        metavar="N",
        help="run up to N tasks at once (doit -n N)",
    )
    top.add_argument(
        "-W",
        dest="warnings",
        choices=WARNING_MODES,
        default=None,
        help=f"-W error: hclbuild's warnings (e.g. an always-false `x < 0` on an unsigned x) are "
        f"errors (default: ${WARNINGS_ENV}, else shown)",
    )
    top.add_argument("--version", action=_VersionAction, help="print hclbuild's version and exit")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    new = sub.add_parser(
        "new",
        help="scaffold a project",
        description="Write DIR/kernel.py and DIR/project.toml "
        "(an example kernel with one outlined stage); refuses an existing project.",
        epilog=EXIT_CODES,
    )
    new.add_argument("dir", metavar="DIR", help="the project folder; its name must be a valid project name")
    new.set_defaults(run=cmd_new)
    for name, text, what in (
        ("build", "emit the HLS projects", "compile, reference run and one Vitis HLS project per function"),
        (
            "csim",
            "C-simulate every function",
            "build, then g++ C simulation of every function, then a summary",
        ),
        ("report", "csim, then summarize", "csim, then reports/report.md and summary.json per project"),
    ):
        cmd = sub.add_parser(
            name,
            help=text,
            description=f"{what[0].upper()}{what[1:]}: the doit tasks of PATHS.",
            epilog=EXIT_CODES,
        )
        cmd.add_argument("paths", nargs="*", metavar="PATHS", help=PATHS_HELP)
        cmd.add_argument(
            "-n",
            "--processes",
            type=_processes,
            default=None,
            metavar="N",
            help="run up to N tasks at once (default: this machine's cores; -n 1 runs one at a time)",
        )
        cmd.add_argument("--build-dir", default=None, metavar="DIR", help=BUILD_DIR_HELP)
        cmd.add_argument(
            "--continue",
            dest="keep_going",
            action="store_true",
            help="keep going after a failed task (the report still shows every function)",
        )
        if name != "build":
            _remote_arguments(cmd)
        if name == "report":
            _compare_arguments(cmd)
        cmd.set_defaults(run=cmd_tasks)
    est = sub.add_parser(
        "estimate",
        help="print every function's QoR estimate",
        description="Compile and emit PATHS where needed, run the estimate tasks, and print every "
        "function's estimated latency, interval and resources (hclbuild's model, not a synthesis "
        "result): a table, or with --json one JSON object {project: {function: estimate}}.",
        epilog=EXIT_CODES,
    )
    est.add_argument("paths", nargs="*", metavar="PATHS", help=PATHS_HELP)
    est.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    est.add_argument(
        "-n",
        "--processes",
        type=_processes,
        default=None,
        metavar="N",
        help="run up to N tasks at once (default: this machine's cores)",
    )
    est.add_argument("--build-dir", default=None, metavar="DIR", help=BUILD_DIR_HELP)
    est.add_argument(
        "--continue", dest="keep_going", action="store_true", help="keep going after a failed task"
    )
    est.set_defaults(run=cmd_estimate)
    lst = sub.add_parser(
        "list",
        help="list the tasks",
        description="Every doit task of PATHS with its description.",
        epilog=EXIT_CODES,
    )
    lst.add_argument("paths", nargs="*", metavar="PATHS", help=PATHS_HELP)
    lst.add_argument("--build-dir", default=None, metavar="DIR", help=BUILD_DIR_HELP)
    lst.set_defaults(run=cmd_list)
    for name, text, what in (
        ("csynth", "Vitis C synthesis of every function (or --function)", "C synthesis"),
        (
            "cosim",
            "Vitis C synthesis and C/RTL co-simulation of every function (or --function)",
            "C synthesis and C/RTL co-simulation",
        ),
    ):
        synth = sub.add_parser(
            name,
            help=text,
            description=f"Vitis HLS {what} of every function of PATHS (or of "
            f"--function) through the doit {name} tasks; needs a Vitis tool here or on the "
            "Dask workers.",
            epilog=EXIT_CODES,
        )
        synth.add_argument("paths", nargs="*", metavar="PATHS", help=PATHS_HELP)
        synth.add_argument("--function", default=None, help="only this function (of every project)")
        synth.add_argument(
            "-n",
            "--processes",
            type=_processes,
            default=None,
            metavar="N",
            help="run up to N tasks at once (with Dask: default the cluster's worker threads)",
        )
        synth.add_argument("--build-dir", default=None, metavar="DIR", help=BUILD_DIR_HELP)
        synth.add_argument(
            "--continue", dest="keep_going", action="store_true", help="keep going after a failed task"
        )
        _remote_arguments(synth)
        synth.set_defaults(run=cmd_csynth)
    explore = sub.add_parser(
        "explore",
        help="design-space exploration: estimate the schedule's knob values, keep the Pareto front",
        description="Compile and estimate (hclbuild's QoR model) kernel.py's schedule at every point "
        "of the knob space that project.toml's [explore] or kernel.py's space(sizes) declares (a "
        "seeded NSGA-II search of large spaces), as cached doit tasks, in parallel or on Dask "
        "workers; writes build/<project>/explore/pareto.md, pareto.json, points.json and pareto.png.",
        epilog=EXIT_CODES,
    )
    explore.add_argument("paths", nargs="*", metavar="PATHS", help=PATHS_HELP)
    explore.add_argument(
        "-n",
        "--processes",
        type=_processes,
        default=None,
        metavar="N",
        help="evaluate up to N points at once (default: this machine's cores)",
    )
    explore.add_argument("--build-dir", default=None, metavar="DIR", help=BUILD_DIR_HELP)
    explore.add_argument(
        "--budget",
        type=_processes,
        default=None,
        metavar="K",
        help="evaluate K points with optuna's NSGA-II (default: every point of a space of up to 256, "
        "else 100)",
    )
    explore.add_argument("--seed", type=int, default=0, help="the search's seed (default 0)")
    explore.add_argument(
        "--objective",
        default="latency,DSP,BRAM_18K,LUT",
        metavar="NAMES",
        help="what to minimize, comma-separated: latency, interval, DSP, BRAM_18K, FF, LUT "
        "(default latency,DSP,BRAM_18K,LUT)",
    )
    explore.add_argument(
        "--csim",
        action="store_true",
        help="C-simulate every Pareto point against the LLVM reference (a build of its own each)",
    )
    explore.add_argument(
        "--csynth",
        action="store_true",
        help="Vitis HLS csynth of every Pareto point's top (a build of its own each), its figures beside "
        "the estimate's; needs a Vitis tool here or Dask workers with one",
    )
    explore.add_argument(
        "--apply",
        type=_processes,
        default=None,
        metavar="N",
        help="write point N of the last exploration's Pareto front into project.toml's [knobs] "
        "(evaluates nothing)",
    )
    explore.add_argument(
        "--continue", dest="keep_going", action="store_true", help="keep going after a failed task"
    )
    _remote_arguments(explore)
    explore.set_defaults(run=cmd_explore)
    ci = sub.add_parser(
        "ci",
        help="write a CI pipeline (GitHub Actions or GitLab CI)",
        description="Write a CI pipeline: csim on any runner, then csynth per function on "
        "runners with Vitis.",
        epilog=EXIT_CODES,
    )
    ci.add_argument("provider", choices=["github", "gitlab"], help="the CI service")
    ci.add_argument("paths", nargs="*", metavar="PATHS", help=PATHS_HELP)
    ci.add_argument("--runner-label", default="vitis", help="label (GitHub) or tag (GitLab) of Vitis runners")
    ci.add_argument(
        "--install",
        default=None,
        help="install commands, one per line (default: pip install -e . of an hclbuild checkout, "
        "else requirements.txt)",
    )
    ci.add_argument(
        "--output",
        default=None,
        help="default .github/workflows/hclbuild.yml (github) or .gitlab-ci.yml (gitlab)",
    )
    ci.set_defaults(run=cmd_ci)
    add_clean_command(sub, CleanParts(_projects, _build_root), PATHS_HELP, BUILD_DIR_HELP, EXIT_CODES)
    return top


class _ReaderGuard:
    """doit's output stream: once its reader goes away (`hclbuild list | head`), what doit writes
    is dropped and the run goes on to its end, where doit printed a BrokenPipeError traceback (or,
    with -n N, left its workers waiting); main then ends with status 141."""

    closed = False  # set by any guard: one run has one output

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if not _ReaderGuard.closed:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                _ReaderGuard.closed = True
        return len(text)

    def flush(self) -> None:
        if not _ReaderGuard.closed:
            try:
                self._stream.flush()
            except BrokenPipeError:
                _ReaderGuard.closed = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    """The hclbuild command; returns the exit status (see EXIT_CODES)."""
    try:
        try:
            code = _main(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not as Python's warning at exit
        if not _ReaderGuard.closed:
            return code
    except BrokenPipeError:
        pass
    # as a shell reports a process that SIGPIPE ended; later flushes must not fail again
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


def _main(argv: list[str] | None) -> int:

    args = parser().parse_args(argv)
    termination.install()
    if args.warnings is not None:
        # the environment reaches the kernel's tracing in the task processes too
        os.environ[WARNINGS_ENV] = args.warnings
    if getattr(args, "processes", None) is None:
        args.processes = args.top_processes
    try:
        return int(args.run(args) or 0)
    except HCLError as exc:
        print(
            f"hclbuild: error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
            file=sys.stderr,
        )
        return 1
    except BrokenPipeError:
        raise  # our output's reader went away: main ends quietly
    except OSError as exc:
        # the file system said no (permissions, a full disk, a file where a folder should be)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"hclbuild: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if "hclbuild.tasks" in sys.modules:
            sys.modules["hclbuild.tasks"].after_interrupt()
        if termination.TERMINATED:
            # 128 + SIGTERM, as a shell reports a process that SIGTERM ended
            print("hclbuild: terminated (SIGTERM)", file=sys.stderr)
            return 128 + termination.TERMINATED[0]
        print("hclbuild: interrupted", file=sys.stderr)
        return 130
