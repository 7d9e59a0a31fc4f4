"""What every benchmark shares: the repository, a scratch folder, subprocess timing, the machine."""

from __future__ import annotations

import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# one thread for BLAS and OpenMP: the LLVM reference is one thread, and on a shared 2-core machine
# a threaded BLAS spins against the other agents' processes (numpy gemm went from 0.4 to 40 ms)
SINGLE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def env(code: Path = REPO) -> dict[str, str]:
    """The environment of benchmarked subprocesses: hclbuild from `code` (this checkout), bytecode
    caching on, one BLAS thread."""
    out = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out.update(SINGLE_THREAD)
    out["PYTHONPATH"] = str(code)
    return out


@dataclass
class Timed:
    """One subprocess run: wall and CPU (user + system of the child) seconds, and its output."""

    wall: float
    cpu: float
    stdout: str


def run(args: list[str], cwd: Path, check: bool = True, timeout: float = 7200, code: Path = REPO) -> Timed:
    """Run a command to completion (importing hclbuild from `code`); wall and CPU time of the child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        args, cwd=cwd, env=env(code), capture_output=True, text=True, timeout=timeout, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if check and proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(args)} failed ({proc.returncode}) in {cwd}:\n{proc.stdout[-3000:]}\n"
            f"{proc.stderr[-3000:]}"
        )
    return Timed(wall, cpu, proc.stdout + proc.stderr)


def doit(cwd: Path, *args: str, check: bool = True, code: Path = REPO) -> Timed:
    """`python -m doit ARGS` in cwd, with hclbuild from `code`."""
    return run([sys.executable, "-m", "doit", *args], cwd, check=check, code=code)


def median(values: list[float]) -> float:
    return statistics.median(values)


def ran_tasks(output: str) -> list[str]:
    """Tasks doit executed (its `[k/N] name` lines; the up-to-date ones are not listed)."""
    return [line.split("] ", 1)[1].strip() for line in output.splitlines() if re.match(r"\[\d+/\d+\] ", line)]


DODO = """from pathlib import Path
from hclbuild.tasks import all_tasks, doit_config, doit_creator
ROOT = Path(__file__).resolve().parent
DOIT_CONFIG = doit_config(ROOT / "build")
@doit_creator
def task_hclbuild():
    yield from all_tasks(ROOT / "projects", ROOT / "build")
"""


def make_tree(root: Path, projects: dict[str, str | Path]) -> Path:
    """A doit tree: dodo.py, projects/<name>/ (kernel text, or a folder to link), its own build/."""
    (root / "projects").mkdir(parents=True, exist_ok=True)
    for name, source in projects.items():
        target = root / "projects" / name
        if isinstance(source, Path):
            target.symlink_to(source, target_is_directory=True)
        else:
            target.mkdir()
            (target / "kernel.py").write_text(source)
    (root / "dodo.py").write_text(DODO)
    return root


def load_average() -> str:
    try:
        return " / ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def machine() -> dict[str, str]:
    """CPU model, cores, memory, Python, commit and date of this run."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem_kb = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
        memory = f"{mem_kb / 1024 / 1024:.0f} GB"
    except (OSError, StopIteration, ValueError):
        memory = "unknown"
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "cpu": model,
        "cores": str(os.cpu_count()),
        "memory": memory,
        "python": platform.python_version(),
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }
