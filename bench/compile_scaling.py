"""Compile scaling: `hclbuild build` of a chain of N outlined stages, kernel.py to every HLS folder.

Each stage differs from the others by a constant, so no cache can share work between stages: it
is N real functions (a 16x16 float elementwise stage each, pipelined, outlined on its own).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import Timed, median, run

CHAIN_KERNEL = """
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
        if k in SPLIT:
            s[stage].split(stage.axis[0], SPLIT[k])
        s[stage].pipeline(stage.axis[1], initiation_interval=II.get(k, 1))
        s.outline(stage)
    return s


II = {{}}  # stage -> pipeline II (the incremental benchmark changes one: a pragma)
SPLIT = {{}}  # stage -> split factor of its outer loop (then one more: a change of the C++ code)


def model(A):
    t = A
    for k in range(STAGES):
        t = t * np.float32(0.5) + t.T + np.float32(k)
    return t + np.float32(1.0)
"""


def chain_kernel(stages: int) -> str:
    """kernel.py of an N-stage chain, every stage outlined."""
    return CHAIN_KERNEL.format(stages=stages)


def chain_project(work: Path, stages: int) -> Path:
    """work/chain<N>/kernel.py: the project folder of an N-stage chain."""
    folder = work / f"chain{stages}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.py").write_text(chain_kernel(stages))
    return folder


def build_chain(folder: Path, stages: int, build_root: Path, cwd: Path) -> Timed:
    """`hclbuild build` of a chain project into a fresh build_root, checked to have written every
    function's HLS folder."""
    shutil.rmtree(build_root, ignore_errors=True)
    timed = run(
        [sys.executable, "-m", "hclbuild.cli", "build", str(folder), "--build-dir", str(build_root)], cwd
    )
    hls = build_root / folder.name / "hls"
    folders = len([p for p in hls.iterdir() if p.is_dir()])
    if folders != stages + 1:
        raise RuntimeError(f"{folder.name}: {folders} HLS folders, expected {stages + 1}")
    return timed


def compile_scaling(
    work: Path, sizes: tuple[int, ...] = (25, 50, 100, 200), repeat: int = 3
) -> tuple[dict, float]:
    """Median wall and CPU seconds of `hclbuild build` per N (fresh build folder each run), and the
    median seconds of a bare `import doit` timed after each build."""
    work = work.resolve()
    folders = {n: chain_project(work, n) for n in sizes}
    walls: dict[int, list[float]] = {n: [] for n in sizes}
    cpus: dict[int, list[float]] = {n: [] for n in sizes}
    imports: list[float] = []
    for _ in range(repeat):  # rounds over all sizes, so a busy minute of the machine hits every size
        for n in sizes:
            timed = build_chain(folders[n], n, work / f"build{n}", work)
            walls[n].append(timed.wall)
            cpus[n].append(timed.cpu)
            print(f"  compile chain{n}: {timed.wall:.2f} s wall, {timed.cpu:.2f} s CPU", flush=True)
            imports.append(run([sys.executable, "-c", "import doit"], work).wall)
    # the ms-per-stage target is absolute, and this VM's speed differs from day to day by 2-3x:
    # a bare interpreter start in the same minutes tells a reader which kind of day it was
    return {n: (median(walls[n]), median(cpus[n])) for n in sizes}, median(imports)


PAYLOAD = b"x" * 1024  # a small file, as most of an HLS folder's are


def _per_name_ms(folder: Path, make_name, count: int = 1000) -> float:
    """Milliseconds of make_name(where, path) for `count` new names in a fresh folder, median of 3 rounds."""
    rounds = []
    for round_ in range(3):
        where = folder / f"names{round_}"
        where.mkdir(parents=True, exist_ok=True)
        (where / "source.bin").write_bytes(PAYLOAD)
        start = time.perf_counter()
        for k in range(count):
            make_name(where, where / f"f{k}.bin")
        rounds.append(1e3 * (time.perf_counter() - start) / count)
        shutil.rmtree(where)
    return median(rounds)


