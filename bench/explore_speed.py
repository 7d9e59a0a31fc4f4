"""`hclbuild explore` on gemm's 64-point space (issue 27): cold, rerun, one value added.

Side by side in one run, each round in a fresh copy of projects/gemm with a build folder of its own:

- cold: `hclbuild explore gemm -n 2`, every point compiled and estimated (64 tasks);
- rerun: the same command again, nothing changed (target: no task runs);
- one value added: `unroll = [2, 1, 4, 8, 16]`, the 16 points that value adds and none other;
- beside them, `hclbuild build gemm` of the same copy from an empty build folder (compile,
  reference, emit, estimate of its 2 functions): what one point may cost at most (issue 27).

Each a subprocess as a user runs it; wall and CPU seconds, the tasks that ran (doit's [k/N] lines),
the load average before and after each round. Medians over the rounds.

    python bench/explore_speed.py       # prints the rows; `bench/run_all.py explore` writes them to BENCHMARKS.md
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, Timed, load_average, median, ran_tasks, run

GEMM = REPO / "projects" / "gemm"
PROCESSES = "2"
ADDED = 16  # the value added to gemm's unroll list


def _hclbuild(root: Path, *args: str) -> Timed:
    return run([sys.executable, "-m", "hclbuild.cli", *args], root)


def _explored(timed: Timed) -> int:
    return len([task for task in ran_tasks(timed.stdout) if task.startswith("explore:")])


def explore_speed(work: Path, rounds: int = 3) -> dict:
    """Median wall/CPU seconds and tasks run of each step, over `rounds` fresh copies of gemm."""
    work = work.resolve()
    steps: dict[str, list[tuple[float, float, int]]] = {"cold": [], "rerun": [], "added": [], "build": []}
    loads: list[tuple[str, str]] = []
    points = {}
    for number in range(rounds):
        root = work / f"round{number}"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(GEMM, root / "gemm", ignore=shutil.ignore_patterns("__pycache__"))
        before = load_average()
        explore = ("explore", "gemm", "-n", PROCESSES, "--build-dir", "build")
        for step in ("cold", "rerun"):
            timed = _hclbuild(root, *explore)
            steps[step].append((timed.wall, timed.cpu, _explored(timed)))
        toml = root / "gemm" / "project.toml"
        old = "unroll = [2, 1, 4, 8]"
        text = toml.read_text()
        if old not in text:
            raise RuntimeError(f"{toml}: no line {old!r} to add a value to")
        toml.write_text(text.replace(old, f"unroll = [2, 1, 4, 8, {ADDED}]"))
        timed = _hclbuild(root, *explore)
        steps["added"].append((timed.wall, timed.cpu, _explored(timed)))
        listed = json.loads((root / "build" / "gemm" / "explore" / "points.json").read_text())
        points = {"space": listed["space_size"], "estimated": listed["estimated"]}
        toml.write_text(text)  # the build uses [knobs], as in projects/
        timed = _hclbuild(root, "build", "gemm", "--build-dir", "build_only")
        steps["build"].append((timed.wall, timed.cpu, len(ran_tasks(timed.stdout))))
        loads.append((before, load_average()))
        print(
            f"  round {number + 1}: " + ", ".join(f"{k} {v[-1][0]:.2f} s" for k, v in steps.items()),
            flush=True,
        )
    return {
        "rounds": rounds,
        "cores": os.cpu_count(),
        "loads": loads,
        "points_after_adding": points,
        **{
            step: {
                "wall": median([w for w, _, _ in runs]),
                "cpu": median([c for _, c, _ in runs]),
                "tasks": sorted({t for _, _, t in runs}),
            }
            for step, runs in steps.items()
        },
    }


def explore_rows(s: dict) -> list[str]:
    cold = s["cold"]
    per_point = cold["wall"] / 64
    loads = "; ".join(f"{a} -> {b}" for a, b in s["loads"])

    def tasks(step: str) -> str:
        return " / ".join(str(t) for t in s[step]["tasks"])

    return [
        "## Design-space exploration",
        "",
        f"`hclbuild explore gemm -n {PROCESSES}` on gemm's unroll x partition x II space (64 points, SMALL "
        "sizes, every point compiled and estimated by the QoR model: the figures the sweep produces are "
        "estimated, the times below are measured), each round in a fresh copy of projects/gemm: cold, "
        f"then the same command again, then with {ADDED} added to the unroll list (80 points); beside "
        "them `hclbuild build gemm` from an empty build folder. Each step a subprocess as a user runs it "
        f"(the interpreter's start and imports included); medians of {s['rounds']} rounds on "
        f"{s['cores']} cores. Load average (1/5/15 min) before -> after each round: {loads}. "
        "Targets (issue 27): the cold sweep under 30 s, a rerun runs no task, a point costs at most one "
        "build.",
        "",
        "| step | points evaluated (tasks run) | wall (s) | CPU (s) |",
        "|---|---|---|---|",
        f"| cold: 64 points | {tasks('cold')} | **{cold['wall']:.2f}** | {cold['cpu']:.2f} |",
        f"| rerun, nothing changed | {tasks('rerun')} | **{s['rerun']['wall']:.2f}** | {s['rerun']['cpu']:.2f} |",
        f"| unroll {ADDED} added (80 points) | {tasks('added')} | **{s['added']['wall']:.2f}** | "
        f"{s['added']['cpu']:.2f} |",
        f"| `hclbuild build gemm`, one design | {tasks('build')} tasks | {s['build']['wall']:.2f} | "
        f"{s['build']['cpu']:.2f} |",
        "",
        f"{64 / cold['wall']:.1f} points a second cold ({per_point:.3f} s a point on {PROCESSES} processes, "
        f"{cold['cpu'] / 64:.3f} CPU s); one point costs {per_point / s['build']['wall']:.2f} of one build's "
        "wall time. The rerun's seconds are the command's start, reading the knob space in a child "
        "and doit checking 64 digests; adding a value runs only the points it adds.",
        "",
    ]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-explore-") as tmp:
        print("\n".join(explore_rows(explore_speed(Path(tmp)))))
