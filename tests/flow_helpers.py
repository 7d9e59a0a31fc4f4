"""Test-only helper: one kernel through the real flow, numpy model == LLVM reference == g++ C++."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hclbuild.project.config import ProjectConfig
from hclbuild.project.flow import compile_design, emit_design_function, reference_design
from hclbuild.project.layout import BuildLayout
from hclbuild.runtime.csim import run_csim


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
    function; returns the design manifest."""
    layout = BuildLayout(tmp_path, name)
    config = ProjectConfig(name=name, rtol=1e-5, atol=1e-6, seed=seed)
    manifest = compile_design(schedule, layout, name)
    result = reference_design(layout, name, config, inputs_fn, model_fn)
    assert result["model_checked"] is True
    for func in manifest["functions"]:
        emit_design_function(layout, config, func)
        csim = run_csim(layout.hls_dir(func), layout.csim_json(func), project=name)
        assert csim.passed, f"{name}/{func}: {csim.summary}"
        assert csim.compared > 0
    return manifest
