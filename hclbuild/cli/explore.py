"""`hclbuild explore`: the design points of each project's knob space as doit tasks (explore:<p>@<key>),
searched exhaustively or by NSGA-II (hclbuild.project.explore_search), the results and the Pareto
front written to build/<p>/explore/ (hclbuild.project.explore_results), a summary printed.

The command's shared parts (finding projects, the build folder, Dask, doit) are hclbuild.cli.common's.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hclbuild.cli.common import find_projects, parallel_options, remote_session, run_doit, writable_build_root
from hclbuild.errors import ConfigError, ToolError
from hclbuild.project.config import Project
from hclbuild.project.explore_front import copies_build_root, csim_verdict, csynth_figures, write_copies
from hclbuild.project.explore_points import ESTIMATED, PointResult, point_digest, read_point, warm_compiler
from hclbuild.project.explore_results import (
    Exploration,
    FrontChecks,
    apply_point,
    chosen_point,
    front_rows,
    front_table,
    write_exploration,
)
from hclbuild.project.explore_search import check_objectives, pareto_front, run_search, search_plan
from hclbuild.project.kernel import chosen_knobs, knob_space, load_kernel
from hclbuild.project.knobs import KnobSpace, KnobValue, point_key, space_size
from hclbuild.project.layout import BuildLayout
from hclbuild.project.written import record_written, task_entries
from hclbuild.runtime import local_cores
from hclbuild.runtime.isolate import run_isolated
from hclbuild.runtime.vitis import find_vitis
from hclbuild.tasks import SOURCES_STAMP, plan, source_fingerprint
from hclbuild.tasks.explore import TASK_BASENAME, explore_tasks


def run_explore(args: argparse.Namespace) -> int:
    projects = find_projects(args.paths)
    build_root = writable_build_root(args, projects)
    if args.apply is not None:
        return _apply(projects, build_root, args.apply)
    objectives = check_objectives([name.strip() for name in args.objective.split(",") if name.strip()])
    session = remote_session(args)
    if args.csynth and session is None and find_vitis() is None:
        raise ToolError(
            "explore --csynth: no Vitis HLS tool (vitis_hls, vitis-run or v++) on PATH or under "
            "$XILINX_HLS/$XILINX_VITIS (or Dask workers with one: --scheduler)"
        )
    options = parallel_options(args, session, local_cores())
    if session is None:
        warm_compiler()  # before doit forks its workers (explore_points.warm_compiler)
    fingerprint = source_fingerprint(build_root / SOURCES_STAMP)
    code = 0
    for entry in plan(projects, build_root, fingerprint):
        if entry.error:
            raise ConfigError(entry.error)
        project = Project.from_plan(entry)
        space = _space(project)
        layout = BuildLayout(build_root, project.name)
        # explore/ is hclbuild's whole: listed before it is written, so every clean finds it
        record_written(layout, task_entries("explore", None, []))
        search = search_plan(space, args.budget, args.seed)
        ran: list[int] = []

        def evaluate(
            points: list[dict[str, KnobValue]], project: Project = project, inputs: list[str] = entry.inputs
        ) -> list[PointResult]:
            return _evaluate(
                options,
                project,
                inputs,
                fingerprint,
                build_root,
                points,
                ran,  # noqa: B023  # called within this iteration only
                keep_going=True,
            )

        results = run_search(space, search, evaluate, objectives)
        front = pareto_front(results, objectives)
        exploration = Exploration(
            project, search.method, search.seed, space_size(space), objectives, tuple(results), tuple(front)
        )
        checks = (
            _check_front(options, project, entry.inputs, build_root, front, args)
            if args.csim or args.csynth
            else FrontChecks()
        )
        written = write_exploration(layout, exploration, checks)
        _print_summary(exploration, sum(ran), checks, written, objectives)
        failed = [r for r in results if r.status != ESTIMATED]
        if failed or not checks.passed():
            code = 1
    return code


def _space(project: Project) -> KnobSpace:
    space, _ = run_isolated(
        _space_of,
        project,
        what=f"{project.name}: reading the knob space",
        timeout=project.config.reference_timeout,
    )
    if not space:
        raise ConfigError(
            f"{project.name}: declares no knobs to explore ([explore] in project.toml, or def space(sizes) in kernel.py)"
        )
    return space


def _space_of(project: Project) -> tuple[KnobSpace, str]:
    # in a child: kernel.py's code (space(), its imports) never runs in the command's own process
    module = load_kernel(project)
    chosen_knobs(project, module)  # schedule() takes knobs and [knobs] fits the space, before any point runs
    return knob_space(project, module)


def _evaluate(
    options: list[str],
    project: Project,
    inputs: list[str],
    fingerprint: str,
    build_root: Path,
    points: list[dict[str, KnobValue]],
    ran: list[int],
    keep_going: bool,
) -> list[PointResult]:
    """Run the points' tasks (those not up to date) and read their results back."""
    if not points:
        return []
    layout = BuildLayout(build_root, project.name)
    digests = [(knobs, point_digest(project, inputs, fingerprint, knobs)) for knobs in points]
    before = {key: _stamp(layout.explore_point(key)) for key in (point_key(k) for k in points)}

    def tasks() -> Iterator[dict[str, Any]]:
        yield from explore_tasks(project, layout, digests)

    names = [f"{TASK_BASENAME}:{project.name}@{point_key(knobs)}" for knobs in points]
    command = [*options, *(["--continue"] if keep_going else []), *names]
    run_doit(command, [project.dir], build_root, tasks=tasks)
    results = []
    for knobs, digest in digests:
        key = point_key(knobs)
        path = layout.explore_point(key)
        found = read_point(path)
        if found is None or found.digest != digest:
            raise ConfigError(f"{project.name}@{key}: the point's task wrote no result ({path})")
        results.append(found)
    ran.append(sum(_stamp(layout.explore_point(key)) != stamp for key, stamp in before.items()))
    return results


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_ino


