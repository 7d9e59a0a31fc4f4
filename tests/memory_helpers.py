"""Test-only helper of the memory and stream tests: one schedule through the whole project flow."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design, emit_design_function, reference_design
from hclbuild.project.layout import BuildLayout
from hclbuild.runtime.csim import run_csim


def csim_flow(
    schedule: Any, tmp_path: Path, name: str, model: Callable | None = None, inputs: Callable | None = None
) -> dict[str, Any]:
    """compile -> LLVM reference (checked against `model` when given) -> emit -> g++ csim of every
    function; asserts that every csim passed and compared something, returns the results by function."""
    layout = BuildLayout(tmp_path, name)
    config = ProjectConfig(name=name, rtol=1e-5, atol=1e-6, seed=3)
    manifest = compile_design(schedule, layout, name)
    result = reference_design(layout, name, config, inputs, model)
    assert result["model_checked"] is (model is not None)
    results = {}
    for func in manifest["functions"]:
        emit_design_function(layout, config, func)
        csim = run_csim(layout.hls_dir(func), layout.csim_json(func), project=name)
        assert csim.passed, f"{name}/{func}: {csim.summary}"
        assert csim.compared > 0
        results[func] = csim
    return results
