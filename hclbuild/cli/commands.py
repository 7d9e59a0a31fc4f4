"""The hclbuild commands that run doit tasks or write files: new, build|csim|report, estimate, list,
csynth|cosim, explore, ci (argparse namespaces in, exit status out)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from hclbuild import qor_gate
from hclbuild.atomic import write_text_atomic, write_text_new
from hclbuild.cli.common import (
    compare_with_base,
    find_projects,
    print_report_paths,
    print_summary,
    refuse_broken,
    repository_root,
    run_doit,
    run_tasks,
    summary_rows,
    writable_build_root,
)
from hclbuild.cli.estimate import ProjectEstimates, estimates_json, estimates_table
from hclbuild.errors import HCLError
from hclbuild.project.attempts import known_functions
from hclbuild.project.config import load_project
from hclbuild.project.layout import (
    BuildLayout,
    is_project_name,
)
from hclbuild.runtime import local_cores, remote
from hclbuild.runtime.vitis import find_vitis
from hclbuild.tasks import (
    plan,
)

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


def cmd_tasks(args: argparse.Namespace) -> int:
    if getattr(args, "compare", None) is None and getattr(args, "fail_on", None) is not None:
        raise HCLError("--fail-on needs --compare BASE: a threshold is a change against a base build")
    results_only = args.command == "report" and args.paths and args.compare is not None
    if results_only and all(qor_gate.is_result_path(Path(path)) for path in args.paths):
        # result files only: nothing to build, as in a job that merges other jobs' results
        new = [summary for path in args.paths for summary in qor_gate.load(Path(path))]
        return qor_gate.gate(new, Path(args.compare), args.fail_on, {}, args.metrics)
    projects = find_projects(args.paths)
    build_root = writable_build_root(args, projects)
    if not args.keep_going:
        refuse_broken(projects, build_root)
    command = {"build": ["build"], "csim": ["csim"], "report": ["csim", "report"]}[args.command]
    # like make -j: emit and g++ tasks are independent per function, so every core takes one; Vitis
    # runs (cmd_synth) stay one at a time unless asked, each takes gigabytes
    code = run_tasks(args, projects, build_root, lambda session: command, default_processes=local_cores())
    if args.command in ("csim", "report"):
        rows = summary_rows(projects, build_root)
        print_summary(rows)
        print_report_paths(projects, build_root)
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
            return max(code, compare_with_base(args, projects, build_root))
    return code


def cmd_estimate(args: argparse.Namespace) -> int:
    """Run the estimate tasks (compile and emit first where needed), then print every function's
    estimate: a table, or with --json one JSON object and nothing else on stdout."""
    projects = find_projects(args.paths)
    build_root = writable_build_root(args, projects)
    if not args.keep_going:
        refuse_broken(projects, build_root)
    # doit's progress goes to stderr: stdout is the table or the JSON alone
    with contextlib.redirect_stdout(sys.stderr):
        code = run_tasks(args, projects, build_root, lambda session: ["estimate"], local_cores())
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
    projects = find_projects(args.paths)
    return run_doit(["list", "--all"], projects, writable_build_root(args, projects))


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
    projects = find_projects(args.paths)
    build_root = writable_build_root(args, projects)
    code = run_tasks(args, projects, build_root, lambda session: _vitis_tasks(args, projects, session))
    print_summary(summary_rows(projects, build_root))
    return code


def cmd_explore(args: argparse.Namespace) -> int:
    # only for `hclbuild explore`: it compiles and estimates in this process's children, so it
    # imports the compiler, which every other command's start (a no-op build above all) must not load
    from hclbuild.cli.explore import run_explore

    try:
        return run_explore(args)
    finally:
        remote.stop()


def cmd_ci(args: argparse.Namespace) -> int:
    # only for `hclbuild ci`: its templates need jinja2, which a no-op build through this command must not load
    from hclbuild.cli.ci import github_workflow, gitlab_pipeline

    projects = find_projects(args.paths)
    plans = plan(projects)
    broken = [p for p in plans if p.error]
    if broken:
        raise HCLError(broken[0].error or "a project cannot be planned")
    write = github_workflow if args.provider == "github" else gitlab_pipeline
    # the pipeline runs at the top of the repository, and GitHub and GitLab read its file there
    root = repository_root(Path.cwd())
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