def _check_front(
    options: list[str],
    project: Project,
    inputs: list[str],
    build_root: Path,
    front: list[PointResult],
    args: argparse.Namespace,
) -> FrontChecks:
    """--csim and --csynth: a copy of the project for each front point, [knobs] set to it
    (hclbuild.project.explore_front), their csim / csynth:<copy>/<top> tasks in one doit run (in
    parallel, on Dask with a scheduler), and what their builds say read back."""
    estimated = [point for point in front if point.top is not None]
    if not estimated:
        return FrontChecks()
    layout = BuildLayout(build_root, project.name)
    copies = write_copies(project, inputs, layout, estimated)
    copies_root = copies_build_root(layout)
    tasks = ["csim"] if args.csim else []
    if args.csynth:
        tasks += [f"csynth:{copy.name}/{copy.point.top}" for copy in copies]
    # a failed csim or csynth is that point's verdict, read back below: the others still run
    run_doit([*options, "--continue", *tasks], [copy.folder for copy in copies], copies_root)
    return FrontChecks(
        csim={c.point.key: csim_verdict(copies_root, c, str(c.point.top)) for c in copies}
        if args.csim
        else None,
        csynth={c.point.key: csynth_figures(copies_root, c, str(c.point.top)) for c in copies}
        if args.csynth
        else None,
    )


def _apply(projects: list[Path], build_root: Path, number: int) -> int:
    if len(projects) != 1:
        raise ConfigError(f"--apply takes one project, got {len(projects)}: name its folder")
    from_plan = plan(projects, build_root)[0]
    if from_plan.error:
        raise ConfigError(from_plan.error)
    project = Project.from_plan(from_plan)
    knobs = chosen_point(BuildLayout(build_root, project.name), number)
    apply_point(project, knobs)
    print(f"{project.toml_path}: [knobs] {point_key(knobs)} (point {number} of the Pareto front, estimated)")
    return 0


def _print_summary(
    exploration: Exploration,
    ran: int,
    checks: FrontChecks,
    written: list[Path],
    objectives: tuple[str, ...],
) -> None:
    summary = exploration.summary()
    failed = [r for r in exploration.results if r.status != ESTIMATED]
    method = "every point" if summary["method"] == "exhaustive" else f"NSGA-II, seed {summary['seed']}"
    print(
        f"\n{exploration.project.name}: {summary['evaluated']} of {summary['space_size']} points ({method}), "
        f"{ran} evaluated now, {summary['estimated']} estimated, {len(failed)} failed"
    )
    confirmed = ", csynth beneath" if checks.csynth is not None else ""
    print(f"Pareto front, estimated{confirmed} ({', '.join(objectives)}):")
    for line in front_table(front_rows(exploration, checks), objectives):
        print(line)
    for result in failed:
        print(f"hclbuild: error: {result.error}", file=sys.stderr)
    print(f"wrote {', '.join(str(path) for path in written)}")


__all__ = ["run_explore"]
