"""Every port of calibration/ builds and computes its original's function (slow: g++ per port).

For each case: compile, LLVM reference checked against the port's numpy model(), emit, g++ C
simulation of the emitted C++ against the reference, and every loop label the case's vitis.json
names (port_loops) is a loop label of that C++, so the calibration harness can match the report's
loops with the estimate's."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from calibration import CalibrationCase, load_cases
from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_project, emit_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import run_reference
from hclbuild.runtime.csim import run_csim

CASES = load_cases()
LABEL = re.compile(r"^\s*(l_\w+):\s*for\b", re.MULTILINE)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_port_matches_its_model_in_llvm_and_csim_and_names_its_loops(
    case: CalibrationCase, tmp_path: Path
) -> None:
    project = load_project(case.folder)
    layout = BuildLayout(tmp_path, project.name)
    manifest = compile_project(project, layout).design
    assert manifest.functions == [case.top]  # the ports outline nothing: one function, the top
    assert run_reference(project, layout).model_checked is True
    emit_function(project, layout, case.top)
    csim = run_csim(layout.hls_dir(case.top), layout.csim_json(case.top), project=project.name)
    assert csim.passed and csim.compared > 0, csim.summary
    cpp = (layout.hls_dir(case.top) / f"{case.top}.cpp").read_text()
    labels = set(LABEL.findall(cpp))
    named = {label for loop in case.loops for label in loop.port_loops}
    assert named <= labels, sorted(named - labels)
