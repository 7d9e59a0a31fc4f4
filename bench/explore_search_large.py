"""`--budget 50` on a 10,000-point space against that space's exhaustive front (issue 27's figure).

The space: gemm at SMALL sizes with unroll 1..20 x partition 1..20 x II 1..25 = 10,000 points (a
copy of projects/gemm with this [explore]; kernel.py as it is). Every value is one the schedule
takes: unroll splits j with a remainder where 70 is no multiple, partition cuts B and prod into
that many cyclic banks, II is asked of the pipelined loop.

How the exhaustive front is made cheap enough (the estimate-only path): each point is estimated by
explore_points.evaluate_point_here, the compile and estimate every explore task runs in its child,
here in the measuring process itself (no doit task, no child process, no point file a point), the
compiler warmed once and the points split over 2 forked processes: 0.035 s a point instead of the
command's 0.09 s wall / 0.16 CPU s. The search is explore_search.run_search with
search_plan(space, 50, seed), the NSGA-II the command runs, whose evaluate callback looks the points
up in the exhaustive table. The shortcut is checked, not assumed: `hclbuild explore --budget 50
--seed 0` on the copy, run as a user runs it, must evaluate the same 50 points in the same order
with the same figures, or the measurement stops.

Quality: explore_search.relative_hypervolume, as the 125-point measurement (bench/explore_speed.py):
the found front's hypervolume over the exhaustive front's, both normalized by the exhaustive
points' range, reference point 1.1, objectives latency, DSP, BRAM_18K, LUT (estimated).

    python bench/explore_search_large.py   # prints the rows; `bench/run_all.py explore` writes them
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, load_average, median, run

sys.path.insert(0, str(REPO))
from hclbuild.project.config import Project, load_project
from hclbuild.project.explore_points import PointResult, evaluate_point_here, read_point, warm_compiler
from hclbuild.project.explore_search import (
    DEFAULT_OBJECTIVES,
    pareto_front,
    relative_hypervolume,
    run_search,
    search_plan,
)
from hclbuild.project.knobs import KnobSpace, KnobValue, all_points, point_key, space_size

GEMM = REPO / "projects" / "gemm"
SPACE: KnobSpace = {
    "unroll": list(range(1, 21)),
    "partition": list(range(1, 21)),
    "ii": list(range(1, 26)),
}
BUDGET = 50
SEEDS = (0, 1, 2, 3, 4)
PROCESSES = 2

_PROJECT: list[Project] = []  # the forked workers' project (set before the pool forks)


def _copy_of_gemm(root: Path) -> Path:
    """projects/gemm with [explore] = SPACE (its [knobs] kept: each is one of the values)."""
    folder = root / "gemm"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(GEMM, folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "project.toml"
    text = toml.read_text()
    start, end = text.index("[explore]"), text.index("[knobs]")
    table = "".join(f"{name} = {json.dumps(values)}\n" for name, values in SPACE.items())
    toml.write_text(text[:start] + "[explore]\n" + table + "\n" + text[end:])
    return folder


def _estimate(knobs: dict[str, KnobValue]) -> PointResult:
    return evaluate_point_here(_PROJECT[0], knobs)


def exhaustive(project: Project) -> tuple[list[PointResult], float, float]:
    """Every point's estimate, in the space's order; wall seconds and CPU seconds (all processes)."""
    _PROJECT[:] = [project]
    warm_compiler()  # before the fork, as the command does (explore_points.warm_compiler)
    points = list(all_points(SPACE))
    start, cpu = time.perf_counter(), os.times()
    with multiprocessing.get_context("fork").Pool(PROCESSES) as pool:
        results = pool.map(_estimate, points, chunksize=50)
    end = os.times()
    spent = (end.user - cpu.user) + (end.system - cpu.system)
    spent += (end.children_user - cpu.children_user) + (end.children_system - cpu.children_system)
    return results, time.perf_counter() - start, spent


def searched(table: dict[str, PointResult], seed: int) -> list[PointResult]:
    """The points run_search's NSGA-II evaluates with --budget BUDGET --seed seed, looked up."""

    def evaluate(points: list[dict[str, KnobValue]]) -> list[PointResult]:
        return [table[point_key(knobs)] for knobs in points]

    return run_search(SPACE, search_plan(SPACE, BUDGET, seed), evaluate, DEFAULT_OBJECTIVES)


