"""Compile scaling: `hclbuild build` of a chain of N outlined stages, kernel.py to every HLS folder.

Each stage differs from the others by a constant, so no cache can share work between stages: it
is N real functions (a 16x16 float elementwise stage each, pipelined, outlined on its own).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from common import median, run

CHAIN_KERNEL = '''
import numpy as np
import hclbuild as hcl

N = 16
STAGES = {stages}


def schedule():
    hcl.init(hcl.Float())
    A = hcl.placeholder((N, N), "A")

    def kernel(A):
        t = A
        for k in range(STAGES):
            prev = t
            t = hcl.compute((N, N), lambda i, j: prev[i, j] * 0.5 + prev[j, i] + float(k), name=f"S{{k}}")
        return hcl.compute((N, N), lambda i, j: t[i, j] + 1.0, name="out")

    s = hcl.create_schedule([A], kernel, name="top")
    for k in range(STAGES):
        stage = getattr(kernel, f"S{{k}}")
        s[stage].pipeline(stage.axis[1], initiation_interval=II.get(k, 1))
        s.outline(stage)
    return s


II = {{}}  # stage -> pipeline II (the incremental benchmark changes one)


def model(A):
    t = A
    for k in range(STAGES):
        t = t * np.float32(0.5) + t.T + np.float32(k)
    return t + np.float32(1.0)
'''


def chain_kernel(stages: int) -> str:
    """kernel.py of an N-stage chain, every stage outlined."""
    return CHAIN_KERNEL.format(stages=stages)


def compile_scaling(work: Path, sizes: tuple[int, ...] = (25, 50, 100, 200), repeat: int = 3) -> dict:
    """Median wall and CPU seconds of `hclbuild build` per N (fresh build folder each run)."""
    work = work.resolve()
    for n in sizes:
        folder = work / f"chain{n}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "kernel.py").write_text(chain_kernel(n))
    walls: dict[int, list[float]] = {n: [] for n in sizes}
    cpus: dict[int, list[float]] = {n: [] for n in sizes}
    for _ in range(repeat):  # rounds over all sizes, so a busy minute of the machine hits every size
        for n in sizes:
            build = work / f"build{n}"
            shutil.rmtree(build, ignore_errors=True)
            timed = run([sys.executable, "-m", "hclbuild.cli", "build", str(work / f"chain{n}"),
                         "--build-dir", str(build)], work)
            hls = build / f"chain{n}" / "hls"
            folders = len([p for p in hls.iterdir() if p.is_dir()])
            if folders != n + 1:
                raise RuntimeError(f"chain{n}: {folders} HLS folders, expected {n + 1}")
            walls[n].append(timed.wall)
            cpus[n].append(timed.cpu)
            print(f"  compile chain{n}: {timed.wall:.2f} s wall, {timed.cpu:.2f} s CPU", flush=True)
    return {n: (median(walls[n]), median(cpus[n])) for n in sizes}


def scaling_rows(result: dict) -> list[str]:
    rows = ["| stages N | wall (s) | ms per stage (wall) | CPU (s) | ms per stage (CPU) |", "|---|---|---|---|---|"]
    for n, (wall, cpu) in sorted(result.items()):
        rows.append(f"| {n} | {wall:.2f} | {1e3 * wall / n:.1f} | {cpu:.2f} | {1e3 * cpu / n:.1f} |")
    if 100 in result and 200 in result:
        rows.append("")
        rows.append(f"t(200)/t(100): **{result[200][0] / result[100][0]:.2f}** wall, "
                    f"{result[200][1] / result[100][1]:.2f} CPU (linear is 2.0; target <= 2.1). "
                    f"200 stages: **{1e3 * result[200][0] / 200:.1f} ms per stage** wall (target <= 10).")
    return rows
