"""The hardware flow as a CI job or a workstation with Vitis runs it, end to end through doit, with
the stand-in tools of tests/fake_vitis (no Vitis runs): what the reports say after a broken, failed
or outdated csynth/cosim, and whether a generated CI pipeline passes its build folder along."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hclbuild.cli import run_doit

KERNEL = '''
import numpy as np
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8,), "A")

    def kernel(A):
        X = hcl.compute((8,), lambda i: A[i] * 3, name="X")
        return hcl.compute((8,), lambda i: X[i] + 1, name="Y")

    s = hcl.create_schedule([A], kernel, name="top")
    s.outline(kernel.X)
    return s

def model(A):
    return (A * 3 + 1).astype(np.int32)
'''


def make_project(root: Path, toml: str = "", kernel: str = KERNEL) -> Path:
    folder = root / "projects" / "p"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(kernel)
    (folder / "project.toml").write_text(toml)
    return folder


def doit(folder: Path, *command: str) -> int:
    return run_doit(list(command), [folder], folder.parent.parent / "build")


def report_md(folder: Path) -> str:
    return (folder.parent.parent / "build" / "p" / "reports" / "report.md").read_text()


def summary(folder: Path) -> dict:
    return json.loads((folder.parent.parent / "build" / "p" / "reports" / "summary.json").read_text())


@pytest.mark.slow
def test_a_broken_csynth_report_is_listed_and_csim_still_passes(tmp_path: Path) -> None:
    folder = make_project(tmp_path)
    assert doit(folder, "csim") == 0
    broken = tmp_path / "build" / "p" / "csynth" / "Stage_X.xml"
    broken.parent.mkdir(parents=True)
    broken.write_text("<profile><ReportVersion><Version>2023.2</Version>")  # a hand run, cut short
    (folder / "kernel.py").write_text(KERNEL.replace("A[i] * 3", "A[i] * 3 + 0"))
    # every csim rewrites the report: a report it cannot read had made each one fail with a traceback
    assert doit(folder, "csim") == 0
    assert "- Stage_X: pass" in report_md(folder)
    assert "## Reports that could not be read" in report_md(folder)
    assert summary(folder)["unreadable_reports"] == [
        f"{broken}: not an HLS csynth report (XML parse error: no element found: line 1, column 49)"]
