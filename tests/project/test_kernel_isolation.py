"""kernel.py's code runs in a child process of the build, never in the build itself: an os._exit(),
an os.abort(), a loop that never ends or a thread it starts can end that child (one line naming
the project, or the timeout), not the build; the bad-input catalogue has the failing cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

KERNEL = """
import threading
import numpy as np
import hclbuild as hcl

def spin():
    while True:
        pass

# a thread that never ends, neither a daemon nor joined: in the build's own process it had kept
# the build from ever exiting
threading.Thread(target=spin).start()

def schedule():
    A = hcl.placeholder((8,), "A")
    return hcl.create_schedule([A], lambda A: hcl.compute((8,), lambda i: A[i] * 2, name="B"))

def model(A):
    return A * 2
"""


def test_a_thread_that_never_ends_does_not_keep_the_build_from_ending(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "kernel.py").write_text(KERNEL)
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", "csim", "p"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((tmp_path / "build" / "p" / "csim" / "top.json").read_text())["pass"] is True
    assert time.monotonic() - started < 120


def test_the_build_process_never_imports_the_kernel(tmp_path: Path) -> None:
    from hclbuild.project.config import load_project
    from hclbuild.project.kernel import traced_functions

    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "kernel.py").write_text(KERNEL.replace("threading.Thread(target=spin).start()", ""))
    before = set(sys.modules)
    assert traced_functions(load_project(tmp_path / "p")) == ["top"]
    assert not [name for name in set(sys.modules) - before if name.startswith("hclbuild_kernel_")]
