"""Test-only helper of the memory and stream tests: one schedule through the whole project flow."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hclbuild.project.config import ProjectConfig
from hclbuild.project.in_process import run_design
from hclbuild.project.layout import BuildLayout


def csim_flow(
    schedule: Any, tmp_path: Path, name: str, model: Callable | None = None, inputs: Callable | None = None
) -> dict[str, Any]:
    """compile -> LLVM reference (checked against `model` when given) -> emit -> g++ csim of every
    function (run_design: a csim that fails raises); asserts that each compared something, returns
    the results by function."""
    config = ProjectConfig(name=name, rtol=1e-5, atol=1e-6, seed=3)
    run = run_design(schedule, BuildLayout(tmp_path, name), config, inputs, model)
    assert run.model_checked is (model is not None)
    for func, csim in run.csim.items():
        assert csim.compared > 0, f"{name}/{func}: {csim.summary}"
    return run.csim
