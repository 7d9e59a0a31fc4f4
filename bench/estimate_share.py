"""What the estimate tasks add to a build (issue 26: at most 10 % of its wall time).

Side by side in one run, each from an empty build folder of a copy of projects/: `doit compile
reference emit` (a build without the estimates) and `doit build` (the same plus every function's
estimate task), alternating, one task at a time; medians over the rounds."""

from __future__ import annotations

import shutil
from pathlib import Path

from common import REPO, doit, make_tree, median, ran_tasks

WITHOUT = ("compile", "reference", "emit")


def estimate_share(work: Path, rounds: int = 3) -> dict:
    """Median wall and CPU seconds of a clean build with and without the estimate tasks."""
    work = work.resolve()
    projects = {
        folder.name: folder
        for folder in sorted((REPO / "projects").iterdir())
        if (folder / "kernel.py").is_file()
    }
    root = make_tree(work / "estimate_share", projects)
    without: list[tuple[float, float]] = []
    with_estimates: list[tuple[float, float]] = []
    estimates = 0
    for _ in range(rounds):
        for runs, args in ((without, WITHOUT), (with_estimates, ("build",))):
            shutil.rmtree(root / "build", ignore_errors=True)
            timed = doit(root, *args)
            runs.append((timed.wall, timed.cpu))
            if args == ("build",):
                estimates = len([task for task in ran_tasks(timed.stdout) if task.startswith("estimate:")])
    model = all(
        '"no_estimate"' not in path.read_text() for path in (root / "build").glob("*/estimate/*.json")
    )
    return {
        "projects": len(projects),
        "estimates": estimates,
        "rounds": rounds,
        "without": median([wall for wall, _ in without]),
        "with": median([wall for wall, _ in with_estimates]),
        "without_cpu": median([cpu for _, cpu in without]),
        "with_cpu": median([cpu for _, cpu in with_estimates]),
        "model": model,
    }


def estimate_rows(s: dict) -> list[str]:
    share = s["with"] / s["without"] - 1
    share_cpu = s["with_cpu"] / s["without_cpu"] - 1
    rows = [
        "## The estimate tasks",
        "",
        f"A clean `doit build` of all {s['projects']} projects of projects/ ({s['estimates']} estimate "
        "tasks, one a function) against the same build without them (`doit compile reference emit`), "
        f"alternating from an empty build folder, one task at a time; medians of {s['rounds']} rounds "
        "each. Target: the estimates add at most 10 % to the build's wall time.",
        "",
        "| build | wall (s) | CPU (s) |",
        "|---|---|---|",
        f"| compile + reference + emit | {s['without']:.2f} | {s['without_cpu']:.2f} |",
        f"| `doit build` (+ estimate) | {s['with']:.2f} | {s['with_cpu']:.2f} |",
        f"| share added by the estimates | **{100 * share:+.1f} %** | {100 * share_cpu:+.1f} % |",
        "",
    ]
    if not s["model"]:
        rows += [
            "Measured without the QoR model (hclbuild.compiler.estimate was not in this checkout): "
            "each task wrote the file saying so, so this is the cost of the tasks themselves (doit, "
            "the attempt records, parsing the MLIR), not of the model. Rerun "
            "`python bench/run_all.py estimate` once the model is in.",
            "",
        ]
    return rows
