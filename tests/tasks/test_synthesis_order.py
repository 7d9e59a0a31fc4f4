"""The csynth tasks start longest estimated first when every function has an estimate
(hclbuild.tasks.synthesis_order; the gain is simulated in bench/cluster_sim.py)."""

from __future__ import annotations

import json
from pathlib import Path

from hclbuild.project.layout import BuildLayout
from hclbuild.project.plans import ProjectPlan
from hclbuild.tasks.definitions import project_tasks
from hclbuild.tasks.synthesis_order import estimated_size

FUNCTIONS = ["top", "small", "large", "middle"]
SIZES = {"top": (100, 50), "small": (10, 5), "large": (9000, 12000), "middle": (700, 800)}  # LUT, FF


def _write_estimates(layout: BuildLayout, sizes: dict[str, tuple[int, int]]) -> None:
    for func, (lut, ff) in sizes.items():
        path = layout.estimate_json(func)
        path.parent.mkdir(parents=True, exist_ok=True)
        document = {"kind": "estimate", "function": func, "resources": {"LUT": lut, "FF": ff, "DSP": 3}}
        path.write_text(json.dumps(document))


def _csynth_order(build: Path, vitis: bool = True) -> list[str]:
    plan = ProjectPlan(build / "p_src", "p", FUNCTIONS, [], {})
    tasks = project_tasks(plan, build, str(build / "fingerprint"), vitis)
    return [task["name"].split("/")[1] for task in tasks if task.get("basename") == "csynth"]


def test_the_size_is_lut_plus_ff_of_the_estimate(tmp_path: Path) -> None:
    layout = BuildLayout(tmp_path, "p")
    _write_estimates(layout, {"large": SIZES["large"]})
    assert estimated_size(layout, "large") == 21000.0
    assert estimated_size(layout, "small") is None


def test_csynth_tasks_start_longest_estimated_first(tmp_path: Path) -> None:
    _write_estimates(BuildLayout(tmp_path, "p"), SIZES)
    assert _csynth_order(tmp_path) == ["large", "middle", "top", "small"]


def test_without_an_estimate_of_every_function_the_designs_order_stays(tmp_path: Path) -> None:
    assert _csynth_order(tmp_path) == FUNCTIONS
    _write_estimates(BuildLayout(tmp_path, "p"), {f: SIZES[f] for f in FUNCTIONS if f != "small"})
    assert _csynth_order(tmp_path) == FUNCTIONS


def test_an_unreadable_estimate_keeps_the_designs_order(tmp_path: Path) -> None:
    layout = BuildLayout(tmp_path, "p")
    _write_estimates(layout, SIZES)
    layout.estimate_json("middle").write_text('{"kind": "estimate", "resources": {"LUT": "many"}}')
    assert _csynth_order(tmp_path) == FUNCTIONS
    layout.estimate_json("middle").write_text("{not json")
    assert _csynth_order(tmp_path) == FUNCTIONS


def test_every_task_is_still_defined_once(tmp_path: Path) -> None:
    plan = ProjectPlan(tmp_path / "p_src", "p", FUNCTIONS, [], {})
    plain = sorted(f"{t['basename']}:{t['name']}" for t in project_tasks(plan, tmp_path, "fp", True))
    _write_estimates(BuildLayout(tmp_path, "p"), SIZES)
    ordered = [f"{t['basename']}:{t['name']}" for t in project_tasks(plan, tmp_path, "fp", True)]
    assert sorted(ordered) == plain and len(set(ordered)) == len(ordered)
