"""Issue 34 section 1: a model/reference mismatch says how many elements differ, the first index
and the largest absolute error, as csim's line does (it named only the first element)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = """import numpy as np
import hclbuild as hcl


def schedule():
    hcl.init(hcl.UInt(8))
    A = hcl.placeholder((8,), "A")
    return hcl.create_schedule([A], lambda A: hcl.compute((8,), lambda i: A[i] - 2, name="D"), name="top")


def inputs(rng):
    return [np.array([0, 1, 2, 3, 4, 5, 6, 7], dtype=np.uint8)]


def model(A):
    # the model thinks the difference is signed: A - 2 below zero where the design wraps
    return {MODEL}
"""


@pytest.mark.parametrize(
    ("model", "line"),
    [
        (
            "A.astype(np.int16) - 2",
            "disagree on D[0]: model np.int16(-2), LLVM np.uint64(254) (2 of 8 elements differ, max abs error 256)",
        ),
        (
            "np.array([-2, 0, 0, 0, 0, 0, 0, 100], dtype=np.int64)",
            "disagree on D[0]: model np.int64(-2), LLVM np.uint64(254) (7 of 8 elements differ, max abs error 256)",
        ),
        (
            "np.array([-2.0, -1, 0, 1, 2, 3, 4, 5.5])",  # 5.5 compares as the output type: 5
            "disagree on D[0]: model np.float64(-2.0), LLVM np.uint64(254) (2 of 8 elements differ, max abs error 256)",
        ),
    ],
)
def test_mismatch_counts_elements_and_max_error(tmp_path: Path, model: str, line: str) -> None:
    project = tmp_path / "mm"
    project.mkdir()
    (project / "kernel.py").write_text(KERNEL.replace("{MODEL}", model))
    proc = subprocess.run(
        [sys.executable, "-m", "hclbuild.cli", "build", str(project)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert line in proc.stderr, proc.stderr
