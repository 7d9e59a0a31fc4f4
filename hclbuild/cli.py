"""The hclbuild command: the same doit tasks as dodo.py, for projects anywhere.

    hclbuild new DIR                 scaffold a project (kernel.py + project.toml)
    hclbuild build|csim|report [PATHS] [-n N] [--build-dir DIR] [--continue]
    hclbuild list [PATHS]
    hclbuild csynth [PATHS] [--function F]   Vitis C synthesis (where a Vitis tool is on PATH)
    hclbuild ci github|gitlab [PATHS] [--runner-label LABEL] [--install CMDS] [--output FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hclbuild.errors import HCLError

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

TOML_TEMPLATE = '''[project]
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
'''


def _projects(paths: list[str]) -> list[Path]:
    from hclbuild.tasks import discover

    found: list[Path] = []
    for raw in paths or ["projects" if Path("projects").is_dir() else "."]:
        path = Path(raw).resolve()
        if not path.exists():
            raise HCLError(f"{raw}: no such project or folder")
        found.extend(discover(path))
    if not found:
        raise HCLError(f"no project (a folder with kernel.py) under {', '.join(paths) or '.'}")
    return sorted(set(found))


def _loader_namespace(projects: list[Path], build_root: Path) -> dict[str, Any]:
    from hclbuild.tasks import doit_config, tasks_for

    def task_hclbuild():  # noqa: ANN202 - doit's protocol
        """All tasks of the given projects."""
        yield from tasks_for(projects, build_root)

    return {"task_hclbuild": task_hclbuild, "DOIT_CONFIG": doit_config(build_root)}


def run_doit(command: list[str], projects: list[Path], build_root: Path) -> int:
    """Run doit with our tasks through its API (same tasks as dodo.py)."""
    from doit.cmd_base import ModuleTaskLoader
    from doit.doit_cmd import DoitMain

    namespace = _loader_namespace(projects, build_root)
    return DoitMain(ModuleTaskLoader(namespace)).run(command)


def summary_rows(projects: list[Path], build_root: Path) -> list[dict[str, Any]]:
    """One row per function: csim pass / FAIL / not run (with the reason), max error, csynth numbers.

    A csim result counts only when every task it comes from succeeded on the files now on disk
    (project.attempts); a pass left by an earlier run of changed or failed inputs is "not run".
    """
    from hclbuild.project.attempts import function_states, known_functions
    from hclbuild.project.config import load_project
    from hclbuild.project.layout import BuildLayout
    from hclbuild.project.vitis_flow import function_reports
    from hclbuild.runtime.report import parse_csynth_xml

    rows = []
    for folder in projects:
        try:
            name = load_project(folder).name
        except HCLError:
            name = folder.name
        layout = BuildLayout(build_root, name)
        for state in function_states(layout, known_functions(layout)):
            row: dict[str, Any] = {"project": name, "function": state.func, "csim": state.state,
                                   "max_abs_err": "-", "latency": "-", "resources": "-",
                                   "reason": state.reason or ""}
            if state.csim is not None:
                row["max_abs_err"] = f"{state.csim.get('max_abs_err', 0):.3g}"
            xml, _ = function_reports(layout, state.func)
            if xml is not None:
                report = parse_csynth_xml(xml)
                row["latency"] = "-" if report.worst_latency is None else str(report.worst_latency)
                row["resources"] = ", ".join(f"{k} {v}" for k, v in (report.resources or {}).items())
            rows.append(row)
    return rows


def print_summary(rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    cols = ["project", "function", "csim", "max_abs_err", "latency", "resources"]
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
            print(f"{row['project']}/{row['function']}: {row['csim']}: {row['reason']}")


def cmd_new(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if (folder / "kernel.py").exists():
        raise HCLError(f"{folder}: already a project (kernel.py exists); nothing written")
    from hclbuild.atomic import write_text_atomic

    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(folder / "kernel.py", KERNEL_TEMPLATE.format(name=folder.resolve().name))
    write_text_atomic(folder / "project.toml", TOML_TEMPLATE)
    print(f"created {folder}/kernel.py and {folder}/project.toml; run: hclbuild csim {folder}")
    return 0


def cmd_tasks(args: argparse.Namespace) -> int:
    projects = _projects(args.paths)
    build_root = Path(args.build_dir).resolve()
    command = {"build": ["build"], "csim": ["csim"], "report": ["csim", "report"]}[args.command]
    options = ["-n", str(args.processes)] if args.processes and args.processes > 1 else []
    if args.keep_going:
        options.append("--continue")
    code = run_doit(options + command, projects, build_root)
    if args.command in ("csim", "report"):
        print_summary(summary_rows(projects, build_root))
    return code


def cmd_list(args: argparse.Namespace) -> int:
    projects = _projects(args.paths)
    return run_doit(["list", "--all"], projects, Path(args.build_dir).resolve())


def cmd_csynth(args: argparse.Namespace) -> int:
    from hclbuild.runtime.vitis import find_vitis
    from hclbuild.tasks import plan

    if find_vitis() is None:
        raise HCLError("no Vitis HLS tool (vitis_hls, vitis-run or v++) on PATH or under $XILINX_HLS/$XILINX_VITIS: "
                       "csynth tasks exist only where one is found")
    projects = _projects(args.paths)
    tasks = []
    for entry in plan(projects):
        if entry.error:
            raise HCLError(entry.error)
        if args.function is not None and args.function not in entry.functions:
            raise HCLError(f"{entry.name}: no function {args.function!r} (functions: {', '.join(entry.functions)})")
        tasks += [f"csynth:{entry.name}/{f}" for f in entry.functions if args.function in (None, f)]
    options = ["-n", str(args.processes)] if args.processes and args.processes > 1 else []
    code = run_doit(options + tasks, projects, Path(args.build_dir).resolve())
    print_summary(summary_rows(projects, Path(args.build_dir).resolve()))
    return code


def cmd_ci(args: argparse.Namespace) -> int:
    from hclbuild.ci import github_workflow, gitlab_pipeline
    from hclbuild.atomic import write_text_atomic
    from hclbuild.tasks import plan

    projects = _projects(args.paths)
    plans = plan(projects)
    broken = [p for p in plans if p.error]
    if broken:
        raise HCLError(broken[0].error or "a project cannot be planned")
    write = github_workflow if args.provider == "github" else gitlab_pipeline
    text = write(plans, runner_label=args.runner_label, root=Path.cwd(), install=args.install)
    output = args.output or (".github/workflows/hclbuild.yml" if args.provider == "github" else ".gitlab-ci.yml")
    args.output = output
    write_text_atomic(Path(output), text)
    print(f"wrote {args.output}")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="hclbuild", description="HeteroCL-compatible kernels -> Vitis HLS projects")
    sub = top.add_subparsers(dest="command", required=True)
    new = sub.add_parser("new", help="scaffold a project")
    new.add_argument("dir")
    new.set_defaults(run=cmd_new)
    for name, text in (("build", "emit the HLS projects"), ("csim", "C-simulate every function"),
                       ("report", "csim, then summarize")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("paths", nargs="*")
        cmd.add_argument("-n", "--processes", type=int, default=1)
        cmd.add_argument("--build-dir", default="build")
        cmd.add_argument("--continue", dest="keep_going", action="store_true",
                         help="keep going after a failed task")
        cmd.set_defaults(run=cmd_tasks)
    lst = sub.add_parser("list", help="list the tasks")
    lst.add_argument("paths", nargs="*")
    lst.add_argument("--build-dir", default="build")
    lst.set_defaults(run=cmd_list)
    synth = sub.add_parser("csynth", help="Vitis C synthesis of every function (or --function)")
    synth.add_argument("paths", nargs="*")
    synth.add_argument("--function", default=None)
    synth.add_argument("-n", "--processes", type=int, default=1)
    synth.add_argument("--build-dir", default="build")
    synth.set_defaults(run=cmd_csynth)
    ci = sub.add_parser("ci", help="write a CI pipeline (GitHub Actions or GitLab CI)")
    ci.add_argument("provider", choices=["github", "gitlab"])
    ci.add_argument("paths", nargs="*")
    ci.add_argument("--runner-label", default="vitis", help="label (GitHub) or tag (GitLab) of Vitis runners")
    ci.add_argument("--install", default=None,
                    help="install commands, one per line (default: pip install -e . of an hclbuild checkout, "
                         "else requirements.txt)")
    ci.add_argument("--output", default=None,
                    help="default .github/workflows/hclbuild.yml (github) or .gitlab-ci.yml (gitlab)")
    ci.set_defaults(run=cmd_ci)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except HCLError as exc:
        print(f"hclbuild: error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
