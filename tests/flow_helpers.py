"""Test-only helper: one kernel through the real flow, numpy model == LLVM reference == g++ C++."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hclbuild.project.config import ProjectConfig
from hclbuild.project.in_process import run_design
from hclbuild.project.layout import BuildLayout


def check_numpy_llvm_cpp(
    schedule: Any,
    name: str,
    tmp_path: Path,
    inputs_fn: Callable | None,
    model_fn: Callable | None,
    seed: int = 5,
) -> dict[str, Any]:
    """Build + verify -> LLVM reference run checked against the model -> golden vectors -> emitted
    C++ and testbench compiled with g++ -> bit-exact compare, for the top and every outlined
    function (run_design, as hcl.Platform runs it); returns the design manifest."""
    config = ProjectConfig(name=name, rtol=1e-5, atol=1e-6, seed=seed)
    run = run_design(schedule, BuildLayout(tmp_path, name), config, inputs_fn, model_fn)
    assert run.model_checked is True
    for func, csim in run.csim.items():
        assert csim.compared > 0, f"{name}/{func}: {csim.summary}"
    return run.manifest
