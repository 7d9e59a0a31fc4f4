"""The doit tests' project tree: projects/<name>/kernel.py beside a dodo.py of all_tasks, and doit
run on it in a child process (the real command line, with this checkout on PYTHONPATH)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

DODO = """
from pathlib import Path
from hclbuild.tasks import all_tasks, doit_config
ROOT = Path(__file__).resolve().parent
DOIT_CONFIG = doit_config(ROOT / "build")
def task_hclbuild():
    yield from all_tasks(ROOT / "projects", ROOT / "build")
"""


def make_tree(root: Path, kernels: dict[str, str]) -> Path:
    for name, text in kernels.items():
        folder = root / "projects" / name
        folder.mkdir(parents=True)
        (folder / "kernel.py").write_text(text)
    (root / "dodo.py").write_text(DODO)
    return root


def doit(root: Path, *args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-m", "doit", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"doit {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    return proc
