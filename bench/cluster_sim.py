"""The makespan of a 1,000-function design's csynth on W cluster workers, by discrete-event simulation.

No cluster runs here: this simulates doit's task graph as hclbuild defines it (each function's emit,
csim and csynth, function after function in the design's order; see hclbuild/tasks/definitions.py)
with doit `-n W` threads, each waiting on its job on one of W Dask workers, for W = 1 .. 256; a
free thread takes the first ready task in doit's list. It compares two orders of that list:

- the design's order (hclbuild without estimates): the csynth tasks come in the design's function
  order, unrelated to how long each synthesis takes (the drawn sizes are in random order);
- longest estimated first (what hclbuild.tasks.synthesis_order does when every function has an
  estimate): every emit and csim in the design's order, then the csynth tasks by estimated time,
  largest first (list scheduling's LPT rule), the estimate off by a log-normal factor.

Where the numbers come from:

- A function's size is LUT + FF of a real Vitis report: the csynth reports of calibration/ that give both (34)
  (LAP, HLSFactory and a held-out kernel; 101 to 180,100 FF, 189 to 147,707 LUT), resampled for
  1,000 functions with a log-normal jitter (sigma SIZE_JITTER) so that no two are the same.
- csynth seconds = CSYNTH_FLOOR_S + size / CELLS_PER_SECOND. No report in calibration/ records how
  long its run took, so the rate is an assumption, chosen so that the smallest kernel takes about
  half a minute and the largest close to an hour: Vitis csynth takes minutes to hours per function.
- The estimate hclbuild has before any synthesis (its QoR model, estimate/<func>.json) is the true
  time times exp(N(0, sigma)), sigma in ESTIMATE_ERRORS: 0 (exact), 0.5 and 1.0 (off by a factor
  of 1.6 and 2.7 at one sigma).
- emit runs in the doit process (EMIT_S), csim on a worker (CSIM_S); neither matters at this scale.
- Submitting a job and shipping its folder cost nothing here; a real scheduler adds seconds per job.

    python bench/cluster_sim.py          # prints the table; bench/run_all.py cluster writes BENCHMARKS.md
"""

from __future__ import annotations

import heapq
import json
import math
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FUNCTIONS = 1000
WORKERS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
SEEDS = 5  # designs drawn; every figure is the mean over them
SIZE_JITTER = 0.3
CSYNTH_FLOOR_S = 30.0
CELLS_PER_SECOND = 100.0
EMIT_S = 0.5
CSIM_S = 5.0
ESTIMATE_ERRORS = (0.0, 0.5, 1.0)
PLOT = REPO / "bench" / "cluster_sim.png"


@dataclass(frozen=True)
class SimTask:
    """One doit task: how long it runs, where, what it waits for, its place in doit's task list."""

    name: str
    seconds: float
    on_worker: bool  # a Dask job (csim, csynth) or work in the doit process (emit)
    deps: tuple[int, ...]
    estimate: float = 0.0  # estimated seconds (csynth only); what longest-first sorts by


@dataclass(frozen=True)
class Outcome:
    makespan: float
    busy: float  # worker-seconds spent on jobs

    def utilisation(self, workers: int) -> float:
        return self.busy / (workers * self.makespan)


def report_sizes() -> list[float]:
    """LUT + FF of every csynth report in calibration/."""
    sizes = []
    for path in sorted(REPO.glob("calibration/*/*/vitis.json")):
        resources = json.loads(path.read_text()).get("resources") or {}
        if resources.get("LUT") is not None and resources.get("FF") is not None:
            sizes.append(float(resources["LUT"] + resources["FF"]))
    if not sizes:
        raise SystemExit("no csynth report with LUT and FF in calibration/*/*/vitis.json")
    return sizes


def design(seed: int, sizes: list[float], estimate_error: float) -> list[SimTask]:
    """doit's tasks for a FUNCTIONS-function design in the design's order: emit, csim, csynth of each."""
    rng = random.Random(seed)
    csynth_s = [
        CSYNTH_FLOOR_S + rng.choice(sizes) * math.exp(rng.gauss(0, SIZE_JITTER)) / CELLS_PER_SECOND
        for _ in range(FUNCTIONS)
    ]
    noise = random.Random(seed * 7919 + round(estimate_error * 1000))
    tasks = []
    for i, seconds in enumerate(csynth_s):
        emit = len(tasks)
        estimate = seconds * math.exp(noise.gauss(0, estimate_error)) if estimate_error else seconds
        tasks += [
            SimTask(f"emit:f{i}", EMIT_S, False, ()),
            SimTask(f"csim:f{i}", CSIM_S, True, (emit,)),
            SimTask(f"csynth:f{i}", seconds, True, (emit,), estimate),
        ]
    return tasks


def simulate(tasks: list[SimTask], workers: int, longest_first: bool) -> Outcome:
    """Run `tasks` with doit -n `workers` threads, each holding a worker while its job runs.

    A thread that is free takes the first ready task in doit's task list; with `longest_first` that
    list holds every emit and csim first, then the csynth tasks by estimate, largest first."""
    if longest_first:
        rank = {
            i: (1, -task.estimate, i) if task.name.startswith("csynth:") else (0, 0.0, i)
            for i, task in enumerate(tasks)
        }
    else:
        rank = {i: (0, 0.0, i) for i in range(len(tasks))}
    waiting_on = [len(task.deps) for task in tasks]
    dependants: dict[int, list[int]] = {}
    for i, task in enumerate(tasks):
        for dep in task.deps:
            dependants.setdefault(dep, []).append(i)
    ready = [rank[i] for i, count in enumerate(waiting_on) if count == 0]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []  # (finish time, task)
    now = busy = 0.0
    done = 0
    while done < len(tasks):
        while ready and len(running) < workers:
            index = heapq.heappop(ready)[-1]
            heapq.heappush(running, (now + tasks[index].seconds, index))
            if tasks[index].on_worker:
                busy += tasks[index].seconds
        now, index = heapq.heappop(running)
        done += 1
        for after in dependants.get(index, ()):
            waiting_on[after] -= 1
            if waiting_on[after] == 0:
                heapq.heappush(ready, rank[after])
    return Outcome(now, busy)


@dataclass(frozen=True)
class Row:
    workers: int
    lower_bound_h: float  # max(work / W, longest job): no order does better
    default_h: float
    default_use: float
    longest_first_h: dict[float, float]  # estimate error -> makespan
    longest_first_use: dict[float, float]


def rows() -> list[Row]:
    sizes = report_sizes()
    found = []
    for workers in WORKERS:
        bound, default, default_use = [], [], []
        longest: dict[float, list[float]] = {error: [] for error in ESTIMATE_ERRORS}
        longest_use: dict[float, list[float]] = {error: [] for error in ESTIMATE_ERRORS}
        for seed in range(SEEDS):
            tasks = design(seed, sizes, 0.0)
            work = sum(task.seconds for task in tasks if task.on_worker)
            bound.append(max(work / workers, *(task.seconds for task in tasks)))
            plain = simulate(tasks, workers, longest_first=False)
            default.append(plain.makespan)
            default_use.append(plain.utilisation(workers))
            for error in ESTIMATE_ERRORS:
                outcome = simulate(design(seed, sizes, error), workers, longest_first=True)
                longest[error].append(outcome.makespan)
                longest_use[error].append(outcome.utilisation(workers))
        found.append(
            Row(
                workers,
                statistics.mean(bound) / 3600,
                statistics.mean(default) / 3600,
                statistics.mean(default_use),
                {error: statistics.mean(values) / 3600 for error, values in longest.items()},
                {error: statistics.mean(values) for error, values in longest_use.items()},
            )
        )
    return found