def _new_file(where: Path, path: Path) -> None:
    with open(path, "wb") as handle:
        handle.write(PAYLOAD)


def file_creation_ms(folder: Path) -> float:
    """Milliseconds to create, write (1 KB) and close one new file in `folder`, the median of 3 rounds:
    an emitted function is about 20 new files, so on a disk where this is slow, the disk is the floor."""
    return _per_name_ms(folder, _new_file)


def link_ms(folder: Path) -> float:
    """Milliseconds to give one existing file a new name (a hard link), median of 3 rounds."""
    return _per_name_ms(folder, lambda where, path: os.link(where / "source.bin", path))


def memory_folder() -> Path | None:
    """A folder on a memory file system (Linux /dev/shm), to tell the disk's share of a build apart."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else None


def disk_share(work: Path, stages: int = 200, repeat: int = 3) -> dict | None:
    """The same `stages` build with its build folder on disk and in memory, side by side, and the
    file creation cost of each; None where no memory file system exists."""
    shm = memory_folder()
    if shm is None:
        return None
    work = work.resolve()
    folder = chain_project(work, stages)
    memory = Path(tempfile.mkdtemp(prefix="hclbuild-bench-", dir=shm))
    try:
        walls = {"disk": [], "memory": []}
        for _ in range(repeat):
            for where, build_root in (("disk", work / "disk_build"), ("memory", memory / "build")):
                walls[where].append(build_chain(folder, stages, build_root, work).wall)
        stats = [path.stat() for path in (memory / "build").rglob("*") if path.is_file()]
        # a golden vector is one file under several names (hard links): count both
        inodes = len({(stat.st_dev, stat.st_ino) for stat in stats})
        return {
            "stages": stages,
            "disk": median(walls["disk"]),
            "memory": median(walls["memory"]),
            "files": inodes,
            "names": len(stats),
            "disk_file_ms": file_creation_ms(work),
            "memory_file_ms": file_creation_ms(memory),
            "link_ms": link_ms(work),
        }
    finally:
        shutil.rmtree(memory, ignore_errors=True)


def disk_rows(result: dict | None) -> list[str]:
    if result is None:
        return ["No memory file system (/dev/shm) here: the disk's share of a build was not measured."]
    n = result["stages"]
    return [
        f"The same {n}-stage build with its build folder on disk and in memory (/dev/shm), side by side: "
        f"{result['disk']:.2f} s vs {result['memory']:.2f} s ({1e3 * result['disk'] / n:.1f} vs "
        f"{1e3 * result['memory'] / n:.1f} ms per stage). It writes {result['files']} files "
        f"({result['files'] / (n + 1):.0f} per function) under {result['names']} names (a golden vector "
        f"is one file, hard-linked into each folder that holds it); creating a 1 KB file takes "
        f"{result['disk_file_ms']:.3f} ms on this disk and {result['memory_file_ms']:.3f} ms in memory, "
        f"a hard link {result['link_ms']:.3f} ms on this disk."
    ]


def scaling_rows(result: dict, import_doit: float) -> list[str]:
    rows = [
        "| stages N | wall (s) | ms per stage (wall) | CPU (s) | ms per stage (CPU) |",
        "|---|---|---|---|---|",
    ]
    for n, (wall, cpu) in sorted(result.items()):
        rows.append(f"| {n} | {wall:.2f} | {1e3 * wall / n:.1f} | {cpu:.2f} | {1e3 * cpu / n:.1f} |")
    if 100 in result and 200 in result:
        rows.append("")
        rows.append(
            f"t(200)/t(100): **{result[200][0] / result[100][0]:.2f}** wall, "
            f"{result[200][1] / result[100][1]:.2f} CPU (linear is 2.0; target <= 2.1). "
            f"200 stages: **{1e3 * result[200][0] / 200:.1f} ms per stage** wall (target <= 10)."
        )
    rows.append("")
    rows.append(
        f'The machine\'s speed in these minutes: a bare `python -c "import doit"` took '
        f"{1e3 * import_doit:.0f} ms (median, one after each build)."
    )
    return rows
