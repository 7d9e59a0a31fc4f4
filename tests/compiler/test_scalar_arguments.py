"""A 0-d placeholder (`alpha`, `n`) is a C scalar by value in every generated top and outlined
function (`int32_t n`, an ap_none port in the vivado flow, s_axilite in the vitis flow), not a
one-element RAM (`int32_t n[1]`); the IR keeps memref<1xi32>, so numpy == LLVM == g++ csim."""

from __future__ import annotations

from pathlib import Path

import pytest

import hclbuild as hcl
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
    alpha = hcl.placeholder((), "alpha")
    n = hcl.placeholder((), "n")
    X = hcl.placeholder((16,), "X")
    beta = hcl.placeholder((), "beta", dtype=hcl.Fixed(16, 8))

    def kernel(alpha, n, X, beta):
        Y = hcl.compute((16,), lambda i: alpha.v * X[i] + n.v, "Y")
        return hcl.compute((16,), lambda i: Y[i] - n.v + hcl.cast(hcl.Int(32), beta.v * 4), "Z")

    s = hcl.create_schedule([alpha, n, X, beta], kernel, name="top")
    s.outline(kernel.Y)
    return s


def inputs(rng, sizes):
    return [np.int32(-7), np.int32(1000), rng.integers(-2**20, 2**20, 16).astype(np.int32), 2.5]


def model(alpha, n, X, beta):
    return alpha * X + 10
"""


def _project(tmp_path: Path, flow: str, interface: str = "") -> Path:
    folder = tmp_path / "saxpy"
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(KERNEL)
    (folder / "project.toml").write_text(f'[hls]\nflow_target = "{flow}"\n{interface}')
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("flow", ["vivado", "vitis"])
def test_scalar_arguments_by_value_csim_bit_exact(flow: str, tmp_path: Path) -> None:
    project = load_project(_project(tmp_path, flow))
    layout = BuildLayout(tmp_path / "build", project.name)
    manifest = compile_project(project, layout)
    assert run_reference(project, layout).model_checked is True
    sources = {}
    for func in manifest.design.functions:
        emit_function(project, layout, func)
        sources[func] = (layout.hls_dir(func) / f"{func}.cpp").read_text()
        csim = run_csim(layout.hls_dir(func), layout.csim_json(func), project=project.name)
        assert csim.passed and csim.mismatches == 0, csim.summary
    top, stage = sources["top"], sources["Stage_Y"]
    assert "void top(int32_t alpha, int32_t n, int32_t X[16], ap_fixed<16, 8> beta, int32_t Z[16]) {" in top
    assert "void Stage_Y(int32_t alpha, int32_t X[16], int32_t n, int32_t Y[16]) {" in top
    assert "  Stage_Y(alpha, X, n, Y);" in top
    assert "int32_t v0 = (uint32_t)alpha * (uint32_t)X_i;" in stage
    assert "void Stage_Y(int32_t alpha, int32_t X[16], int32_t n, int32_t Y[16]) {" in stage
    mode = "s_axilite" if flow == "vitis" else "ap_none"
    for code in (top, stage):  # each function is the top of its own project
        assert f"#pragma HLS interface mode={mode} port=alpha" in code
        assert f"#pragma HLS interface mode={mode} port=n" in code
        assert "n[" not in code and "alpha[" not in code
    assert f"#pragma HLS interface mode={mode} port=beta" in top  # an ap_fixed by value too


def test_interface_takes_a_scalar_mode_for_a_scalar_argument(tmp_path: Path) -> None:
    project = load_project(_project(tmp_path, "vivado", '\n[interface.n]\nprotocol = "s_axilite"\n'))
    layout = BuildLayout(tmp_path / "build", project.name)
    compile_project(project, layout)
    emit_function(project, layout, "top")
    code = (layout.hls_dir("top") / "top.cpp").read_text()
    assert "#pragma HLS interface mode=s_axilite port=n" in code
    assert "#pragma HLS interface mode=ap_none port=alpha" in code
    with pytest.raises(ConfigError, match="protocol 'ap_memory' cannot carry a scalar argument"):
        bad = load_project(_project(tmp_path / "b", "vivado", '\n[interface.n]\nprotocol = "ap_memory"\n'))
        compile_project(bad, BuildLayout(tmp_path / "b" / "build", bad.name))
        emit_function(bad, BuildLayout(tmp_path / "b" / "build", bad.name), "top")


def test_a_written_zero_d_placeholder_stays_an_array() -> None:
    hcl.init(hcl.Int(32))
    n = hcl.placeholder((), "n")
    X = hcl.placeholder((4,), "X")

    def kernel(n, X):
        with hcl.for_(0, 1, tag="S"):
            n.v = X[0] + 1
        return hcl.compute((4,), lambda i: X[i] + n.v, "Y")

    code = hcl.build(hcl.create_schedule([n, X], kernel), target="vhls")
    assert "void top(int32_t n[1], int32_t X[4], int32_t Y[4])" in code