def table(found: list[Row]) -> list[str]:
    errors = " | ".join(f"longest first, est. sigma {e:g}" for e in ESTIMATE_ERRORS)
    lines = [
        f"| workers | lower bound (h) | the design's order (h) | {errors} | utilisation: the design's order | "
        f"utilisation: longest first, sigma {ESTIMATE_ERRORS[1]:g} |",
        "|---" * (5 + len(ESTIMATE_ERRORS)) + "|",
    ]
    for row in found:
        longest = " | ".join(
            f"{row.longest_first_h[e]:.2f} ({row.longest_first_h[e] / row.default_h:.2f})"
            for e in ESTIMATE_ERRORS
        )
        lines.append(
            f"| {row.workers} | {row.lower_bound_h:.2f} | {row.default_h:.2f} | {longest} | "
            f"{row.default_use:.0%} | {row.longest_first_use[ESTIMATE_ERRORS[1]]:.0%} |"
        )
    return lines


def plot(found: list[Row], path: Path) -> None:
    """Makespan and utilisation against W, both orders, log-log."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (left, right) = pyplot.subplots(1, 2, figsize=(10, 4))
    workers = [row.workers for row in found]
    left.plot(workers, [row.lower_bound_h for row in found], "k:", label="lower bound")
    left.plot(workers, [row.default_h for row in found], "o-", label="the design's order")
    right.plot(workers, [row.default_use for row in found], "o-", label="the design's order")
    for error in ESTIMATE_ERRORS:
        left.plot(
            workers,
            [row.longest_first_h[error] for row in found],
            ".-",
            label=f"longest first, sigma {error:g}",
        )
        right.plot(
            workers,
            [row.longest_first_use[error] for row in found],
            ".-",
            label=f"longest first, sigma {error:g}",
        )
    left.set(xscale="log", yscale="log", xlabel="workers", ylabel="makespan (hours)")
    right.set(xscale="log", xlabel="workers", ylabel="worker utilisation", ylim=(0, 1.05))
    for axes in (left, right):
        axes.set_xticks(workers, [str(w) for w in workers])
        axes.grid(True, alpha=0.3)
    left.legend(fontsize=8)
    figure.suptitle(f"csynth of a {FUNCTIONS}-function design, simulated (bench/cluster_sim.py)")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    pyplot.close(figure)


def cluster_section() -> list[str]:
    """BENCHMARKS.md's section: assumptions, the table, the plot."""
    found = rows()
    plot(found, PLOT)
    sizes = report_sizes()
    times = sorted(CSYNTH_FLOOR_S + size / CELLS_PER_SECOND for size in sizes)
    return [
        "## Cluster makespan, simulated",
        "",
        f"A discrete-event simulation (bench/cluster_sim.py; no cluster ran) of doit's task graph for a "
        f"{FUNCTIONS}-function design on W workers: every function's emit (in the doit process, {EMIT_S:g} s), "
        f"csim ({CSIM_S:g} s) and csynth on a worker, doit `-n W`, a free thread taking the first ready task of "
        "doit's list. "
        f"csynth seconds = {CSYNTH_FLOOR_S:g} + (LUT + FF) / {CELLS_PER_SECOND:g}, LUT + FF drawn from the "
        f"{len(sizes)} real Vitis reports of calibration/ with a log-normal jitter (sigma {SIZE_JITTER:g}); "
        f"the rate is an assumption (no report there records its run time): those reports' own sizes give "
        f"{times[0] / 60:.1f} min to {times[-1] / 60:.0f} min, median {statistics.median(times) / 60:.1f} min. "
        "The design's order (hclbuild without estimates) lists each function's tasks in turn, unrelated to "
        "the time; longest first (hclbuild.tasks.synthesis_order, when every function has an estimate) lists "
        "the csynth tasks last, by an estimate off by exp(N(0, sigma)), largest first. Means over "
        f"{SEEDS} drawn designs; in brackets, the makespan as a fraction of the design's order. Submission and "
        "transfer cost nothing here.",
        "",
        *table(found),
        "",
        f"![makespan and utilisation against workers]({PLOT.relative_to(REPO)})",
        "",
    ]


def main() -> None:
    for line in table(rows()):
        print(line)


if __name__ == "__main__":
    sys.exit(main())