def check_against_the_command(root: Path, found: list[PointResult]) -> float:
    """`hclbuild explore --budget BUDGET --seed 0` on the copy: the same points, order and figures
    as the in-process search of seed 0 (RuntimeError otherwise); its wall seconds."""
    timed = run(
        [sys.executable, "-m", "hclbuild.cli", "explore", "gemm", "--budget", str(BUDGET), "--seed", "0"]
        + ["-n", str(PROCESSES), "--build-dir", "build"],
        root,
    )
    listed = json.loads((root / "build" / "gemm" / "explore" / "points.json").read_text())
    points_dir = root / "build" / "gemm" / "explore" / "points"
    command = [read_point(points_dir / f"{row['key']}.json") for row in listed["points"]]

    def figures(point: PointResult | None) -> tuple:
        if point is None:
            return ()
        return (point.key, point.latency, point.interval, point.resources)

    if [figures(p) for p in command] != [figures(p) for p in found]:
        raise RuntimeError("the command's --budget search differs from the in-process one")
    return timed.wall


def search_quality_large(work: Path) -> dict:
    root = work.resolve() / "search-large"
    folder = _copy_of_gemm(root)
    project = load_project(folder)
    load_before = load_average()
    every, wall, cpu = exhaustive(project)
    load_after = load_average()
    table = {point.key: point for point in every}
    started = time.perf_counter()
    front = pareto_front(every, DEFAULT_OBJECTIVES)
    front_seconds = time.perf_counter() - started
    runs = {seed: searched(table, seed) for seed in SEEDS}
    ratios = {seed: relative_hypervolume(found, every, DEFAULT_OBJECTIVES) for seed, found in runs.items()}
    found_fronts = {seed: len(pareto_front(found, DEFAULT_OBJECTIVES)) for seed, found in runs.items()}
    command_wall = check_against_the_command(root, runs[0])
    return {
        "space": space_size(SPACE),
        "evaluated": len(every),
        "wall": wall,
        "cpu": cpu,
        "front": len(front),
        "front_seconds": front_seconds,
        "ratios": ratios,
        "found_fronts": found_fronts,
        "command_wall": command_wall,
        "load": (load_before, load_after),
    }


def search_large_rows(q: dict) -> list[str]:
    values = list(q["ratios"].values())
    return [
        f"`--budget {BUDGET}` on a space of {q['space']:,} points: gemm (SMALL) with unroll 1..20 x "
        "partition 1..20 x II 1..25. The exhaustive front is made by estimating every point in the "
        "measuring process (`explore_points.evaluate_point_here`: the compile and estimate each "
        "explore task runs in its child, without the doit task, the child process and the point file), "
        f"the compiler warmed once and the points split over {PROCESSES} forked processes: "
        f"{q['evaluated']:,} points in {q['wall']:.0f} s ({q['wall'] / q['evaluated'] * 1000:.0f} ms a "
        f"point, {q['cpu'] / q['evaluated'] * 1000:.0f} CPU ms; load average {q['load'][0]} -> "
        f"{q['load'][1]}), {q['front']} of them on the front. The "
        f"search is `run_search` with `search_plan(space, {BUDGET}, seed)`, the NSGA-II `hclbuild explore "
        f"--budget {BUDGET} --seed S` runs, looking its points up in that table; `hclbuild explore "
        f"--budget {BUDGET} --seed 0` run as a user runs it ({q['command_wall']:.1f} s) evaluated the same "
        f"{BUDGET} points in the same order with the same figures. Relative hypervolume as above "
        "(normalized by the exhaustive points' range, reference point 1.1). Target (issue 27): >= 0.90.",
        "",
        "| seed | " + " | ".join(str(seed) for seed in q["ratios"]) + " | median |",
        "|---|" + "---|" * (len(values) + 1),
        f"| relative hypervolume, {BUDGET} of {q['space']:,} points | "
        + " | ".join(f"{v:.3f}" for v in values)
        + f" | **{median(values):.3f}** |",
        "| points on the front found | "
        + " | ".join(str(n) for n in q["found_fronts"].values())
        + f" | {statistics.median(q['found_fronts'].values()):g} |",
        "",
        f"{sum(v >= 0.90 for v in values)} of {len(values)} seeds reach 0.90 with {BUDGET} points "
        f"({100 * BUDGET / q['space']:.1f} % of the space); the median is the figure the target is "
        "read against, the spread is what one seed may give.",
        "",
    ]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-explore-large-") as tmp:
        print("\n".join(search_large_rows(search_quality_large(Path(tmp)))))
