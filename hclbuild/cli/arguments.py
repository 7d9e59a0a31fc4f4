"""hclbuild's command line: the argument parser of every command, and the checks of its values."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hclbuild import package_version
from hclbuild.cli.clean import add_clean_command
from hclbuild.cli.commands import (
    cmd_ci,
    cmd_csynth,
    cmd_estimate,
    cmd_explore,
    cmd_list,
    cmd_new,
    cmd_tasks,
)
from hclbuild.cli.common import BUILD_DIR_HELP, EXIT_CODES, PATHS_HELP
from hclbuild.project.layout import (
    BUILD_FOLDER_RULE,
)
from hclbuild.runtime.dask_clusters import CLUSTERS
from hclbuild.warning_modes import MODES as WARNING_MODES
from hclbuild.warning_modes import WARNINGS_ENV


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


def _project_arguments(
    cmd: argparse.ArgumentParser, *, processes: str, keep_going: str = "keep going after a failed task"
) -> None:
    """PATHS, -n N (`processes` says what N counts), --build-dir and --continue: what every command
    that runs tasks takes."""
    cmd.add_argument("paths", nargs="*", metavar="PATHS", help=PATHS_HELP)
    cmd.add_argument("-n", "--processes", type=_processes, default=None, metavar="N", help=processes)
    cmd.add_argument("--build-dir", default=None, metavar="DIR", help=BUILD_DIR_HELP)
    cmd.add_argument("--continue", dest="keep_going", action="store_true", help=keep_going)


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
        # on stdout, as argparse's own version action prints (parser.exit's message goes to stderr,
        # so `v=$(hclbuild --version)` was empty)
        print(f"hclbuild {package_version()}")
        parser.exit()


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
        _project_arguments(
            cmd,
            processes="run up to N tasks at once (default: this machine's cores; -n 1 runs one at a time)",
            keep_going="keep going after a failed task (the report still shows every function)",
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
    _project_arguments(est, processes="run up to N tasks at once (default: this machine's cores)")
    est.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
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
        _project_arguments(
            synth, processes="run up to N tasks at once (with Dask: default the cluster's worker threads)"
        )
        synth.add_argument("--function", default=None, help="only this function (of every project)")
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
    _project_arguments(explore, processes="evaluate up to N points at once (default: this machine's cores)")
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
    add_clean_command(sub)
    return top
