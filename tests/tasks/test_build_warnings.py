"""The build-time II warnings (port- and recurrence-limited loops) reach the user's stderr under
`hclbuild build` and plain `doit`: the compile task traces kernel.py in a child process, whose own
output only doit's capture would see."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from doit_helpers import doit, make_tree

REPO = Path(__file__).resolve().parents[2]

KERNEL = """
import numpy as np
import hclbuild as hcl


def schedule():
    hcl.init(hcl.Float())
    A = hcl.placeholder((8, 8), "A")

    def kernel(A):
        def point(y, x):
            i, j = y + 1, x + 1
            A[i, j] = (A[i - 1, j] + A[i, j + 1] + A[i, j - 1]) / 3.0

        hcl.mutate((6, 6), point, name="sweep")

    s = hcl.create_schedule([A], kernel, name="top")
    s[kernel.sweep].pipeline(kernel.sweep.axis[1])
    return s


def model(A):
    A = A.copy()
    for i in range(1, 7):
        for j in range(1, 7):
            A[i, j] = (A[i - 1, j] + A[i, j + 1] + A[i, j - 1]) / np.float32(3.0)
    return {"A": A}
"""

# (the three reads of A an iteration are split over its rows by passes/parallel_reads.py: no
# port warning; the port check's lines take the same way, project/flow.print_warnings)
WARNINGS = [
    "hclbuild: warning: sweep: top: loop l_sweep_x asks II=1; the recurrence through A "
    "(fadd 4 + fdiv 12 + store/load 3 = 19 cycles) gives II=19",
]


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("hclbuild: warning:")]


@pytest.mark.slow
def test_hclbuild_build_prints_the_warnings_on_stderr(tmp_path: Path) -> None:
    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / "kernel.py").write_text(KERNEL)
    proc = subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", "build", str(folder)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == WARNINGS
    assert "warning" not in proc.stdout


@pytest.mark.slow
def test_plain_doit_prints_the_warnings_on_stderr(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"sweep": KERNEL})
    proc = doit(root, "compile:sweep")
    assert _warnings(proc.stderr) == WARNINGS
