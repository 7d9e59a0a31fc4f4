"""The estimate tasks (issue 26): estimate:<p>/<func> after emit writes build/<p>/estimate/<func>.json
for every function, `doit build` runs them, they rerun only for a function whose MLIR changed, and a
function the model refuses (or fails on) gets a file that says why."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from doit_helpers import doit, make_tree

from hclbuild.errors import HCLNotImplementedError
from hclbuild.project import estimation
from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design
from hclbuild.project.layout import BuildLayout
from hclbuild.project.report_files import write_project_report
from hclbuild.schedule.schedule import Schedule

KERNEL = """
import hclbuild as hcl

def schedule():
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((16,), "A")

    def kernel(A):
        X = hcl.compute((16,), lambda i: A[i] * 3, name="X")
        return hcl.compute((16,), lambda i: X[i] + 1, name="Y")

    s = hcl.create_schedule([A], kernel, name="top")
    s[kernel.Y].pipeline(kernel.Y.axis[0], initiation_interval=1)
    s.outline(kernel.X)
    s.outline(kernel.Y)
    return s
"""
FUNCTIONS = ("top", "Stage_X", "Stage_Y")
KEYS = {"kind", "model_version", "function", "part", "clock_ns", "latency_min", "latency_max", "interval",
        "loops", "resources"}  # fmt: skip


def ran(output: str, step: str) -> set[str]:
    """The tasks of `step` that doit ran (its `[k/N] step:...` lines; `.  step:...` without progress)."""
    return set(re.findall(rf"(?:\] |\.  )({step}:\S+)", output))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path, {"p": KERNEL})


def test_build_estimates_every_function_and_reruns_only_what_changed(tree: Path) -> None:
    first = doit(tree, "build")
    assert ran(first.stdout + first.stderr, "estimate") == {f"estimate:p/{f}" for f in FUNCTIONS}
    for func in FUNCTIONS:
        record = json.loads((tree / "build" / "p" / "estimate" / f"{func}.json").read_text())
        assert KEYS <= set(record) and record["kind"] == "estimate" and record["function"] == func
        assert record["part"] == "xcu250-figd2104-2L-e"
        assert "no_estimate" not in record and record["latency_max"] > 0
    # nothing changed: no estimate task runs
    again = doit(tree, "build")
    assert ran(again.stdout + again.stderr, "estimate") == set()
    # Stage_Y's II changes its MLIR and the top's (which holds its callees), not Stage_X's
    kernel = tree / "projects" / "p" / "kernel.py"
    kernel.write_text(kernel.read_text().replace("initiation_interval=1", "initiation_interval=2"))
    changed = doit(tree, "build")
    assert ran(changed.stdout + changed.stderr, "estimate") == {"estimate:p/top", "estimate:p/Stage_Y"}


def test_estimate_alone_runs_no_reference(tree: Path) -> None:
    proc = doit(tree, "estimate")
    output = proc.stdout + proc.stderr
    assert ran(output, "reference") == set() and ran(output, "estimate") == {
        f"estimate:p/{f}" for f in FUNCTIONS
    }


# ---- the step in process, with a stand-in model (the real one is hclbuild.compiler.estimate) ----


def _schedule() -> Schedule:
    namespace: dict = {}
    exec(KERNEL, namespace)
    return namespace["schedule"]()


@pytest.fixture
def compiled(tmp_path: Path) -> BuildLayout:
    layout = BuildLayout(tmp_path / "build", "p")
    compile_design(_schedule(), layout, "p")
    return layout


class _Record:
    def __init__(self, func: str) -> None:
        self.func = func

    def to_json(self) -> dict:
        return {"model_version": "stand-in", "function": self.func, "part": "p", "clock_ns": 10.0,
                "latency_min": 17, "latency_max": 17, "interval": 18, "loops": [],
                "resources": {"DSP": 0, "BRAM_18K": 0, "FF": 10, "LUT": 20}}  # fmt: skip


def _stand_in(monkeypatch: pytest.MonkeyPatch, estimate_module) -> None:
    monkeypatch.setattr(estimation, "estimate_module", estimate_module)


def test_a_refusal_is_a_file_that_says_why(compiled: BuildLayout, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(module, **_):
        raise HCLNotImplementedError("estimate: math.tanh has no latency table\nmore")

    _stand_in(monkeypatch, refuse)
    record = estimation.estimate_function(ProjectConfig(name="p"), compiled, "Stage_X")
    assert record["no_estimate"] == "estimate: math.tanh has no latency table"
    assert record["latency_min"] is None and record["resources"] == {}
    assert json.loads(compiled.estimate_json("Stage_X").read_text()) == record
    # the report says why, and shows no figure of it
    write_project_report("p", compiled)
    markdown = compiled.report_markdown.read_text()
    assert (
        "## Estimate notes\n\n- Stage_X: no estimate: estimate: math.tanh has no latency table\n" in markdown
    )
    assert "| Stage_X | - | - | - | - |" in markdown


def test_a_bug_of_the_model_fails_no_build(
    compiled: BuildLayout, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def crash(module, **_):
        raise ZeroDivisionError("division by zero")

    _stand_in(monkeypatch, crash)
    record = estimation.estimate_function(ProjectConfig(name="p"), compiled, "top")
    reason = "the QoR model failed (ZeroDivisionError: division by zero); this is a bug of hclbuild"
    assert record["no_estimate"] == reason
    assert capsys.readouterr().err == f"hclbuild: warning: p/top: {reason}\n"


def test_m_axi_arguments_are_estimated_as_ap_memory_with_a_note(
    compiled: BuildLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stand_in(monkeypatch, lambda module, **_: {f: _Record(f) for f in FUNCTIONS})
    vitis = ProjectConfig(name="p", flow_target="vitis")  # the vitis flow gives the top m_axi arrays
    record = estimation.estimate_function(vitis, compiled, "top")
    assert record["latency_min"] == 17 and record["kind"] == "estimate"
    assert record["note"] == (
        "m_axi arguments A, Y estimated as ap_memory (on-chip RAM ports): AXI latency and "
        "bursts are not modelled"
    )
    plain = estimation.estimate_function(ProjectConfig(name="p"), compiled, "top")
    assert "note" not in plain
