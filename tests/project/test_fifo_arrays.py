"""`[interface]` protocol = "ap_fifo" on an array argument the function reads, or writes, strictly in
order (UG1399: an ap_fifo array is accessed sequentially), in the top and in an outlined function;
an array accessed otherwise is refused with a one-line error saying why."""

from __future__ import annotations

from pathlib import Path

import pytest

from hclbuild.errors import ConfigError
from hclbuild.project.config import load_project
from hclbuild.project.flow import compile_project, emit_function
from hclbuild.project.layout import BuildLayout
from hclbuild.project.reference import run_reference
from hclbuild.runtime.csim import run_csim

KERNEL = """
import numpy as np
import hclbuild as hcl


def schedule(sizes):
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((4, 8), "A")
    R = hcl.placeholder((8,), "R")

    def kernel(A, R):
        B = hcl.compute((4, 8), lambda i, j: A[i, j] * 2, "B")
        return hcl.compute((4, 8), lambda i, j: B[i, j] + R[7 - j], "C")

    s = hcl.create_schedule([A, R], kernel, name="top")
    s.outline(kernel.B)
    return s


def inputs(rng, sizes):
    return [rng.integers(-100, 100, (4, 8)).astype(np.int32), rng.integers(-100, 100, 8).astype(np.int32)]


def model(A, R):
    return A * 2 + R[::-1]
"""


def _project(tmp_path: Path, interface: str) -> tuple:
    folder = tmp_path / "fifo"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "project.toml").write_text(interface)
    project = load_project(folder)
    layout = BuildLayout(tmp_path / "build", project.name)
    return project, layout, compile_project(project, layout)


def test_an_array_read_in_order_is_a_fifo_port(tmp_path: Path) -> None:
    toml = '[interface.A]\nprotocol = "ap_fifo"\n[interface.C]\nprotocol = "ap_fifo"\n'
    toml += '[interface.Stage_B.A]\nprotocol = "ap_fifo"\n[interface.Stage_B.B]\nprotocol = "ap_fifo"\n'
    project, layout, manifest = _project(tmp_path, toml)
    assert run_reference(project, layout).model_checked is True
    for func in manifest.design.functions:
        emit_function(project, layout, func)
        csim = run_csim(layout.hls_dir(func), layout.csim_json(func), project=project.name)
        assert csim.passed and csim.mismatches == 0, csim.summary
    top = (layout.hls_dir("top") / "top.cpp").read_text()
    stage = (layout.hls_dir("Stage_B") / "Stage_B.cpp").read_text()
    assert (
        "  #pragma HLS interface mode=ap_fifo port=A\n  #pragma HLS interface mode=ap_memory port=R\n" in top
    )
    assert "  #pragma HLS interface mode=ap_fifo port=C\n" in top
    assert (
        "  #pragma HLS interface mode=ap_fifo port=A\n  #pragma HLS interface mode=ap_fifo port=B\n" in stage
    )


def test_an_array_read_out_of_order_is_refused(tmp_path: Path) -> None:
    project, layout, _ = _project(tmp_path, '[interface.R]\nprotocol = "ap_fifo"\n')
    with pytest.raises(ConfigError) as error:
        emit_function(project, layout, "top")
    assert str(error.value) == (
        "fifo: project.toml [interface], argument R of @top: protocol 'ap_fifo' needs each element "
        "read, or written, once and in order, but its subscripts are not the loop variables of the loops "
        "around it, outermost first"
    )
